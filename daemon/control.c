/* SPDX-License-Identifier: MIT */
/*
 * The control API: HTTP+JSON over a unix socket (evhttp on the daemon's
 * loop).  GET requests read state; POST requests change it and are only
 * accepted from the daemon's user, root, or the daemon's group, as told by
 * SO_PEERCRED.  Every body in and out goes through jansson.  What it may
 * ask of the daemon is struct control_ops (control-internal.h).
 */
#include "control-internal.h"

#include "common/common.h"
#include "optimizer/optimizer.h"
#include "publish/publish.h"
#include "report/report.h"
#include "queue/queue.h"
#include "watchers/watchers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <sys/queue.h>

#include <event2/keyvalq_struct.h>

#define LIST_LIMIT 500
/* accept() out of descriptors: paused this long, doubling up to the max */
#define ACCEPT_PAUSE_MIN_MS 100
#define ACCEPT_PAUSE_MAX_MS 10000

struct status_job;

struct control {
        struct control_deps deps;
        struct control_ops ops;
        void *userdata; /* the ops' */
        struct evhttp *http;
        char *path;
        struct status_job *status_in_flight; /* the status being answered, or NULL */
        struct evconnlistener *listener;     /* evhttp's, paused when accept fails */
        struct event *accept_resume;
        int accept_pause_ms; /* 0: accepting normally */
        time_t accept_failed_at;
        struct control_conns *conns;
        bool full;     /* control_connections are open: not accepting more */
        bool stopping; /* control_stop is freeing the connections */
};

static const struct config *config(const struct control *c)
{
        return c->ops.config(c->userdata);
}

/*
 * The listener's user data is evhttp's own, so its error callback finds the
 * control here: one per daemon.
 */
static struct control *accepting_control;

/* The body of a reply whose own body could not be made. */
#define NO_BODY "{\"error\":\"the reply could not be made (out of memory, or text not UTF-8)\"}"

/*
 * Sends body (taken) with code.  A NULL body, or one that cannot be
 * written out, is what a failed json_pack() leaves: the reply is a 500
 * that says so, never a 200 with a part missing.
 */
static void reply(struct evhttp_request *req, int code, json_t *body)
{
        struct evbuffer *out = evbuffer_new();
        char *text = body ? json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        const char *sent = text ? text : NO_BODY;

        if (!text)
                code = 500;
        evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                          "application/json");
        if (out)
                evbuffer_add(out, sent, strlen(sent));
        if (accepting_control)
                control_conns_replied(accepting_control->conns, req);
        evhttp_send_reply(req, code, code < 300 ? "OK" : "Error", out);
        if (out)
                evbuffer_free(out);
        free(text);
        json_decref(body);
}

static void reply_error(struct evhttp_request *req, int code, const char *message)
{
        reply(req, code, json_pack("{s:s}", "error", message));
}

/*
 * Whether the peer may change things: our user, root, or a member of our
 * group, as its primary group or one of its supplementary groups (as they
 * were when it connected: SO_PEERGROUPS).
 */
static bool peer_may_write(struct evhttp_request *req)
{
        struct evhttp_connection *conn = evhttp_request_get_connection(req);
        struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
        struct ucred cred;
        gid_t groups[256];
        socklen_t len = sizeof(cred);
        int fd = bev ? (int)bufferevent_getfd(bev) : -1;

        if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return false;
        if (cred.uid == 0 || cred.uid == geteuid() || cred.gid == getegid())
                return true;
        len = sizeof(groups);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
                return false; /* more than 256 groups (ERANGE): only the above */
        for (size_t i = 0; i < len / sizeof(groups[0]); i++)
                if (groups[i] == getegid())
                        return true;
        return false;
}

/* The request's body as control_request_body() takes it. */
static json_t *read_body(struct evhttp_request *req, const char *path, char *why, size_t why_size)
{
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t len = evbuffer_get_length(in);
        char *text = NULL;
        json_t *body;

        if (len > 0 && len <= CONTROL_MAX_BODY_BYTES) {
                text = malloc(len);
                if (!text) {
                        snprintf(why, why_size, "out of memory");
                        return NULL;
                }
                evbuffer_copyout(in, text, len);
        }
        body = control_request_body(path, text, len, why, why_size);
        free(text);
        return body;
}

