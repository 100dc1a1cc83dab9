/* SPDX-License-Identifier: MIT */
/*
 * Publishing a finished episode: when its confirmed best beats the baseline
 * by min_speedup, the changed operator files and the report go to the
 * sibling branch (publish/), and the optional post_publish_hook runs with
 * what was published in its environment.  Only the sibling ref is written.
 */
#include "publishing-internal.h"

#include "common/common.h"
#include "publish/publish.h"
#include "optimizer/episode.h"
#include "report/report.h"
#include "queue/queue.h"
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define HOOK_TIMEOUT_S   120
#define MAX_STALLED      64
#define MAX_HOOK_ENV     512
#define MAX_REPORT_FILES 3

struct publisher {
        struct publisher_deps deps;
        daemon_config_fn config;
        void *userdata; /* config's */
        bool stopping;
        /* sibling refs someone else committed to: {ref: {repo, op_dir, message, since}} */
        json_t *stalled_siblings;
};

static const struct config *config(const struct publisher *pub)
{
        return pub->config(pub->userdata);
}

struct published_files {
        struct publish_file files[PUBLISH_MAX_FILES];
        char *paths[PUBLISH_MAX_FILES];
        void *blobs[PUBLISH_MAX_FILES];
        size_t n;
};

static void published_files_free(struct published_files *p)
{
        for (size_t i = 0; i < p->n; i++) {
                free(p->paths[i]);
                free(p->blobs[i]);
        }
        free(p);
}

/* Adds one file at op_dir/name; data ownership passes when owned is true. */
static int add_file(struct published_files *p, const char *op_dir, const char *name, void *data,
                    size_t len, bool owned)
{
        if (p->n >= PUBLISH_MAX_FILES - MAX_REPORT_FILES && owned) {
                free(data);
                return -E2BIG;
        }
        if (asprintf(&p->paths[p->n], "%s/%s", op_dir, name) < 0) {
                if (owned)
                        free(data);
                return -ENOMEM;
        }
        p->blobs[p->n] = owned ? data : NULL;
        p->files[p->n] = (struct publish_file){ p->paths[p->n], data, len };
        p->n++;
        return 0;
}

/* The files of the best candidate whose text differs from the baseline's. */
static int collect_changed(struct store *store, const struct episode_summary *s, const char *op_dir,
                           struct published_files *p, char *err, size_t err_size)
{
        const json_t *best = s->best.files, *base = s->baseline.files;
        const char *path;
        json_t *sha;

        json_object_foreach((json_t *)best, path, sha)
        {
                const char *hex = json_string_value(sha);
                void *data = NULL;
                size_t len = 0;
                int r;
                if (!hex || json_equal(sha, json_object_get(base, path)))
                        continue;
                r = store_blob_get(store, hex, &data, &len);
                if (r < 0) {
                        snprintf(err, err_size, "%s: its text is missing from the store", path);
                        return r;
                }
                r = add_file(p, op_dir, path, data, len, true);
                if (r < 0) {
                        snprintf(err, err_size, "too many changed files");
                        return r;
                }
        }
        return 0;
}

static void on_hook_done(const struct child_result *result, void *userdata)
{
        char buf[128];

        (void)userdata;
        if (result->exit_code == 0)
                log_msg(LOG_INFO, "publish", "post_publish_hook finished");
        else
                log_msg(LOG_WARNING, "publish", "post_publish_hook failed (%s): %.512s",
                        child_result_describe(result, buf, sizeof(buf)),
                        result->err.data ? result->err.data : "");
}

/* Runs post_publish_hook through /bin/sh with the publication in its environment. */
static void run_hook(struct publisher *pub, const char *hook, const char *const extra[],
                     size_t n_extra)
{
        const char *argv[] = { "/bin/sh", "-c", hook, NULL };
        const char *envp[MAX_HOOK_ENV + 8];
        struct child_spec spec = { 0 };
        size_t n = 0;
        int r;

        for (char **e = environ; *e && n < MAX_HOOK_ENV; e++)
                if (strncmp(*e, "ASCENDOPT_", 10) != 0)
                        envp[n++] = *e;
        for (size_t i = 0; i < n_extra; i++)
                envp[n++] = extra[i];
        envp[n] = NULL;
        spec.argv = argv;
        spec.envp = envp;
        spec.timeout_s = HOOK_TIMEOUT_S;
        spec.output_cap = 64 * 1024;
        r = child_start(pub->deps.runner, &spec, on_hook_done, NULL, NULL);
        if (r < 0)
                log_msg(LOG_WARNING, "publish", "cannot start post_publish_hook: %s", strerror(-r));
}

