/* SPDX-License-Identifier: MIT */
/*
 * The ascendoptd process: command line, config, the libevent loop, signal
 * handling (SIGTERM/SIGINT stop, SIGHUP reloads the config and keeps the old
 * one when the new one is bad) and the sd_notify protocol.  ascendoptd never
 * forks itself; systemd or a terminal keeps it in the foreground.  It owns
 * struct daemon and wires the scheduler, the control API and the publisher
 * with callbacks (daemon-internal.h).
 */
#include "control-internal.h"
#include "daemon-internal.h"
#include "publishing-internal.h"
#include "scheduler-internal.h"

#include "common/common.h"
#include "llm/llm.h"
#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "queue/queue.h"
#include "store/store.h"
#include "watchers/watchers.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <sys/mman.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <git2.h>
#include <systemd/sd-daemon.h>

/* Threads for git exports and publishing; jobs queued or running at most. */
#define DAEMON_WORKER_THREADS  2
#define DAEMON_MAX_WORKER_JOBS 256

/*
 * The daemon: what it opens at start-up and holds until it stops, and the
 * three parts it wires with callbacks (daemon-internal.h).  Private to
 * this file.
 */
struct daemon {
        struct event_base *base;
        struct config *config;
        char *config_path;
        struct event *sigterm, *sigint, *sighup;
        struct store *store;
        struct queue *queue;
        struct device_pool *devices;
        struct watcher *watcher;
        struct control *control;
        struct child_runner *runner;
        struct worker_pool *workers; /* git and publishing work, off the loop */
        struct npu_environment env;  /* owns runner and evaluator; borrows store */
        struct daemon_ascend ascend; /* the devices' environment and SoC (ascend) */
        struct npu_evaluator *evaluator;
        struct llm_client *llm; /* NULL: rules only */
        char *prompts_dir;      /* the LLM's prompt templates */
        char *llm_model;        /* the models the client was made with */
        char *llm_embedding_model;
        struct publisher *publisher; /* publications and the stalled sibling refs */
        struct scheduler *scheduler; /* the device slots and what runs on them */
        bool stopping;
        time_t started;
        uint64_t commits_seen;
        struct event *watchdog;
        /* a branch move the store could not record is looked at again */
        unsigned record_retries;
        struct event *record_retry;
        /* the cache's and the store's limits (housekeeping) */
        bool housekeeping, housekeeping_again;
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: ascendoptd [--config FILE] [--foreground] [--check-config]\n"
                   "\n"
                   "Background optimizer for AscendC operators.\n"
                   "\n"
                   "  -c, --config FILE   configuration (default: /etc/ascendopt/ascendoptd.json\n"
                   "                      for root, else ~/.config/ascendopt/ascendoptd.json)\n"
                   "  -f, --foreground    accepted for compatibility; ascendoptd never forks\n"
                   "      --check-config  validate the configuration and exit\n"
                   "  -h, --help          show this help\n"
                   "      --version       show the version\n");
}

static void apply_log_level(const struct config *config)
{
        const char *env = getenv("ASCENDOPT_LOG_LEVEL");
        int level = config->log_level;

        if (env)
                log_level_from_string(env, &level);
        log_set_max_level(level);
}

static void describe_config(const struct config *c)
{
        char devices[32];

        if (c->devices_auto)
                snprintf(devices, sizeof(devices), "auto-detected devices");
        else
                snprintf(devices, sizeof(devices), "%d device%s", c->device_count,
                         c->device_count == 1 ? "" : "s");
        log_info("config %s: backend %s, platform %s, %s, %zu repo%s, state in %s", c->source,
                 config_backend_name(c->backend), c->platform, devices, c->n_repos,
                 c->n_repos == 1 ? "" : "s", c->state_dir);
}

/*
 * The watchdog: pinged only while the scheduler is healthy, that is idle
 * or making progress.  An evaluation that outlives twice its timeout means
 * something is wedged; then the pings stop and systemd restarts us (the
 * queue and episode records make the restart lose nothing).
 */
static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
        struct daemon *d = arg;
        bool busy = scheduler_running(d->scheduler) > 0;
        double stalled;

        (void)fd;
        (void)what;
        stalled = difftime(time(NULL), scheduler_last_progress(d->scheduler));
        if (!busy || stalled < 2 * d->config->episode.eval_timeout_s + 60)
                sd_notify(0, "WATCHDOG=1");
        else
                log_error("no evaluation has finished for %.0f s; withholding the watchdog ping",
                          stalled);
}

static int start_watchdog(struct daemon *d)
{
        uint64_t usec = 0;
        struct timeval tv;

        if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0)
                return 0;
        d->watchdog = event_new(d->base, -1, EV_PERSIST, on_watchdog, d);
        if (!d->watchdog)
                return -ENOMEM;
        tv.tv_sec = (time_t)(usec / 2 / 1000000);
        tv.tv_usec = (suseconds_t)(usec / 2 % 1000000);
        return event_add(d->watchdog, &tv) < 0 ? -EIO : 0;
}