/*
 * GET /v1/status.  Resolving every repo's branch tips opens each
 * repository (about 0.7 ms a repo of 20 branches here, far more on a slow
 * disk), so that part runs on a worker with copies of the repos; the rest
 * is read on the loop when the worker is done.  Requests that come while
 * one is being answered wait for it and get the same answer, so clients
 * polling status take one worker at most from exports and publishing.
 */
#define STATUS_WAITERS_MAX 64

struct status_job {
        struct control *control;
        struct evhttp_request *reqs[STATUS_WAITERS_MAX];
        size_t n_reqs;
        struct store *store;
        struct config_repo *repos;
        size_t n_repos;
        char *prefix;
        json_t *repos_status;
};

static void status_job_free(struct status_job *job)
{
        for (size_t i = 0; job && i < job->n_repos; i++) {
                free(job->repos[i].path);
                for (size_t b = 0; b < job->repos[i].n_branches; b++)
                        free(job->repos[i].branches[b]);
                free(job->repos[i].branches);
        }
        if (job) {
                free(job->repos);
                free(job->prefix);
                json_decref(job->repos_status);
        }
        free(job);
}

static void status_work(void *data)
{
        struct status_job *job = data;

        job->repos_status = daemon_repos_status(job->store, job->repos, job->n_repos, job->prefix);
}

static void status_done(void *data, int status)
{
        struct status_job *job = data;
        json_t *answer = NULL;

        if (job->control->status_in_flight == job)
                job->control->status_in_flight = NULL;
        /* the repos' part is NULL when the worker ran out of memory */
        if (status == 0 && job->repos_status) {
                answer = job->control->ops.status(job->control->userdata);
                if (json_object_set(answer, "repos", job->repos_status) < 0) {
                        json_decref(answer);
                        answer = NULL;
                }
        }
        for (size_t i = 0; i < job->n_reqs; i++) {
                if (answer)
                        reply(job->reqs[i], 200, json_incref(answer));
                else if (status == 0)
                        reply_error(job->reqs[i], 500, "out of memory");
                else
                        reply_error(job->reqs[i], 503, "the daemon is stopping");
        }
        json_decref(answer);
        status_job_free(job);
}

/* A copy of the config's repos (paths and branch patterns) a worker may read. */
static int copy_repos(const struct config *config, struct status_job *job)
{
        job->repos = calloc(config->n_repos ? config->n_repos : 1, sizeof(*job->repos));
        if (!job->repos)
                return -ENOMEM;
        for (size_t i = 0; i < config->n_repos; i++) {
                const struct config_repo *from = &config->repos[i];
                struct config_repo *to = &job->repos[job->n_repos++];
                to->path = strdup(from->path);
                to->branches = calloc(from->n_branches ? from->n_branches : 1, sizeof(char *));
                if (!to->path || !to->branches)
                        return -ENOMEM;
                for (size_t b = 0; b < from->n_branches; b++) {
                        to->branches[b] = strdup(from->branches[b]);
                        if (!to->branches[to->n_branches++])
                                return -ENOMEM;
                }
        }
        return 0;
}

static void get_status(struct control *c, struct evhttp_request *req)
{
        const struct config *cfg = config(c);
        struct status_job *job;
        int r;

        if (c->status_in_flight) {
                if (c->status_in_flight->n_reqs == STATUS_WAITERS_MAX) {
                        reply_error(req, 503, "the daemon is busy; try again");
                        return;
                }
                c->status_in_flight->reqs[c->status_in_flight->n_reqs++] = req;
                return;
        }
        job = calloc(1, sizeof(*job));
        r = job ? 0 : -ENOMEM;
        if (job) {
                job->control = c;
                job->reqs[job->n_reqs++] = req;
                job->store = c->deps.store;
                job->prefix = strdup(cfg->publish.prefix);
                r = job->prefix ? copy_repos(cfg, job) : -ENOMEM;
        }
        if (r == 0)
                r = worker_pool_submit(c->deps.workers, status_work, status_done, job);
        if (r < 0) {
                reply_error(req, r == -EAGAIN ? 503 : 500,
                            r == -EAGAIN ? "the daemon is busy; try again" : strerror(-r));
                status_job_free(job);
                return;
        }
        c->status_in_flight = job;
}