/*
 * Someone else committed to the sibling branch: remember it for 'status'
 * (bounded; the oldest goes first) until a recreate or a later publish.
 * What cannot be remembered is said in the log, not left out unsaid.
 */
static void remember_stalled(struct publisher *pub, const struct published_episode *ep,
                             const char *message)
{
        const char *prefix = config(pub)->publish.prefix;
        char ref[PUBLISH_REF_MAX], err[256];
        json_error_t error;
        json_t *o;

        if (publish_branch_name(prefix ? prefix : PUBLISH_DEFAULT_PREFIX, ep->branch, ep->op_dir,
                                ref, sizeof(ref), err, sizeof(err)) < 0)
                return;
        if (!pub->stalled_siblings)
                pub->stalled_siblings = json_object();
        if (pub->stalled_siblings && json_object_size(pub->stalled_siblings) >= MAX_STALLED &&
            !json_object_get(pub->stalled_siblings, ref)) {
                void *first = json_object_iter(pub->stalled_siblings);
                json_object_del(pub->stalled_siblings, json_object_iter_key(first));
        }
        o = json_pack_ex(&error, 0, "{s:s, s:s, s:s, s:I}", "repo", ep->repo, "op_dir", ep->op_dir,
                         "message", message, "since", (json_int_t)time(NULL));
        if (!o || json_object_set_new(pub->stalled_siblings, ref, o) < 0)
                log_msg(LOG_WARNING, "publish", "%s: status cannot list it as stalled: %s", ref,
                        o ? strerror(ENOMEM) : error.text);
}

static void forget_stalled(struct publisher *pub, const char *ref)
{
        json_object_del(pub->stalled_siblings, ref);
}

/* The git half of a publication, done on a worker: it owns everything it reads. */
struct publish_job {
        struct publisher *publisher;
        struct published_episode ep; /* points into the strings below */
        char *repo, *branch, *commit, *op_dir, *prefix, *hook;
        double speedup;
        struct published_files *files;
        struct report report;
        struct publish_outcome outcome;
        uint64_t item_id;
        struct publish_intent resume;
        bool has_resume;
        int result;
        char err[2048];
        daemon_publish_done_fn done;
        void *userdata;
};

static void publish_job_free(struct publish_job *job)
{
        if (!job)
                return;
        report_free(&job->report);
        if (job->files)
                published_files_free(job->files);
        free(job->repo);
        free(job->branch);
        free(job->commit);
        free(job->op_dir);
        free(job->prefix);
        free(job->hook);
        free(job);
}

void daemon_crash_point(const char *step)
{
        const char *at = getenv("ASCENDOPT_CRASH_AT");

        if (!at || strcmp(at, step) != 0)
                return;
        log_msg(LOG_WARNING, "crash", "ASCENDOPT_CRASH_AT=%s: killing the daemon here", step);
        raise(SIGKILL);
}

/* On the worker, before the ref moves: the intent goes to the queue, synced. */
static int record_intent(const struct publish_intent *intent, void *userdata)
{
        struct publish_job *job = userdata;
        json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "ref", intent->ref, "previous",
                              intent->previous, "commit", intent->commit, "source", job->commit);
        int r = o ? queue_put_intent(job->publisher->deps.queue, job->item_id, o) : -ENOMEM;

        json_decref(o);
        if (r == 0)
                daemon_crash_point("intent");
        return r;
}

/* An intent read back from the queue; false when it is not one. */
static bool intent_from_json(const json_t *o, const char *source, struct publish_intent *ret)
{
        const char *ref = json_string_value(json_object_get(o, "ref"));
        const char *previous = json_string_value(json_object_get(o, "previous"));
        const char *commit = json_string_value(json_object_get(o, "commit"));
        const char *from = json_string_value(json_object_get(o, "source"));

        if (!ref || !previous || !commit || !from || strcmp(from, source) != 0 ||
            strlen(ref) >= sizeof(ret->ref) || strlen(previous) >= sizeof(ret->previous) ||
            strlen(commit) >= sizeof(ret->commit))
                return false;
        snprintf(ret->ref, sizeof(ret->ref), "%s", ref);
        snprintf(ret->previous, sizeof(ret->previous), "%s", previous);
        snprintf(ret->commit, sizeof(ret->commit), "%s", commit);
        return true;
}