/*
 * Gives freed heap pages back to the kernel once no episode runs: opening
 * the store and running an episode leave megabytes free in the heap.  A
 * scheduler_ops callback, as the two below.
 */
static void trim_memory(void *userdata)
{
        struct daemon *d = userdata;

        if (scheduler_running(d->scheduler) != 0)
                return;
        malloc_trim(0);
}

static void housekeeping(void *userdata);

struct housekeeping_job {
        struct daemon *daemon;
        struct store *store; /* RocksDB's handles are thread-safe */
        char dir[PATH_MAX];
        uint64_t cache_max, store_max;
        struct npu_cache_trim trim;
        struct episode_prune prune;
        int trim_result, prune_result;
        char prune_error[512];
};

static void housekeeping_work(void *data)
{
        struct housekeeping_job *job = data;

        job->trim_result = npu_cache_trim(job->dir, job->cache_max, &job->trim);
        job->prune_result = episode_prune_store(job->store, job->store_max, &job->prune);
        if (job->prune_result < 0) /* the store's message is this thread's */
                snprintf(job->prune_error, sizeof(job->prune_error), "%s",
                         job->prune_result == -ENOMEM ? strerror(ENOMEM)
                                                      : store_last_error(job->store));
}

static void log_housekeeping(const struct housekeeping_job *job)
{
        if (job->trim_result < 0)
                log_warning("cannot trim the object cache %s: %s", job->dir,
                            strerror(-job->trim_result));
        else if (job->trim.removed)
                log_notice("cache: removed %zu least recently used object%s (%.1f MB) to stay "
                           "under limits.cache_max_bytes (%.1f MB)",
                           job->trim.removed, job->trim.removed == 1 ? "" : "s",
                           (double)(job->trim.bytes_before - job->trim.bytes_after) / 1e6,
                           (double)job->cache_max / 1e6);
        if (job->trim_result == 0 && job->trim.bytes_after > job->cache_max)
                log_info("cache: %.1f MB, over limits.cache_max_bytes while a precompiled "
                         "prelude is in use",
                         (double)job->trim.bytes_after / 1e6);
        if (job->prune_result < 0)
                log_warning("cannot keep the store under limits.store_max_bytes: %s",
                            job->prune_error);
        else if (job->prune.compacted)
                log_notice("store: %.1f MB, over limits.store_max_bytes (%.1f MB): compacted, "
                           "%zu trajectories of the oldest finished episodes dropped, now "
                           "%.1f MB%s",
                           (double)job->prune.size_before / 1e6, (double)job->store_max / 1e6,
                           job->prune.dropped, (double)job->prune.size_after / 1e6,
                           job->prune.size_after > job->store_max
                               ? "; still over: memoized results and the experience bank are "
                                 "kept whatever their size"
                               : "");
}

static void housekeeping_done(void *data, int status)
{
        struct housekeeping_job *job = data;
        struct daemon *d = job->daemon;

        if (status < 0) { /* the pool is going away */
                free(job);
                return;
        }
        d->housekeeping = false;
        log_housekeeping(job);
        free(job);
        if (d->housekeeping_again && !d->stopping) {
                d->housekeeping_again = false;
                housekeeping(d);
        }
}

/*
 * Keeps the object cache under limits.cache_max_bytes and the store under
 * limits.store_max_bytes (npu_cache_trim, episode_prune_store), on a worker
 * thread, at start and after each episode; a call while one runs makes it
 * run once more after.
 */
static void housekeeping(void *userdata)
{
        struct daemon *d = userdata;
        struct housekeeping_job *job;

        if (!d->workers || !d->store || d->stopping)
                return;
        if (d->housekeeping) {
                d->housekeeping_again = true;
                return;
        }
        job = calloc(1, sizeof(*job));
        if (!job)
                return;
        job->daemon = d;
        job->store = d->store;
        job->cache_max = d->config->limits.cache_max_bytes;
        job->store_max = d->config->limits.store_max_bytes;
        if (state_path(job->dir, sizeof(job->dir), d->config->state_dir, STATE_CACHE) < 0 ||
            worker_pool_submit(d->workers, housekeeping_work, housekeeping_done, job) < 0) {
                free(job); /* tried again after the next episode */
                return;
        }
        d->housekeeping = true;
}

/* Called when an episode has ended while stopping: the last one ends the loop. */
static void episode_ended(void *userdata)
{
        struct daemon *d = userdata;

        if (d->stopping && scheduler_running(d->scheduler) == 0)
                event_base_loopbreak(d->base);
}