static void get_queue(struct control *c, struct evhttp_request *req)
{
        json_t *queued = NULL, *running = NULL;

        if (queue_list(c->deps.queue, QUEUE_RUNNING, LIST_LIMIT, &running) < 0 ||
            queue_list(c->deps.queue, QUEUE_QUEUED, LIST_LIMIT, &queued) < 0) {
                json_decref(running);
                reply_error(req, 500, "cannot read the queue");
                return;
        }
        reply(req, 200,
              json_pack("{s:o, s:o, s:b}", "running", running, "queued", queued, "paused",
                        c->ops.paused(c->userdata)));
}

static void get_items(struct control *c, struct evhttp_request *req, const char *query)
{
        struct evkeyvalq params;
        const char *state_name;
        enum queue_state state;
        json_t *items = NULL;
        int want = -1;

        TAILQ_INIT(&params);
        if (query && evhttp_parse_query_str(query, &params) < 0) {
                reply_error(req, 400, "malformed query");
                return;
        }
        state_name = evhttp_find_header(&params, "state");
        if (state_name) {
                if (queue_state_from_name(state_name, &state) < 0) {
                        evhttp_clear_headers(&params);
                        reply_error(req, 400,
                                    "unknown state; use queued, running, done, failed, "
                                    "cancelled or superseded");
                        return;
                }
                want = (int)state;
        }
        evhttp_clear_headers(&params);
        if (queue_list(c->deps.queue, want, LIST_LIMIT, &items) < 0) {
                reply_error(req, 500, "cannot read the queue");
                return;
        }
        reply(req, 200, json_pack("{s:o}", "items", items));
}

#define CANDIDATES_MAX 5000 /* rows one answer holds */

/*
 * GET /v1/candidates?op=OPDIR: every candidate measured for an operator
 * directory (as the items name it, in any repo), episode by episode, from
 * the episodes' records: the queue item, its commit, then per candidate
 * the evaluation, stage, technique, status, latency, whether it was a
 * memo hit or a new best, and its identity in the store.
 */
static void get_candidates(struct control *c, struct evhttp_request *req, const char *query)
{
        struct evkeyvalq params;
        const char *op;
        json_t *items = NULL, *rows = json_array(), *item;
        bool truncated = false, failed = false;
        size_t i;

        TAILQ_INIT(&params);
        if (!query || evhttp_parse_query_str(query, &params) < 0 ||
            !(op = evhttp_find_header(&params, "op"))) {
                evhttp_clear_headers(&params);
                json_decref(rows);
                reply_error(req, 400, "give the operator directory: /v1/candidates?op=OPDIR");
                return;
        }
        if (queue_list(c->deps.queue, -1, LIST_LIMIT, &items) < 0) {
                evhttp_clear_headers(&params);
                json_decref(rows);
                reply_error(req, 500, "cannot read the queue");
                return;
        }
        json_array_foreach(items, i, item)
        {
                char id[32];
                json_t *record = NULL;
                struct episode_summary s;
                if (strcmp(json_string_value(json_object_get(item, "op_dir")) ?: "", op) != 0)
                        continue;
                snprintf(id, sizeof(id), "q%lld", json_integer_value(json_object_get(item, "id")));
                if (episode_load(c->deps.store, id, &record) < 0)
                        continue;
                if (episode_summary_read(record, &s) < 0) {
                        episode_summary_release(&s);
                        json_decref(record);
                        continue;
                }
                for (size_t k = 0; k < s.n_rows; k++) {
                        const struct episode_row *row = &s.rows[k];
                        if (json_array_size(rows) >= CANDIDATES_MAX) {
                                truncated = true;
                                break;
                        }
                        /* a row that cannot be made fails the answer: none goes missing */
                        if (json_array_append_new(
                                rows, json_pack("{s:O, s:O?, s:O?, s:I, s:i, s:s?, s:s?, s:f, "
                                                "s:b, s:b, s:s?}",
                                                "item", json_object_get(item, "id"), "repo",
                                                json_object_get(item, "repo"), "commit",
                                                json_object_get(item, "commit"), "evaluation",
                                                (json_int_t)row->evaluation, "stage", row->stage,
                                                "technique", row->technique, "status", row->status,
                                                "latency_us", row->latency_us, "memo_hit",
                                                row->memo_hit, "new_best", row->new_best,
                                                "identity", row->identity)) < 0) {
                                failed = true;
                                break;
                        }
                }
                episode_summary_release(&s);
                json_decref(record);
                if (failed)
                        break;
        }
        if (failed) {
                json_decref(rows);
                reply_error(req, 500, "out of memory");
        } else {
                reply(req, 200,
                      json_pack("{s:s, s:o, s:b}", "op_dir", op, "candidates", rows, "truncated",
                                truncated));
        }
        evhttp_clear_headers(&params);
        json_decref(items);
}