static void publish_work(void *data)
{
        struct publish_job *job = data;
        struct publish_request request = {
                .repo_path = job->repo,
                .branch = job->branch,
                .source_commit = job->commit,
                .op_path = job->op_dir,
                .files = job->files->files,
                .n_files = job->files->n,
                .message = job->report.commit_message,
                .prefix = job->prefix,
                .recreate = job->ep.recreate,
                .before_update = job->item_id ? record_intent : NULL,
                .userdata = job,
                .resume = job->has_resume ? &job->resume : NULL,
        };

        job->result = publish_commit(&request, &job->outcome, job->err, sizeof(job->err));
}

/*
 * Back on the loop: remember or forget a stalled sibling, tell the caller
 * (who records the end of the item), then run the hook, so that a crash
 * never runs it twice for one publication.
 */
static void publish_done(void *data, int status)
{
        struct publish_job *job = data;
        struct publisher *pub = job->publisher;
        const struct publish_outcome *outcome = &job->outcome;
        char summary[2200];
        int r = status < 0 ? status : job->result;
        bool hook;

        if (status < 0)
                snprintf(job->err, sizeof(job->err), "the daemon stopped first");
        if (r == -EEXIST)
                remember_stalled(pub, &job->ep, job->err);
        if (r < 0) {
                snprintf(summary, sizeof(summary), "not published: %s", job->err);
                job->done(r, summary, job->userdata);
                goto out;
        }
        forget_stalled(pub, outcome->ref);
        snprintf(summary, sizeof(summary), "published %s at %.12s (%s%s)", outcome->ref,
                 outcome->commit, publish_result_name(outcome->result),
                 outcome->recovered ? ", by the attempt before a restart" : "");
        hook = job->hook && outcome->result != PUBLISH_UNCHANGED;
        if (job->item_id)
                daemon_crash_point("ref");
        job->done(r, summary, job->userdata);
        if (hook && !pub->stopping) {
                char env[6][1200];
                const char *extra[6];
                snprintf(env[0], sizeof(env[0]), "ASCENDOPT_BRANCH=%s", outcome->ref + 11);
                snprintf(env[1], sizeof(env[1]), "ASCENDOPT_OPERATOR=%s", job->op_dir);
                snprintf(env[2], sizeof(env[2]), "ASCENDOPT_SPEEDUP=%.3f", job->speedup);
                snprintf(env[3], sizeof(env[3]), "ASCENDOPT_COMMIT=%s", outcome->commit);
                snprintf(env[4], sizeof(env[4]), "ASCENDOPT_SOURCE_BRANCH=%s", job->branch);
                snprintf(env[5], sizeof(env[5]), "ASCENDOPT_REPO=%s", job->repo);
                for (size_t i = 0; i < 6; i++)
                        extra[i] = env[i];
                run_hook(pub, job->hook, extra, 6);
        }
out:
        publish_job_free(job);
}

static char *copy_or_null(const char *s, bool *failed)
{
        char *copy = s ? strdup(s) : NULL;

        *failed |= s && !copy;
        return copy;
}