static void on_stop_signal(evutil_socket_t sig, short what, void *arg)
{
        struct daemon *d = arg;

        (void)what;
        if (d->stopping)
                return;
        log_notice("received %s, stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        d->stopping = true;
        if (d->scheduler) /* NULL while starting up */
                scheduler_stop(d->scheduler);
        if (d->publisher)
                publisher_stop(d->publisher);
        episode_ended(d);
}

static bool same_patterns(char *const *a, size_t n_a, char *const *b, size_t n_b)
{
        if (n_a != n_b)
                return false;
        for (size_t i = 0; i < n_a; i++)
                if (strcmp(a[i], b[i]) != 0)
                        return false;
        return true;
}

/*
 * Follows exactly the repos of the config: drops those gone, adds those
 * new, and follows again those whose branch or operator patterns changed
 * (a repo attached again is scanned at once; tips already recorded are not
 * queued twice).
 */
static void sync_repos(struct daemon *d, const struct config *old, const struct config *fresh)
{
        for (size_t i = 0; old && i < old->n_repos; i++) {
                const struct config_repo *was = &old->repos[i];
                const struct config_repo *now = NULL;
                for (size_t j = 0; j < fresh->n_repos && !now; j++)
                        if (strcmp(was->path, fresh->repos[j].path) == 0)
                                now = &fresh->repos[j];
                if (!now) {
                        watcher_remove_repo(d->watcher, was->path);
                        log_notice("no longer watching %s", was->path);
                } else if (!same_patterns(was->branches, was->n_branches, now->branches,
                                          now->n_branches) ||
                           !same_patterns(was->operators, was->n_operators, now->operators,
                                          now->n_operators)) {
                        watcher_remove_repo(d->watcher, was->path);
                        log_notice("%s: branch or operator patterns changed", was->path);
                }
        }
        for (size_t j = 0; j < fresh->n_repos; j++) {
                const struct config_repo *repo = &fresh->repos[j];
                struct watch_repo_spec spec = {
                        .path = repo->path,
                        .branches = repo->branches,
                        .n_branches = repo->n_branches,
                        .operators = repo->operators,
                        .n_operators = repo->n_operators,
                };
                int r = watcher_add_repo(d->watcher, &spec);
                if (r == 0)
                        log_info("watching %s (%zu branch pattern%s)", repo->path, repo->n_branches,
                                 repo->n_branches == 1 ? "" : "s");
                else if (r != -EEXIST)
                        log_error("cannot watch %s: %s", repo->path, strerror(-r));
        }
}

static bool same_string(const char *a, const char *b)
{
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Whether two llm sections make the same client (what a reload cannot change). */
static bool same_llm_client(const struct config_llm *a, const struct config_llm *b)
{
        return a->enabled == b->enabled && same_string(a->endpoint, b->endpoint) &&
               same_string(a->model, b->model) &&
               same_string(a->embedding_model, b->embedding_model) &&
               same_string(a->api_key_file, b->api_key_file) &&
               same_string(a->api_key_env, b->api_key_env) && a->timeout_s == b->timeout_s &&
               a->max_tokens == b->max_tokens && a->temperature == b->temperature &&
               a->max_concurrency == b->max_concurrency;
}

/*
 * Reloads the config from d->config_path; on failure keeps the old one and
 * fills err.  SIGHUP and the control API's /v1/reload (struct control_ops).
 */
static int reload(char *err, size_t err_size, void *userdata)
{
        struct daemon *d = userdata;
        struct config *fresh = NULL;
        int r;

        r = config_load(d->config_path, &fresh, err, err_size);
        if (r < 0)
                return r;
        if (strcmp(fresh->state_dir, d->config->state_dir) != 0 ||
            strcmp(fresh->socket, d->config->socket) != 0 || fresh->backend != d->config->backend ||
            fresh->device_count != d->config->device_count ||
            fresh->devices_auto != d->config->devices_auto ||
            strcmp(fresh->toolkit ? fresh->toolkit : "",
                   d->config->toolkit ? d->config->toolkit : "") != 0 ||
            strcmp(fresh->third_lib_path ? fresh->third_lib_path : "",
                   d->config->third_lib_path ? d->config->third_lib_path : "") != 0 ||
            fresh->fleet.enabled != d->config->fleet.enabled ||
            (fresh->fleet.enabled &&
             strcmp(fresh->fleet.shared_dir, d->config->fleet.shared_dir) != 0)) {
                snprintf(err, err_size,
                         "%s: state_dir, socket, backend, devices, toolkit, "
                         "ascend.third_lib_path, and .fleet or its shared_dir take effect only on "
                         "a restart; restart ascendoptd to change them",
                         d->config_path);
                config_free(fresh);
                return -EINVAL;
        }
        if (!same_llm_client(&d->config->llm, &fresh->llm))
                log_notice("%s: the llm endpoint, models, key and limits take effect on a "
                           "restart; llm_allowed and the token budget apply from now on",
                           d->config_path);
        r = watcher_set_exclude_prefix(d->watcher, fresh->publish.prefix);
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", d->config_path, strerror(-r));
                config_free(fresh);
                return r;
        }
        sync_repos(d, d->config, fresh);
        config_free(d->config);
        d->config = fresh;
        apply_log_level(fresh);
        describe_config(fresh);
        return 0;
}

static void on_reload_signal(evutil_socket_t sig, short what, void *arg)
{
        struct daemon *d = arg;
        char err[1024];

        (void)sig;
        (void)what;
        sd_notify(0, "RELOADING=1");
        if (reload(err, sizeof(err), d) < 0)
                log_error("reload rejected, keeping the running configuration: %s", err);
        else
                log_notice("configuration reloaded");
        sd_notify(0, "READY=1");
}

static void on_record_retry(evutil_socket_t fd, short what, void *userdata)
{
        struct daemon *d = userdata;

        (void)fd, (void)what;
        if (d->watcher)
                watcher_rescan_all(d->watcher);
}

/*
 * The store could not record a branch move (a full disk, most often): its
 * tip stays unrecorded, so a scan reports the move again.  Scans after 5 s,
 * doubling to 5 minutes, until one is recorded.
 */
static void retry_record_later(struct daemon *d)
{
        struct timeval later = { d->record_retries < 6 ? 5L << d->record_retries : 300, 0 };

        if (!d->record_retry)
                d->record_retry = evtimer_new(d->base, on_record_retry, d);
        if (!d->record_retry || evtimer_pending(d->record_retry, NULL))
                return;
        evtimer_add(d->record_retry, &later);
        d->record_retries++;
}

/* A branch moved: queue its changed operators and record the tip in one batch. */
static void on_branch_moved(const struct watch_event *e, void *userdata)
{
        struct daemon *d = userdata;
        struct store_batch *b = store_batch_new(d->store);
        uint64_t *ids = calloc(e->n_operator_dirs + 1, sizeof(*ids));
        size_t queued = 0;
        int r = 0;

        if (!b || !ids) {
                log_error("out of memory while queueing %s %s", e->repo, e->branch);
                goto out;
        }
        for (size_t i = 0; i < e->n_operator_dirs && r == 0; i++) {
                struct queue_request req = { .repo = e->repo,
                                             .branch = e->branch,
                                             .op_dir = e->operator_dirs[i],
                                             .commit = e->new_oid,
                                             .priority = QUEUE_PRIORITY_COMMIT };
                r = queue_enqueue(d->queue, b, &req, &ids[i], NULL);
                if (r == -ENOSPC)
                        log_msg(LOG_ERR, e->repo,
                                "queue is full (limits.queue_max_items); %s on %s is not "
                                "queued and will be retried on the next change",
                                e->operator_dirs[i], e->branch);
                else if (r < 0)
                        log_msg(LOG_ERR, e->repo, "cannot queue %s on %s: %s", e->operator_dirs[i],
                                e->branch, strerror(-r));
        }
        /* the tip moves only together with everything it produced */
        if (r == 0) {
                watch_record_tip(b, e->repo, e->branch, e->new_oid);
                r = store_batch_commit(b);
                if (r < 0) {
                        log_error("cannot record %s %s, looking again later: %s", e->repo,
                                  e->branch, store_last_error(d->store));
                        retry_record_later(d);
                }
        }
        if (r < 0) {
                queue_recount(d->queue); /* it counted what the batch would have queued */
                goto out;
        }
        d->commits_seen++;
        d->record_retries = 0;
        for (size_t i = 0; i < e->n_operator_dirs; i++, queued++)
                log_msg(LOG_INFO, e->repo, "queued item %llu: %s at %.12s on %s",
                        (unsigned long long)ids[i], e->operator_dirs[i], e->new_oid, e->branch);
        if (queued)
                scheduler_kick(d->scheduler);
out:
        free(ids);
        store_batch_free(b);
}

static void daemon_release(struct daemon *d)
{
        /* first: jobs handed back cancelled release their devices */
        d->workers = worker_pool_free(d->workers);
        if (d->watchdog)
                event_free(d->watchdog);
        if (d->record_retry)
                event_free(d->record_retry);
        d->scheduler = scheduler_free(d->scheduler);
        d->publisher = publisher_free(d->publisher);
        d->control = control_stop(d->control);
        d->watcher = watcher_free(d->watcher);
        d->llm = llm_client_free(d->llm);
        free(d->prompts_dir);
        d->prompts_dir = NULL;
        free(d->llm_model);
        d->llm_model = NULL;
        free(d->llm_embedding_model);
        d->llm_embedding_model = NULL;
        npu_environment_close(&d->env); /* the evaluator, then the runner */
        d->evaluator = NULL;
        d->runner = NULL;
        daemon_ascend_release(&d->ascend);
        d->devices = device_pool_free(d->devices);
        d->queue = queue_close(d->queue);
        d->store = store_close(d->store);
        if (d->sigterm)
                event_free(d->sigterm);
        if (d->sigint)
                event_free(d->sigint);
        if (d->sighup)
                event_free(d->sighup);
        if (d->base)
                event_base_free(d->base);
        config_free(d->config);
        free(d->config_path);
}

/* What the daemon's environment is opened with (npu/environment.h). */
static struct npu_environment_options environment_options(const struct daemon *d)
{
        const struct config *c = d->config;
        bool ascend = c->backend == CONFIG_BACKEND_ASCEND;

        return (struct npu_environment_options){
                .base = d->base,
                .state_dir = c->state_dir,
                .store = d->store,
                /* real builds take minutes and are not content-cached like sim objects */
                .use_cache = !ascend,
                .backend = ascend ? NPU_BACKEND_ASCEND : NPU_BACKEND_SIM,
                .platform = ascend ? d->ascend.soc : c->platform,
                .toolkit = c->toolkit,
                .third_lib_path = c->third_lib_path,
                .ascend_env = d->ascend.env,
                .timeout_s = c->episode.eval_timeout_s,
                .limits = { .address_space_bytes = c->episode.rlimits.address_space_mb << 20,
                            .cpu_seconds = c->episode.rlimits.cpu_s,
                            .file_size_bytes = c->episode.rlimits.file_size_mb << 20,
                            .processes = c->episode.rlimits.processes,
                            .scratch_bytes = c->episode.rlimits.scratch_mb << 20 },
                /* compiles are capped and niced by the runner: see NPU_COMPILE_NICE */
                .max_parallel_compiles = (size_t)c->max_parallel_compiles,
                .allow_unsandboxed = c->sandbox_off,
        };
}

/*
 * The runner and the simulator's files, through the one opener every
 * command uses.  Without a sandbox or the simulator's runtime the daemon
 * still watches and queues, and says why nothing runs.
 */
static int open_runner(struct daemon *d)
{
        struct npu_environment_options options = environment_options(d);
        char err[1024];
        int r = npu_environment_open(&options, &d->env, err, sizeof(err));

        d->runner = d->env.runner;
        if (r < 0 && d->env.failed <= NPU_ENVIRONMENT_RUNNER) {
                log_error("%s", err);
                return r;
        }
        if (d->config->backend == CONFIG_BACKEND_ASCEND) {
                log_warning("%s: \"sandbox\": \"off\" in %s accepts that", ASCEND_UNSANDBOXED_HELP,
                            d->config->source);
                return 0;
        }
        if (r < 0 && d->env.failed == NPU_ENVIRONMENT_SIMULATOR) {
                log_error("%s; operators are queued but no episode runs", err);
                return 0;
        }
        if (child_runner_has_sandbox(d->runner)) {
                if (getuid() == 0)
                        log_warning("running as root: the kernel exempts uid 0 from "
                                    "episode.rlimits.processes, so a candidate's processes are "
                                    "bounded only by the unit's TasksMax; run as the unit's "
                                    "ascendopt user (docs/security.md)");
                return 0;
        }
        if (d->config->sandbox_off)
                log_warning("the sandbox is off (\"sandbox\": \"off\" in %s) and bubblewrap is "
                            "not usable here: candidates are compiled and run with no isolation, "
                            "as uid %d",
                            d->config->source, (int)geteuid());
        else
                log_error("%s; operators are queued but no episode runs", CHILD_NO_SANDBOX_HELP);
        return 0;
}

/* "on", "off" (allowed by the config and missing here) or "missing" (so nothing runs). */
static const char *sandbox_state(const struct daemon *d)
{
        if (d->config->backend == CONFIG_BACKEND_ASCEND)
                return "off"; /* its candidates never run in one (config.c) */
        if (child_runner_has_sandbox(d->runner))
                return "on";
        return d->config->sandbox_off ? "off" : "missing";
}

/* The evaluator episodes share, once the devices have named the platform. */
static int open_evaluator(struct daemon *d)
{
        struct npu_environment_options options = environment_options(d);
        char err[1024];

        if (d->env.failed != NPU_ENVIRONMENT_OK)
                return 0; /* failing closed: open_runner said why */
        if (npu_environment_open_evaluator(&options, &d->env, err, sizeof(err)) < 0)
                log_error("%s: operators are queued but no episode runs", err);
        d->evaluator = d->env.evaluator;
        return 0;
}

/* Stage II retrieves from the bank: a new store starts from the seed bank. */
static void seed_experience(struct daemon *d)
{
        struct experience_seeding seeding;
        char err[1024];

        if (experience_seed_if_empty(d->store, &seeding, err, sizeof(err)) < 0)
                log_warning("cannot seed the experience bank: %s", err);
        else if (seeding.added)
                log_notice("seeded the experience bank with %zu entries from %s", seeding.added,
                           seeding.path);
        else if (seeding.was_empty && !seeding.path)
                log_notice("the experience bank is empty and no seed bank was found: Stage II "
                           "starts from its built-in motifs");
}

/*
 * The optional LLM client.  A key or template that cannot be read leaves
 * the daemon on the rule-based path with a log line that says why: one
 * bad setting never stops the optimizer.
 */
static void open_llm(struct daemon *d)
{
        const struct config_llm *c = &d->config->llm;
        struct llm_options options;
        char err[1024], dir[PATH_MAX], *key = NULL;
        const char *found;
        int r;

        if (!c->enabled)
                return;
        found = prompts_find_dir(d->config_path, dir, sizeof(dir));
        if (!found) {
                log_error("llm: no prompt templates (prompts/ beside %s, or "
                          "ASCENDOPT_PROMPTS_DIR); the LLM stays off",
                          d->config_path);
                return;
        }
        r = llm_api_key_resolve(c, &key, err, sizeof(err));
        if (r < 0) {
                log_error("llm: %s; the LLM stays off", err);
                return;
        }
        llm_options_from_config(&options, c);
        options.api_key = key;
        r = llm_client_new(d->base, &options, &d->llm, err, sizeof(err));
        key = llm_secret_free(key);
        if (r < 0) {
                log_error("llm: %s; the LLM stays off", err);
                return;
        }
        d->prompts_dir = strdup(found);
        d->llm_model = c->model ? strdup(c->model) : NULL;
        d->llm_embedding_model = c->embedding_model ? strdup(c->embedding_model) : NULL;
        if (!d->prompts_dir || (c->model && !d->llm_model) ||
            (c->embedding_model && !d->llm_embedding_model)) {
                d->llm = llm_client_free(d->llm);
                return;
        }
        log_notice("llm: %s at %s, prompts in %s, %" PRId64 " tokens per episode; source is "
                   "sent only for repos with llm_allowed%s",
                   c->model ? c->model : "(no model)", c->endpoint, d->prompts_dir,
                   c->episode_token_budget,
                   c->allow_loopback_for_all_repos && llm_endpoint_is_loopback(c->endpoint)
                       ? " (or any repo: the endpoint is loopback)"
                       : "");
}

/*
 * Opens the store, waiting while its file system is too full for RocksDB
 * (store.h): exiting instead would have systemd restart the daemon into the
 * same failure every 5 s.  Looks again after 5 s, doubling to a minute (the
 * watchdog's half), and tells systemd it is still starting and why; a stop
 * signal ends the wait with d->stopping set.
 */
static int open_store_when_space(struct daemon *d, const char *path, char *err, size_t err_size)
{
        unsigned waits = 0;
        int r;

        for (;;) {
                struct timeval later = { waits < 4 ? 5L << waits : 60, 0 };
                uint64_t free_bytes;

                r = store_open(path, &d->store, err, err_size);
                if (r != -ENOSPC || d->stopping)
                        break;
                free_bytes = store_free_bytes(d->config->state_dir);
                if (waits == 0)
                        log_warning("%s; waiting for space before starting", err);
                sd_notifyf(0,
                           "STATUS=waiting for disk space: %" PRIu64 " MiB free in %s\n"
                           "EXTEND_TIMEOUT_USEC=%llu\nWATCHDOG=1",
                           free_bytes >> 20, d->config->state_dir,
                           (unsigned long long)(later.tv_sec + 30) * 1000000ull);
                event_base_loopexit(d->base, &later);
                event_base_dispatch(d->base);
                waits++;
        }
        if (r == 0 && waits)
                log_notice("store %s opened after waiting for disk space", path);
        return r;
}

static const struct config *current_config(void *userdata)
{
        const struct daemon *d = userdata;

        return d->config;
}

static int publish(const struct published_episode *episode, const json_t *record,
                   daemon_publish_done_fn done, void *done_userdata, char *summary,
                   size_t summary_size, void *userdata)
{
        struct daemon *d = userdata;

        return publisher_publish(d->publisher, episode, record, done, done_userdata, summary,
                                 summary_size);
}

/* The publisher, on the store, queue, workers and runner opened before it. */
static int open_publisher(struct daemon *d)
{
        const struct publisher_deps deps = {
                .store = d->store,
                .queue = d->queue,
                .workers = d->workers,
                .runner = d->runner,
                .ascend_soc = d->ascend.soc,
        };
        int r = publisher_new(&deps, current_config, d, &d->publisher);

        if (r == 0 && d->stopping) /* a signal during start-up (the ascend backend's probes) */
                publisher_stop(d->publisher);
        return r;
}

/* The scheduler, on the devices, workers, evaluator and LLM client opened before it. */
static int open_scheduler(struct daemon *d)
{
        const struct scheduler_deps deps = {
                .base = d->base,
                .queue = d->queue,
                .devices = d->devices,
                .store = d->store,
                .workers = d->workers,
                .runner = d->runner,
                .evaluator = d->evaluator,
                .llm = d->llm,
                .prompts_dir = d->prompts_dir,
                .llm_model = d->llm_model,
                .llm_embedding_model = d->llm_embedding_model,
        };
        static const struct scheduler_ops ops = {
                .config = current_config,
                .publish = publish,
                .housekeeping = housekeeping,
                .episode_ended = episode_ended,
                .trim_memory = trim_memory,
        };

        int r = scheduler_new(&deps, &ops, d, &d->scheduler);

        if (r == 0 && d->stopping) /* a signal during start-up (the ascend backend's probes) */
                scheduler_stop(d->scheduler);
        return r;
}

static void kick(void *userdata)
{
        struct daemon *d = userdata;

        scheduler_kick(d->scheduler);
}

static bool cancel(uint64_t item_id, void *userdata)
{
        struct daemon *d = userdata;

        return scheduler_cancel(d->scheduler, item_id);
}

static bool is_paused(void *userdata)
{
        struct daemon *d = userdata;

        return scheduler_paused(d->scheduler);
}

static void set_paused(bool on, void *userdata)
{
        struct daemon *d = userdata;

        scheduler_set_paused(d->scheduler, on);
}

static json_t *daemon_status(void *userdata);

/* The control socket, last: its requests may reach all the rest. */
static int open_control(struct daemon *d, char *err, size_t err_size)
{
        const struct control_deps deps = {
                .base = d->base,
                .store = d->store,
                .queue = d->queue,
                .workers = d->workers,
                .ascend_soc = d->ascend.soc,
        };
        static const struct control_ops ops = {
                .config = current_config,
                .status = daemon_status,
                .reload = reload,
                .kick = kick,
                .cancel = cancel,
                .paused = is_paused,
                .set_paused = set_paused,
                .publish = publish,
        };

        return control_start(&deps, &ops, d, &d->control, err, err_size);
}

/* Opens the store, queue, devices, watchers and control socket; logs why not. */
static int daemon_open(struct daemon *d)
{
        struct queue_options queue_options = { .max_items = d->config->limits.queue_max_items };
        struct watcher_options watch_options = { .exclude_prefix = d->config->publish.prefix };
        int ids[CONFIG_MAX_DEVICES];
        size_t n_ids = 0;
        char path[PATH_MAX], err[1024];
        unsigned recovered = 0;
        int r;

        r = state_path(path, sizeof(path), d->config->state_dir, STATE_STORE);
        if (r == 0)
                r = open_store_when_space(d, path, err, sizeof(err));
        if (r == 0 && d->stopping)
                return 0; /* stopped while waiting for space */
        if (r < 0) {
                log_error("%s", r == -ENAMETOOLONG ? "state_dir is too long" : err);
                return r;
        }
        seed_experience(d);
        r = queue_open(d->store, &queue_options, &d->queue, &recovered);
        if (r < 0) {
                log_error("cannot open the queue in %s: %s", path, strerror(-r));
                return r;
        }
        if (recovered)
                log_notice("%u episode%s interrupted by the last stop will resume", recovered,
                           recovered == 1 ? "" : "s");
        r = open_runner(d);
        if (r < 0)
                return r;
        if (d->config->backend == CONFIG_BACKEND_ASCEND) {
                r = daemon_ascend_open(d->base, d->runner, d->config, d->config_path, &d->ascend,
                                       ids, &n_ids);
                if (r < 0)
                        return r;
        } else {
                for (int i = 0; i < d->config->device_count; i++)
                        ids[n_ids++] = i;
        }
        r = device_pool_new(config_backend_name(d->config->backend), ids, n_ids, NULL, &d->devices);
        if (r < 0) {
                log_error("cannot set up device locks: %s", strerror(-r));
                return r;
        }
        r = worker_pool_new(d->base, DAEMON_WORKER_THREADS, DAEMON_MAX_WORKER_JOBS, &d->workers);
        if (r < 0) {
                log_error("cannot start worker threads: %s", strerror(-r));
                return r;
        }
        r = open_evaluator(d);
        if (r < 0)
                return r;
        open_llm(d);
        r = open_publisher(d);
        if (r < 0) {
                log_error("cannot start publishing: %s", strerror(-r));
                return r;
        }
        r = open_scheduler(d);
        if (r < 0) {
                log_error("cannot start the scheduler: %s", strerror(-r));
                return r;
        }
        watch_options.workers = d->workers;
        r = watcher_new(d->base, d->store, &watch_options, on_branch_moved, d, &d->watcher);
        if (r < 0) {
                log_error("cannot start inotify: %s", strerror(-r));
                return r;
        }
        sync_repos(d, NULL, d->config);
        r = open_control(d, err, sizeof(err));
        if (r < 0) {
                log_error("%s", err);
                return r;
        }
        return 0;
}

/*
 * The status object of 'ascendopt status', all but "repos" (cheap, on the
 * loop); NULL without memory.  The control API's (struct control_ops).
 */
static json_t *daemon_status(void *userdata)
{
        struct daemon *d = userdata;
        json_t *status =
            json_pack("{s:s, s:i, s:I, s:s, s:s, s:b, s:s, s:I, s:I, s:o, s:o, s:I}", "version",
                      ASCENDOPT_VERSION, "pid", (int)getpid(), "uptime_s",
                      (json_int_t)(time(NULL) - d->started), "backend",
                      config_backend_name(d->config->backend), "platform",
                      d->ascend.soc ? d->ascend.soc : d->config->platform, "can_run_episodes",
                      d->evaluator != NULL, "sandbox", sandbox_state(d), "queue_depth",
                      (json_int_t)queue_depth(d->queue), "commits_seen",
                      (json_int_t)d->commits_seen, "devices", device_pool_status(d->devices),
                      "stalled_siblings", publisher_stalled(d->publisher), "watches",
                      (json_int_t)watcher_watch_count(d->watcher));

        /* the scheduler's fields, and the re-probes of quarantined "devices" */
        if (status && scheduler_status(d->scheduler, status) < 0) {
                json_decref(status);
                return NULL;
        }
        return status;
}

/*
 * The exit status for start-up's -errno, the one place it is chosen (what
 * failed was logged already): systemd and scripts read it.
 */
static int exit_code_of(int r)
{
        switch (-r) {
        case ENOENT:
        case ENODEV:
        case ENXIO:
        case ENOPKG:
        case ENOEXEC:
        case EPERM:
        case EADDRINUSE:
                return EX_UNAVAILABLE; /* a tool, device or the sandbox is missing; the socket is taken */
        case EACCES:
        case EROFS:
        case ENOSPC:
        case EDQUOT:
        case EEXIST:
        case ENOTDIR:
        case EISDIR:
        case ENAMETOOLONG:
                return EX_CANTCREAT; /* the state directory or the socket cannot be made */
        case EBUSY:
                return EX_TEMPFAIL; /* another process holds the store */
        case EINVAL:
                return EX_CONFIG;
        case EIO:
        case EPROTO:
                return EX_SOFTWARE;
        default:
                return EX_OSERR;
        }
}

int daemon_main(int argc, char **argv)
{
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "foreground", no_argument, NULL, 'f' },
                { "check-config", no_argument, NULL, 'C' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { NULL, 0, NULL, 0 },
        };
        /* on the heap: its device slots are large and mostly never touched */
        struct daemon *d = calloc(1, sizeof(*d));
        char default_path[4096], err[1024];
        bool check_only = false, libgit2_held = false;
        int opt, ret = EX_OK, r;

        if (!d) {
                fprintf(stderr, "ascendoptd: out of memory\n");
                return EX_OSERR;
        }
        while ((opt = getopt_long(argc, argv, "c:fh", options, NULL)) != -1) {
                switch (opt) {
                case 'c':
                        free(d->config_path);
                        d->config_path = strdup(optarg);
                        break;
                case 'f':
                        break;
                case 'C':
                        check_only = true;
                        break;
                case 'h':
                        usage(stdout);
                        goto out;
                case 'V':
                        printf("ascendoptd %s\n", ASCENDOPT_VERSION);
                        goto out;
                default:
                        usage(stderr);
                        ret = EX_USAGE;
                        goto out;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "ascendoptd: unexpected argument '%s'\n", argv[optind]);
                usage(stderr);
                ret = EX_USAGE;
                goto out;
        }
        if (!d->config_path)
                d->config_path = strdup(config_default_path(default_path, sizeof(default_path)));
        if (!d->config_path) {
                ret = EX_OSERR;
                goto out;
        }
        if (config_load(d->config_path, &d->config, err, sizeof(err)) < 0) {
                log_error("%s", err);
                ret = EX_CONFIG;
                goto out;
        }
        apply_log_level(d->config);
        if (check_only) {
                printf("%s: configuration is valid\n", d->config_path);
                goto out;
        }

        /*
         * One malloc arena for every thread: the workers and RocksDB's
         * threads allocate little, and each extra arena would keep its own
         * freed pages resident while the daemon idles.
         */
        mallopt(M_ARENA_MAX, 1);
        /* Signals arrive through libevent; children get the defaults back. */
        signal(SIGPIPE, SIG_IGN);
        d->started = time(NULL);
        d->base = event_base_new();
        if (!d->base) {
                log_error("cannot create the event loop");
                ret = EX_OSERR;
                goto out;
        }
        d->sigterm = evsignal_new(d->base, SIGTERM, on_stop_signal, d);
        d->sigint = evsignal_new(d->base, SIGINT, on_stop_signal, d);
        d->sighup = evsignal_new(d->base, SIGHUP, on_reload_signal, d);
        if (!d->sigterm || !d->sigint || !d->sighup || evsignal_add(d->sigterm, NULL) < 0 ||
            evsignal_add(d->sigint, NULL) < 0 || evsignal_add(d->sighup, NULL) < 0) {
                log_error("cannot install signal handlers");
                ret = EX_OSERR;
                goto out;
        }
        describe_config(d->config);
        /*
         * libgit2 stays initialised for the daemon's life: the per-call
         * init/shutdown pairs below it would otherwise tear its global
         * state down whenever the count reached zero, deleting the
         * thread-local key under the worker threads (their error state
         * leaked) and rebuilding everything on the next call.
         */
        git_libgit2_init();
        libgit2_held = true;
        r = daemon_open(d);
        if (r < 0) {
                ret = exit_code_of(r);
                goto out;
        }
        if (d->stopping) /* a signal during start-up (the ascend backend's probes) */
                goto out;
        log_notice("ascendoptd %s started; control socket %s", ASCENDOPT_VERSION,
                   d->config->socket);
        if (start_watchdog(d) < 0)
                log_warning("cannot arm the watchdog timer");
        sd_notify(0, "READY=1");
        scheduler_start(d->scheduler);
        housekeeping(d);
        trim_memory(d);
        if (event_base_dispatch(d->base) < 0) {
                log_error("event loop failed");
                ret = EX_SOFTWARE;
        }
        log_notice("ascendoptd stopped");
out:
        daemon_release(d); /* joins the workers first */
        free(d);
        if (libgit2_held)
                git_libgit2_shutdown();
        return ret;
}