/*
 * Adds what the item's episode has recorded so far: "summary" (numbers)
 * and "report" (the Markdown that a published branch would carry, also
 * for an episode that found nothing worth publishing).  0, also when
 * there is no record yet, or -ENOMEM.
 */
static int attach_episode(struct control *c, unsigned long long id, json_t *item)
{
        const struct report_context context = {
                .source_commit = json_string_value(json_object_get(item, "commit")),
                .branch = json_string_value(json_object_get(item, "branch")),
                .op_path = json_string_value(json_object_get(item, "op_dir")),
                .backend = config_backend_name(config(c)->backend),
                .platform = c->deps.ascend_soc ? c->deps.ascend_soc : config(c)->platform,
        };
        struct episode_summary s = { 0 };
        struct report report = { 0 };
        json_t *record = NULL, *summary;
        char episode_id[32], err[256];
        double base_us, best_us;
        int r = 0;

        snprintf(episode_id, sizeof(episode_id), "q%llu", id);
        if (episode_load(c->deps.store, episode_id, &record) < 0)
                return 0;
        if (episode_summary_read(record, &s) < 0)
                goto out;
        base_us = s.baseline.latency_us;
        best_us = s.best.latency_us;
        summary = json_pack("{s:s?, s:s?, s:I, s:I, s:f, s:f, s:f}", "episode_state", s.state,
                            "strategy", s.strategy, "evaluations", (json_int_t)s.evaluations,
                            "budget", (json_int_t)s.budget, "baseline_us", base_us, "best_us",
                            best_us > 0 ? best_us : base_us, "speedup",
                            best_us > 0 ? base_us / best_us : 1.0);
        /* the LLM's usage record goes to the API as the episode wrote it */
        if (summary && s.llm_record &&
            json_object_set(summary, "llm", (json_t *)s.llm_record) < 0) {
                json_decref(summary);
                summary = NULL;
        }
        if (json_object_set_new(item, "summary", summary) < 0) {
                r = -ENOMEM;
                goto out;
        }
        if (report_render(c->deps.store, record, &context, &report, err, sizeof(err)) == 0 &&
            json_object_set_new(item, "report", json_string(report.markdown)) < 0)
                r = -ENOMEM;
        report_free(&report);
out:
        episode_summary_release(&s);
        json_decref(record);
        return r;
}

static void get_item(struct control *c, struct evhttp_request *req, const char *id_text)
{
        char *end;
        unsigned long long id = strtoull(id_text, &end, 10);
        json_t *item = NULL;

        if (!*id_text || *end || queue_get(c->deps.queue, id, &item) < 0) {
                reply_error(req, 404, "no such item");
                return;
        }
        if (attach_episode(c, id, item) < 0) {
                json_decref(item);
                reply_error(req, 500, "out of memory");
                return;
        }
        reply(req, 200, item);
}

static void reply_unknown_repo(struct evhttp_request *req, const char *repo_path)
{
        char message[1200];

        snprintf(message, sizeof(message),
                 "%.1024s is not a repo of the configuration; add it under \"repos\" and reload",
                 repo_path);
        reply_error(req, 404, message);
}