int publisher_publish(struct publisher *pub, const struct published_episode *ep,
                      const json_t *record, daemon_publish_done_fn done, void *userdata,
                      char *summary, size_t summary_size)
{
        const struct config *c = config(pub);
        struct episode_summary s;
        double base_us, best_us, speedup;
        double min_speedup = c->publish.min_speedup > 0 ? c->publish.min_speedup : 1.02;
        struct report_context context = {
                .source_commit = ep->commit,
                .branch = ep->branch,
                .op_path = ep->op_dir,
                .backend = config_backend_name(c->backend),
                .platform = pub->deps.ascend_soc ? pub->deps.ascend_soc : c->platform,
                .date = 0, /* the episode's finish: the same report after a restart */
        };
        struct publish_job *job = NULL;
        bool failed = false;
        char err[2048];
        int r;

        summary[0] = '\0';
        r = episode_summary_read(record, &s);
        if (r < 0) {
                episode_summary_release(&s);
                snprintf(summary, summary_size, "cannot read the episode record: %s", strerror(-r));
                return r;
        }
        base_us = s.baseline.latency_us;
        best_us = s.best.latency_us;
        speedup = best_us > 0 ? base_us / best_us : 1.0;
        if (!s.best.present || speedup < min_speedup) {
                episode_summary_release(&s);
                snprintf(summary, summary_size, "not published: %.3fx is below min_speedup %.2f",
                         speedup, min_speedup);
                return 1;
        }
        job = calloc(1, sizeof(*job));
        if (job)
                job->files = calloc(1, sizeof(*job->files));
        if (!job || !job->files) {
                r = -ENOMEM;
                snprintf(err, sizeof(err), "out of memory");
                goto out;
        }
        /* blobs and the report come from the store and the record: read them here */
        r = collect_changed(pub->deps.store, &s, ep->op_dir, job->files, err, sizeof(err));
        if (r < 0)
                goto out;
        if (job->files->n == 0) {
                snprintf(summary, summary_size, "not published: the best changed no file");
                publish_job_free(job);
                episode_summary_release(&s);
                return 1;
        }
        r = report_render(pub->deps.store, record, &context, &job->report, err, sizeof(err));
        if (r < 0)
                goto out;
        add_file(job->files, ep->op_dir, REPORT_MARKDOWN_NAME, job->report.markdown,
                 strlen(job->report.markdown), false);
        add_file(job->files, ep->op_dir, REPORT_JSON_NAME, job->report.json,
                 strlen(job->report.json), false);
        add_file(job->files, ep->op_dir, REPORT_SVG_NAME, job->report.svg, strlen(job->report.svg),
                 false);
        job->publisher = pub;
        job->speedup = speedup;
        job->done = done;
        job->userdata = userdata;
        /* a reload may replace the config while the job runs: it keeps copies */
        job->repo = copy_or_null(ep->repo, &failed);
        job->branch = copy_or_null(ep->branch, &failed);
        job->commit = copy_or_null(ep->commit, &failed);
        job->op_dir = copy_or_null(ep->op_dir, &failed);
        job->prefix = copy_or_null(c->publish.prefix, &failed);
        job->hook = copy_or_null(c->publish.post_publish_hook, &failed);
        job->ep = (struct published_episode){ .repo = job->repo,
                                              .branch = job->branch,
                                              .commit = job->commit,
                                              .op_dir = job->op_dir,
                                              .recreate = ep->recreate };
        job->item_id = ep->item_id;
        job->has_resume =
            ep->resume && job->commit && intent_from_json(ep->resume, job->commit, &job->resume);
        if (failed) {
                r = -ENOMEM;
                snprintf(err, sizeof(err), "out of memory");
                goto out;
        }
        r = worker_pool_submit(pub->deps.workers, publish_work, publish_done, job);
        if (r < 0) {
                snprintf(err, sizeof(err), "cannot hand the publication to a worker thread: %s",
                         strerror(-r));
                goto out;
        }
        episode_summary_release(&s);
        return 0;
out:
        snprintf(summary, summary_size, "not published: %s", err);
        publish_job_free(job);
        episode_summary_release(&s);
        return r;
}

int publisher_new(const struct publisher_deps *deps, daemon_config_fn config, void *userdata,
                  struct publisher **ret)
{
        struct publisher *pub = calloc(1, sizeof(*pub));

        if (!pub)
                return -ENOMEM;
        pub->deps = *deps;
        pub->config = config;
        pub->userdata = userdata;
        *ret = pub;
        return 0;
}

struct publisher *publisher_free(struct publisher *pub)
{
        if (!pub)
                return NULL;
        json_decref(pub->stalled_siblings);
        free(pub);
        return NULL;
}

void publisher_stop(struct publisher *pub)
{
        pub->stopping = true;
}

json_t *publisher_stalled(const struct publisher *pub)
{
        json_t *stalled = json_array(), *v;
        const char *ref;

        json_object_foreach(pub->stalled_siblings, ref, v)
        {
                json_t *copy = json_deep_copy(v);
                if (json_object_set_new(copy, "ref", json_string(ref)) < 0) {
                        json_decref(copy);
                        json_decref(stalled);
                        return NULL;
                }
                if (json_array_append_new(stalled, copy) < 0) { /* it took copy */
                        json_decref(stalled);
                        return NULL;
                }
        }
        return stalled;
}