/* body: as control_request_body() checked it (repo and a plain relative op_dir) */
static void post_enqueue(struct control *c, struct evhttp_request *req, const json_t *body)
{
        const char *repo_path = json_string_value(json_object_get(body, "repo"));
        const char *op_dir = json_string_value(json_object_get(body, "op_dir"));
        const char *branch = json_string_value(json_object_get(body, "branch"));
        const char *prefix;
        const struct config_repo *repo;
        struct watch_tip *tips = NULL;
        char *pattern[1];
        char err[1024], message[1200];
        size_t n = 0;
        uint64_t id = 0;
        int r;

        repo = daemon_find_repo(config(c), repo_path);
        if (!repo) {
                reply_unknown_repo(req, repo_path);
                return;
        }
        prefix = config(c)->publish.prefix;
        if (branch && prefix && strncmp(branch, prefix, strlen(prefix)) == 0) {
                snprintf(message, sizeof(message),
                         "%.256s is under the publish prefix %.256s: ascendopt's own output is "
                         "never optimized again",
                         branch, prefix);
                reply_error(req, 400, message);
                return;
        }
        if (!branch)
                branch = repo->n_branches ? repo->branches[0] : "main";
        pattern[0] = (char *)branch;
        /* a pattern never picks one of our own sibling branches */
        r = watch_list_tips(repo->path, pattern, 1, prefix, &tips, &n, err, sizeof(err));
        if (r < 0 || n == 0) {
                snprintf(message, sizeof(message), "%s: branch %s not found%s%s", repo->path,
                         branch, r < 0 ? ": " : "", r < 0 ? err : "");
                watch_tips_free(tips, n);
                reply_error(req, 404, message);
                return;
        }
        struct queue_request qr = { .repo = repo->path,
                                    .branch = tips[0].branch,
                                    .op_dir = op_dir,
                                    .commit = tips[0].oid,
                                    .priority = QUEUE_PRIORITY_MANUAL };
        r = queue_enqueue_now(c->deps.queue, &qr, &id, NULL);
        if (r < 0) {
                watch_tips_free(tips, n);
                reply_error(req, r == -ENOSPC ? 507 : 500,
                            r == -ENOSPC ? "the queue is full (limits.queue_max_items)"
                                         : strerror(-r));
                return;
        }
        log_msg(LOG_INFO, repo->path, "queued item %llu by request: %s at %.12s on %s",
                (unsigned long long)id, op_dir, tips[0].oid, tips[0].branch);
        c->ops.kick(c->userdata);
        reply(req, 200,
              json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "commit", tips[0].oid, "branch",
                        tips[0].branch));
        watch_tips_free(tips, n);
}

/* The newest finished episode of an operator, or NULL. */
static json_t *newest_done_item(struct control *c, const char *repo, const char *branch,
                                const char *op_dir)
{
        json_t *items = NULL, *item, *found = NULL;
        size_t i;

        if (queue_list(c->deps.queue, QUEUE_DONE, SIZE_MAX, &items) < 0)
                return NULL;
        json_array_foreach(items, i, item)
        {
                const char *b = json_string_value(json_object_get(item, "branch"));
                if (strcmp(json_string_value(json_object_get(item, "repo")) ?: "", repo) == 0 &&
                    strcmp(json_string_value(json_object_get(item, "op_dir")) ?: "", op_dir) == 0 &&
                    (!branch || (b && strcmp(b, branch) == 0)))
                        found = item; /* oldest first: the last match is the newest */
        }
        json_incref(found);
        json_decref(items);
        return found;
}

/* A recreate whose git work runs on a worker: the reply waits for it. */
struct recreate_request {
        struct evhttp_request *req;
        json_int_t id;
        char repo[4096];
        char op_dir[1024];
};

static void on_recreated(int r, const char *summary, void *userdata)
{
        struct recreate_request *pending = userdata;

        log_msg(r < 0 ? LOG_WARNING : LOG_NOTICE, pending->repo, "recreate %s: %s", pending->op_dir,
                summary);
        if (r < 0)
                reply_error(pending->req, r == -EBUSY ? 409 : 500, summary);
        else
                reply(pending->req, 200,
                      json_pack("{s:I, s:s}", "id", pending->id, "summary", summary));
        free(pending);
}

/*
 * Rebuilds an operator's sibling branch from its newest finished episode,
 * replacing whatever tip it has (someone else's too): 'ascendopt recreate'.
 * body: as control_request_body() checked it (repo and op_dir).
 */
static void post_recreate(struct control *c, struct evhttp_request *req, const json_t *body)
{
        const char *repo_path = json_string_value(json_object_get(body, "repo"));
        const char *op_dir = json_string_value(json_object_get(body, "op_dir"));
        const char *branch = json_string_value(json_object_get(body, "branch"));
        const struct config_repo *repo;
        json_t *item = NULL, *record = NULL;
        char episode_id[32], message[1600], summary[1536];
        int r;

        repo = daemon_find_repo(config(c), repo_path);
        if (!repo) {
                reply_unknown_repo(req, repo_path);
                return;
        }
        item = newest_done_item(c, repo->path, branch, op_dir);
        if (!item) {
                snprintf(message, sizeof(message),
                         "%s: no finished episode of %s%s%s to publish; run 'ascendopt enqueue' "
                         "first",
                         repo_path, op_dir, branch ? " on " : "", branch ? branch : "");
                reply_error(req, 404, message);
                return;
        }
        snprintf(episode_id, sizeof(episode_id), "q%lld",
                 (long long)json_integer_value(json_object_get(item, "id")));
        if (episode_load(c->deps.store, episode_id, &record) < 0) {
                snprintf(message, sizeof(message), "episode %s has no record in the store",
                         episode_id);
                reply_error(req, 404, message);
                json_decref(item);
                return;
        }
        const struct published_episode ep = {
                .repo = repo->path,
                .branch = json_string_value(json_object_get(item, "branch")),
                .commit = json_string_value(json_object_get(item, "commit")),
                .op_dir = op_dir,
                .recreate = true,
        };
        struct recreate_request *pending = calloc(1, sizeof(*pending));
        if (!pending) {
                reply_error(req, 500, "out of memory");
                goto out;
        }
        pending->req = req;
        pending->id = json_integer_value(json_object_get(item, "id"));
        snprintf(pending->repo, sizeof(pending->repo), "%s", repo->path);
        snprintf(pending->op_dir, sizeof(pending->op_dir), "%s", op_dir);
        r = c->ops.publish(&ep, record, on_recreated, pending, summary, sizeof(summary),
                           c->userdata);
        if (r != 0)
                on_recreated(r > 0 ? 0 : r, summary, pending);
out:
        json_decref(record);
        json_decref(item);
}

/* body: as control_request_body() checked it (an integer id) */
static void post_cancel(struct control *c, struct evhttp_request *req, const json_t *body)
{
        const json_t *id = json_object_get(body, "id");
        int r;

        r = queue_cancel(c->deps.queue, (uint64_t)json_integer_value(id), "cancelled by request");
        if (r == -ENOENT)
                reply_error(req, 404, "no such item");
        else if (r == -EINVAL)
                reply_error(req, 409, "the item is neither queued nor running");
        else if (r < 0)
                reply_error(req, 500, strerror(-r));
        else {
                /* a running one stops after its evaluation in flight */
                c->ops.cancel((uint64_t)json_integer_value(id), c->userdata);
                reply(req, 200, json_pack("{s:b}", "cancelled", 1));
        }
}

static void handle(struct evhttp_request *req, void *arg)
{
        struct control *c = arg;
        const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
        const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
        enum evhttp_cmd_type method = evhttp_request_get_command(req);
        char err[1024], why[320];
        json_t *body = NULL;

        control_conns_request(c->conns, req);
        if (!path) {
                reply_error(req, 400, "malformed request");
                return;
        }
        if (method == EVHTTP_REQ_GET) {
                if (strcmp(path, "/v1/status") == 0)
                        get_status(c, req);
                else if (strcmp(path, "/v1/queue") == 0)
                        get_queue(c, req);
                else if (strcmp(path, "/v1/items") == 0)
                        get_items(c, req, evhttp_uri_get_query(uri));
                else if (strncmp(path, "/v1/items/", 10) == 0)
                        get_item(c, req, path + 10);
                else if (strcmp(path, "/v1/candidates") == 0)
                        get_candidates(c, req, evhttp_uri_get_query(uri));
                else
                        reply_error(req, 404, "no such endpoint");
                return;
        }
        if (method != EVHTTP_REQ_POST) {
                reply_error(req, 405, "use GET or POST");
                return;
        }
        if (!peer_may_write(req)) {
                reply_error(req, 403, "only the daemon's user, root or its group may change it");
                return;
        }
        body = read_body(req, path, why, sizeof(why));
        if (!body) {
                reply_error(req, 400, why);
                return;
        }
        if (strcmp(path, "/v1/recreate") == 0) {
                post_recreate(c, req, body);
        } else if (strcmp(path, "/v1/enqueue") == 0) {
                post_enqueue(c, req, body);
        } else if (strcmp(path, "/v1/cancel") == 0) {
                post_cancel(c, req, body);
        } else if (strcmp(path, "/v1/pause") == 0 || strcmp(path, "/v1/resume") == 0) {
                c->ops.set_paused(strcmp(path, "/v1/pause") == 0, c->userdata);
                log_notice("%s by request", c->ops.paused(c->userdata) ? "paused" : "resumed");
                c->ops.kick(c->userdata);
                reply(req, 200, json_pack("{s:b}", "paused", c->ops.paused(c->userdata)));
        } else if (strcmp(path, "/v1/reload") == 0) {
                if (c->ops.reload(err, sizeof(err), c->userdata) < 0) {
                        log_error("reload rejected, keeping the running configuration: %s", err);
                        reply_error(req, 400, err);
                } else {
                        log_notice("configuration reloaded by request");
                        reply(req, 200, json_pack("{s:b}", "reloaded", 1));
                }
        } else {
                reply_error(req, 404, "no such endpoint");
        }
        json_decref(body);
}

/* Fails when a live daemon answers on path; removes a stale socket file. */
static int claim_path(const char *path, char *err, size_t err_size)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        int fd, r;

        if (access(path, F_OK) < 0)
                return 0;
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        r = connect(fd, (struct sockaddr *)&addr, sizeof(addr));
        close(fd);
        if (r == 0) {
                snprintf(err, err_size,
                         "%s: another ascendoptd is answering on this socket; stop it or give "
                         "this one its own \"socket\" and \"state_dir\"",
                         path);
                return -EADDRINUSE;
        }
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
        struct control *c = arg;

        (void)fd;
        (void)what;
        if (!c->full)
                evconnlistener_enable(c->listener);
}

/* control_connections are open, or not any more: pause or resume accepting. */
static void on_full(bool full, void *userdata)
{
        struct control *c = userdata;

        if (c->stopping)
                return;
        c->full = full;
        if (full) {
                log_msg(LOG_NOTICE, "control",
                        "%u connections are open (limits.control_connections); further clients "
                        "wait until one ends",
                        config(c)->limits.control_connections);
                evconnlistener_disable(c->listener);
        } else if (!evtimer_pending(c->accept_resume, NULL)) {
                evconnlistener_enable(c->listener);
        }
}

/*
 * accept() failed for a reason other than a retriable one: out of
 * descriptors (EMFILE, ENFILE) or memory.  The socket stays readable, so
 * listening on would spin: stop accepting for a while (100 ms doubling to
 * 10 s while failures keep coming), log once per run of failures, and let
 * the connections already open finish and free their descriptors.
 */
static void on_accept_error(struct evconnlistener *listener, void *arg)
{
        struct control *c = accepting_control;
        int error = EVUTIL_SOCKET_ERROR();
        time_t now = time(NULL);
        struct timeval tv;

        (void)arg; /* evhttp's */
        if (!c)
                return;

        if (c->accept_pause_ms == 0 || now - c->accept_failed_at > 60) {
                c->accept_pause_ms = ACCEPT_PAUSE_MIN_MS;
                log_error("control socket %s: cannot accept connections: %s; pausing accepts "
                          "until descriptors free up (LimitNOFILE, or fewer clients)",
                          c->path, strerror(error));
        } else if (c->accept_pause_ms < ACCEPT_PAUSE_MAX_MS) {
                c->accept_pause_ms *= 2;
                if (c->accept_pause_ms > ACCEPT_PAUSE_MAX_MS)
                        c->accept_pause_ms = ACCEPT_PAUSE_MAX_MS;
        }
        c->accept_failed_at = now;
        evconnlistener_disable(listener);
        tv = (struct timeval){ c->accept_pause_ms / 1000, (c->accept_pause_ms % 1000) * 1000 };
        evtimer_add(c->accept_resume, &tv);
}

int control_start(const struct control_deps *deps, const struct control_ops *ops, void *userdata,
                  struct control **ret_control, char *err, size_t err_size)
{
        const struct config *cfg = ops->config(userdata);
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        const char *path = cfg->socket;
        char dir[PATH_MAX];
        struct control *c = NULL;
        struct evhttp_bound_socket *bound;
        char *slash;
        int fd = -1, r;

        if (strlen(path) >= sizeof(addr.sun_path)) {
                snprintf(err, err_size, "%s: .socket: longer than %zu bytes", cfg->source,
                         sizeof(addr.sun_path) - 1);
                return -ENAMETOOLONG;
        }
        snprintf(dir, sizeof(dir), "%s", path);
        slash = strrchr(dir, '/');
        if (slash && slash != dir) {
                *slash = '\0';
                r = mkdir_p(dir);
                if (r < 0) {
                        snprintf(err, err_size, "%s: cannot create: %s", dir, strerror(-r));
                        return r;
                }
        }
        r = claim_path(path, err, err_size);
        if (r < 0)
                return r;
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
            chmod(path, 0660) < 0 || listen(fd, 64) < 0) {
                r = -errno;
                snprintf(err, err_size, "%s: cannot listen: %s", path, strerror(errno));
                goto fail;
        }
        c = calloc(1, sizeof(*c));
        if (!c || !(c->path = strdup(path)) || !(c->http = evhttp_new(deps->base))) {
                r = -ENOMEM;
                snprintf(err, err_size, "out of memory");
                goto fail;
        }
        c->deps = *deps;
        c->ops = *ops;
        c->userdata = userdata;
        r = control_conns_new(deps->base, cfg->limits.control_connections,
                              cfg->limits.control_request_s, on_full, c, &c->conns);
        if (r < 0) {
                snprintf(err, err_size, "cannot track the control connections: %s", strerror(-r));
                goto fail;
        }
        evhttp_set_bevcb(c->http, control_conns_open, c->conns);
        evhttp_set_gencb(c->http, handle, c);
        evhttp_set_allowed_methods(c->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
        evhttp_set_max_body_size(c->http, CONTROL_MAX_BODY_BYTES);
        evhttp_set_max_headers_size(c->http, 16 * 1024);
        evhttp_set_timeout(c->http, 30);
        bound = evhttp_accept_socket_with_handle(c->http, fd);
        if (!bound) {
                r = -EIO;
                snprintf(err, err_size, "%s: cannot serve HTTP on the socket", path);
                goto fail;
        }
        c->listener = evhttp_bound_socket_get_listener(bound);
        c->accept_resume = evtimer_new(deps->base, on_accept_resume, c);
        if (!c->accept_resume) {
                r = -ENOMEM;
                snprintf(err, err_size, "out of memory");
                evhttp_free(c->http);
                c->http = NULL;
                fd = -1; /* evhttp owned it */
                goto fail;
        }
        accepting_control = c;
        evconnlistener_set_error_cb(c->listener, on_accept_error);
        *ret_control = c;
        return 0;
fail:
        /* the socket is only the server's once accepted, which never failed here */
        if (c && c->http)
                evhttp_free(c->http);
        if (fd >= 0)
                close(fd);
        if (c) {
                control_conns_free(c->conns);
                free(c->path);
        }
        free(c);
        unlink(path);
        return r;
}

struct control *control_stop(struct control *c)
{
        if (!c)
                return NULL;
        c->stopping = true;
        evhttp_free(c->http);
        c->conns = control_conns_free(c->conns);
        if (c->accept_resume)
                event_free(c->accept_resume);
        if (accepting_control == c)
                accepting_control = NULL;
        unlink(c->path);
        free(c->path);
        free(c);
        return NULL;
}
