/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: one episode per free device.  It claims the next queue
 * item, exports the operator as it is at the item's commit (straight from
 * git's object store, never the work tree), runs the episode on the shared
 * evaluator, and records the outcome in the queue when it ends.  Its
 * state is struct scheduler; it reaches the daemon only through struct
 * scheduler_ops (scheduler-internal.h).
 */
#include "scheduler-slots.h"

#include "common/common.h"
#include "fleet/fleet.h"
#include "llm/llm.h"
#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "queue/queue.h"
#include "store/store.h"
#include "watchers/watchers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

const struct config *scheduler_config(const struct scheduler *s)
{
        return s->ops.config(s->userdata);
}

static const struct config *config(const struct scheduler *s)
{
        return scheduler_config(s);
}

static void notify_status(struct scheduler *s)
{
        size_t busy = 0;

        for (size_t i = 0; i < ARRAY_SIZE(s->running); i++)
                busy += s->running[i].busy;
        if (s->fleet)
                sd_notifyf(0, "STATUS=%" PRIu64 " queued, %zu of %u Slurm jobs in flight%s",
                           queue_depth(s->deps.queue), busy, config(s)->fleet.max_jobs,
                           s->paused ? ", paused" : "");
        else
                sd_notifyf(0, "STATUS=%" PRIu64 " queued, %zu of %zu devices busy%s",
                           queue_depth(s->deps.queue), busy, device_pool_size(s->deps.devices),
                           s->paused ? ", paused" : "");
}

static void release(struct running *run)
{
        struct scheduler *s = run->scheduler;

        if (run->dir[0])
                rm_rf(run->dir);
        if (!s->fleet)
                device_pool_release(s->deps.devices, run->slot);
        fleet_run_free(run->fleet);
        memset(run, 0, sizeof(*run));
}

void slot_let_go(struct running *run, bool keep_dir)
{
        struct scheduler *s = run->scheduler;

        if (keep_dir)
                run->dir[0] = '\0';
        release(run);
        if (s->stopping) {
                s->ops.episode_ended(s->userdata);
        } else {
                scheduler_kick(s);
                s->ops.trim_memory(s->userdata);
        }
}

/* The health probe: a trivial sandboxed job within 10 s, or $ASCENDOPT_DEVICE_PROBE. */
static int start_probe(struct scheduler *s, const char *sandbox_dir, child_done_fn done,
                       void *userdata, struct child **ret_child)
{
        const char *command = getenv("ASCENDOPT_DEVICE_PROBE");
        const char *argv[] = { "sh", "-c", command && *command ? command : "exit 0", NULL };
        struct child_spec spec = {
                .argv = argv,
                .timeout_s = 10,
                .output_cap = 4096,
                .sandbox_dir = sandbox_dir,
        };

        return child_start(s->deps.runner, &spec, done, userdata, ret_child);
}

/* Why a probe failed, in one line. */
static void probe_failure(const struct child_result *result, const char *when, char *reason,
                          size_t size)
{
        char what[128];

        snprintf(reason, size, "health probe failed %s: %s%s%.200s", when,
                 child_result_describe(result, what, sizeof(what)), result->err.len ? ": " : "",
                 result->err.data ? result->err.data : "");
        reason[strcspn(reason, "\n")] = '\0';
}

static void schedule_recheck(struct scheduler *s, size_t slot);

static void on_recheck_done(const struct child_result *result, void *userdata)
{
        struct device_recheck *rc = userdata;
        struct scheduler *s = rc->scheduler;
        size_t slot = (size_t)(rc - s->rechecks);
        int id = device_pool_id(s->deps.devices, slot);
        char when[64], reason[512];

        rc->probe = NULL;
        if (result->cancelled || s->stopping)
                return;
        if (result->exit_code == 0 && !result->timed_out) {
                rm_rf(rc->dir);
                rc->failures = 0;
                device_pool_reinstate(s->deps.devices, slot);
                log_notice("device %d passed its health probe again: back in service", id);
                scheduler_kick(s);
                return;
        }
        rc->failures++;
        snprintf(when, sizeof(when), "again (%u time%s since the quarantine)", rc->failures,
                 rc->failures == 1 ? "" : "s");
        probe_failure(result, when, reason, sizeof(reason));
        device_pool_quarantine(s->deps.devices, slot, reason);
        log_warning("device %d stays quarantined: %s", id, reason);
        schedule_recheck(s, slot);
}

static void on_recheck_timer(evutil_socket_t fd, short what, void *userdata)
{
        struct device_recheck *rc = userdata;
        struct scheduler *s = rc->scheduler;
        size_t slot = (size_t)(rc - s->rechecks);
        int r;

        rc->next_at = 0;
        if (s->stopping)
                return;
        r = format_path(rc->dir, sizeof(rc->dir), "%s/probes/device-%d", config(s)->state_dir,
                        device_pool_id(s->deps.devices, slot));
        /* kept from one re-probe to the next, removed once the device is back */
        if (r == 0)
                r = mkdir_p(rc->dir);
        if (r == 0)
                r = start_probe(s, rc->dir, on_recheck_done, rc, &rc->probe);
        if (r < 0) {
                log_warning("cannot probe quarantined device %d again: %s",
                            device_pool_id(s->deps.devices, slot), strerror(-r));
                rc->failures++;
                schedule_recheck(s, slot);
        }
}

/* Arms the next re-probe of the quarantined device in slot: the pause doubles per failure. */
static void schedule_recheck(struct scheduler *s, size_t slot)
{
        struct device_recheck *rc = &s->rechecks[slot];
        const char *first = getenv("ASCENDOPT_DEVICE_RECHECK_S");
        long delay = first && atol(first) > 0 ? atol(first) : DEVICE_RECHECK_FIRST_S;
        struct timeval tv = { 0, 0 };

        for (unsigned k = 0; k < rc->failures && delay < DEVICE_RECHECK_MAX_S; k++)
                delay *= 2;
        if (delay > DEVICE_RECHECK_MAX_S)
                delay = DEVICE_RECHECK_MAX_S;
        rc->scheduler = s;
        if (!rc->timer)
                rc->timer = evtimer_new(s->deps.base, on_recheck_timer, rc);
        if (!rc->timer) {
                log_error("cannot arm the re-probe of device %d: it stays quarantined until "
                          "the daemon restarts",
                          device_pool_id(s->deps.devices, slot));
                return;
        }
        tv.tv_sec = delay;
        evtimer_add(rc->timer, &tv);
        rc->next_at = time(NULL) + delay;
        log_info("device %d is probed again in %ld s", device_pool_id(s->deps.devices, slot),
                 delay);
}

/* Stops the re-probes of quarantined devices; frees their timers. */
static void stop_rechecks(struct scheduler *s)
{
        for (size_t i = 0; i < ARRAY_SIZE(s->rechecks); i++) {
                struct device_recheck *rc = &s->rechecks[i];
                child_cancel(rc->probe);
                if (rc->timer)
                        event_free(rc->timer);
                rc->timer = NULL;
                rc->next_at = 0;
        }
}

/*
 * A run timed out on this device: before anyone else gets it, check that
 * it still runs a trivial job within 10 s, and quarantine it when not.
 * For the simulator the device is the sandboxed child machinery itself;
 * $ASCENDOPT_DEVICE_PROBE (a shell command) replaces the trivial job.  A
 * quarantined device is probed again later (schedule_recheck).
 */
static void on_probe_done(const struct child_result *result, void *userdata)
{
        struct running *run = userdata;
        struct scheduler *s = run->scheduler;
        int id = device_pool_id(s->deps.devices, run->slot);
        char reason[512];

        run->probe = NULL;
        if (result->cancelled) {
                log_info("the health probe of device %d was cut short by the stop", id);
        } else if (result->exit_code == 0 && !result->timed_out) {
                log_info("device %d passed its health probe after a run timed out", id);
        } else {
                probe_failure(result, "after a run timed out", reason, sizeof(reason));
                device_pool_quarantine(s->deps.devices, run->slot, reason);
                log_warning("device %d is quarantined: %s", id, reason);
                s->rechecks[run->slot].failures = 0;
                if (!s->stopping)
                        schedule_recheck(s, run->slot);
        }
        release(run);
        if (!s->stopping)
                scheduler_kick(s);
        else
                s->ops.episode_ended(s->userdata);
}

/* Probes the device of an episode whose run timed out; false when none was started. */
static bool probe_device(struct running *run)
{
        struct scheduler *s = run->scheduler;
        int r = start_probe(s, run->dir, on_probe_done, run, &run->probe);

        if (r < 0) {
                log_warning("cannot start the health probe of device %d: %s",
                            device_pool_id(s->deps.devices, run->slot), strerror(-r));
                return false;
        }
        return true;
}

static void on_progress(const struct episode_progress *p, void *userdata)
{
        struct running *run = userdata;
        char context[64];

        run->scheduler->last_progress = time(NULL);
        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        if (p->new_best || strcmp(p->what, "baseline") == 0)
                log_msg(LOG_INFO, context, "%s: %s %.2f us (best %.2f us), %d of %d evaluations",
                        p->what, p->status ? p->status : "?", p->latency_us, p->best_us, p->used,
                        p->budget);
}

/* Records how an episode ended, then probes or frees its device. */
void slot_end(struct running *run, enum queue_state end, const char *reason, bool retry)
{
        struct scheduler *s = run->scheduler;
        char context[64];
        int r;

        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        log_msg(end == QUEUE_FAILED ? LOG_WARNING : LOG_NOTICE, context, "%s: %s", run->op_dir,
                reason);
        r = queue_finish(s->deps.queue, run->item_id, end, reason, retry);
        /* 'ascendopt cancel' already ended a cancelled item in the queue */
        if (r < 0 && !(end == QUEUE_CANCELLED && r == -EINVAL))
                log_msg(LOG_ERR, context,
                        "cannot record the end of the episode in the queue (the item stays "
                        "running and resumes at the next start): %s",
                        r == -ENOENT ? strerror(-r) : store_last_error(s->deps.store));
        run->episode = NULL;
        s->ops.housekeeping(s->userdata); /* what the episode added to the cache and the store */
        /* the device stays leased until its probe says whether it is healthy */
        if (run->run_timed_out && !s->fleet && !s->stopping && probe_device(run))
                return;
        slot_let_go(run, false);
}

/* The "done: ..." line of a finished episode, with what publishing said. */
static void done_reason(const struct running *run, const char *published, char *reason, size_t size)
{
        snprintf(reason, size, "done: %.2f us -> %.2f us (%.3fx); %s%s%s", run->base_us,
                 run->best_us > 0 ? run->best_us : run->base_us,
                 run->best_us > 0 ? run->base_us / run->best_us : 1.0, published,
                 run->stop_reason[0] ? "; stopped early: " : "", run->stop_reason);
}

static void on_published(int r, const char *summary, void *userdata)
{
        struct running *run = userdata;
        char context[64], reason[3072];

        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        if (r == -ECANCELED) {
                /* the daemon stopped first: the item stays running and publishes on restart */
                log_msg(LOG_INFO, context, "%s: stopped before publishing; it publishes on restart",
                        run->op_dir);
                struct scheduler *s = run->scheduler;
                release(run);
                s->ops.episode_ended(s->userdata);
                return;
        }
        if (r == -EEXIST)
                log_msg(LOG_WARNING, context, "%s: %s", run->op_dir, summary);
        else if (r < 0)
                log_msg(LOG_ERR, context, "%s: %s", run->op_dir, summary);
        done_reason(run, summary, reason, sizeof(reason));
        slot_end(run, QUEUE_DONE, reason, false);
}

/*
 * Publishes a finished episode; the slot is let go when the git work,
 * done on a worker, is back.  resume is the intent an interrupted attempt
 * left in the queue, or NULL.  Takes the record.
 */
void slot_publish(struct running *run, json_t *record, const json_t *resume)
{
        struct scheduler *s = run->scheduler;
        const struct published_episode ep = {
                .repo = run->repo,
                .branch = run->branch,
                .commit = run->commit,
                .op_dir = run->op_dir,
                .item_id = run->item_id,
                .resume = resume,
        };
        struct episode_summary sum;
        char context[64], published[1536], reason[3072];
        int r;

        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        /* without memory for the summary, the numbers read as 0 and the report says why */
        (void)episode_summary_read(record, &sum);
        run->run_timed_out = sum.run_timeouts > 0;
        run->base_us = sum.baseline.latency_us;
        run->best_us = sum.best.latency_us;
        snprintf(run->stop_reason, sizeof(run->stop_reason), "%s", sum.stop_reason ?: "");
        episode_summary_release(&sum);
        r = s->ops.publish(&ep, record, on_published, run, published, sizeof(published),
                           s->userdata);
        json_decref(record);
        if (r == 0)
                return;
        if (r < 0)
                log_msg(LOG_ERR, context, "%s: %s", run->op_dir, published);
        done_reason(run, published, reason, sizeof(reason));
        slot_end(run, QUEUE_DONE, reason, false);
}

static void on_episode_done(json_t *record, void *userdata)
{
        struct running *run = userdata;
        struct scheduler *s = run->scheduler;
        struct episode_summary sum;
        const char *state;
        char context[64], reason[3072];

        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        run->episode = NULL;
        if (s->stopping) {
                /* the item stays "running" in the queue, so it resumes on restart */
                log_msg(LOG_INFO, context, "stopped with the daemon; it resumes on restart");
                json_decref(record);
                release(run);
                s->ops.episode_ended(s->userdata);
                return;
        }
        (void)episode_summary_read(record, &sum);
        state = sum.state;
        run->run_timed_out = sum.run_timeouts > 0;
        if (state && strcmp(state, "done") == 0) {
                episode_summary_release(&sum);
                log_msg(LOG_NOTICE, context, "%s: search finished; publishing", run->op_dir);
                daemon_crash_point("episode-done");
                s->episodes_done++;
                slot_publish(run, record, NULL);
        } else if (state && strcmp(state, "cancelled") == 0) {
                episode_summary_release(&sum);
                json_decref(record);
                slot_end(run, QUEUE_CANCELLED, "cancelled", false);
        } else {
                /* infrastructure trouble may pass; a broken operator will not */
                bool retry = sum.error_kind && strcmp(sum.error_kind, "infra_error") == 0;
                snprintf(reason, sizeof(reason), "%s", sum.error_message ?: "failed");
                s->episodes_failed++;
                episode_summary_release(&sum);
                json_decref(record);
                slot_end(run, QUEUE_FAILED, reason, retry);
        }
}

static struct running *free_slot(struct scheduler *s)
{
        for (size_t i = 0; i < ARRAY_SIZE(s->running); i++)
                if (!s->running[i].busy)
                        return &s->running[i];
        return NULL;
}

/* Fails a claimed item that could not start; logs why. */
static void fail_start(struct running *run, const char *why)
{
        struct scheduler *s = run->scheduler;
        char context[64];

        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        log_msg(LOG_WARNING, context, "%s: cannot start: %s", run->op_dir, why);
        queue_finish(s->deps.queue, run->item_id, QUEUE_FAILED, why, false);
        s->episodes_failed++;
        release(run);
}

/* Starts the episode once its operator is exported. */
static void start_episode(struct running *run)
{
        struct scheduler *s = run->scheduler;
        const struct config *c = config(s);
        struct episode_options options = { 0 };
        struct episode_llm llm = { 0 };
        char context[64], id[64], err[2048], opdir[4200];
        int r;

        if (s->fleet) {
                fleet_start(run);
                return;
        }
        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        snprintf(id, sizeof(id), "q%" PRIu64, run->item_id);
        r = format_path(opdir, sizeof(opdir), "%s/repo/%s", run->dir, run->op_dir);
        if (r == 0) {
                options.id = id;
                options.seed = 1;
                options.budget = c->episode.budget;
                options.strategy = EPISODE_FULL;
                options.rounds = c->episode.rounds;
                options.stage1_steps = c->episode.stage1_steps;
                options.stage2_steps = c->episode.stage2_steps;
                options.turn_patience = c->episode.turn_patience;
                options.first_stage = c->episode.first_stage;
                options.log_context = context;
                options.wall_budget_s = c->episode.wall_budget_s;
                options.base = s->deps.base;
                options.device = device_pool_id(s->deps.devices, run->slot);
                /* source goes to the endpoint only with the repo's consent */
                if (s->deps.llm && llm_may_send(&c->llm, daemon_find_repo(c, run->repo))) {
                        llm.client = s->deps.llm;
                        llm.prompts_dir = s->deps.prompts_dir;
                        llm.model = s->deps.llm_model;
                        llm.embedding_model = s->deps.llm_embedding_model;
                        llm.token_budget = c->llm.episode_token_budget;
                        options.llm = &llm;
                }
                r = episode_start(s->deps.evaluator, s->deps.store, opdir, &options, on_progress,
                                  on_episode_done, run, &run->episode, err, sizeof(err));
        } else {
                snprintf(err, sizeof(err), "state_dir is too long");
        }
        if (r < 0) {
                fail_start(run, err);
                return;
        }
        s->last_progress = time(NULL);
        log_msg(LOG_NOTICE, context, "started %s at %.12s on device %d", run->op_dir, run->commit,
                device_pool_id(s->deps.devices, run->slot));
}

/* Exporting an operator from git objects, on a worker thread: it owns copies of all it reads. */
struct export_job {
        struct running *run;
        char repo[1024], commit[64], op_dir[1024], dir[4096], dest[4200];
        int result;
        char err[2048];
};

/* The export's root is its operators' repository root (npu_find_repo_root). */
static int mark_export_root(const char *dest, char *err, size_t err_size)
{
        char path[4300];
        FILE *f;

        if (format_path(path, sizeof(path), "%s/" NPU_EXPORT_MARKER, dest) < 0 ||
            !(f = fopen(path, "we"))) {
                snprintf(err, err_size, "%s: cannot mark the export's root", dest);
                return -EIO;
        }
        fputs("exported by ascendoptd\n", f);
        return fclose(f) == 0 ? 0 : -EIO;
}

static void export_work(void *data)
{
        struct export_job *job = data;

        rm_rf(job->dir); /* what an earlier start left */
        job->result = watch_export_operator(job->repo, job->commit, job->op_dir, job->dest,
                                            job->err, sizeof(job->err));
        if (job->result == 0)
                job->result = mark_export_root(job->dest, job->err, sizeof(job->err));
}

static void export_done(void *data, int status)
{
        struct export_job *job = data;
        struct running *run = job->run;
        struct scheduler *s = run->scheduler;

        if (status < 0 || s->stopping) {
                /* the item stays "running" in the queue: it starts again on restart */
                release(run);
                s->ops.episode_ended(s->userdata);
        } else if (job->result < 0) {
                fail_start(run, job->err);
                scheduler_kick(s);
        } else {
                start_episode(run);
        }
        free(job);
}

/*
 * An item whose episode finished before a restart (its record says done)
 * is never searched again: what it found is published, finishing the
 * interrupted publication when the queue holds its intent.
 */
static bool publish_without_search(struct running *run)
{
        struct scheduler *s = run->scheduler;
        json_t *record = NULL, *intent = NULL;
        char context[64], id[64];

        snprintf(id, sizeof(id), "q%" PRIu64, run->item_id);
        if (episode_load(s->deps.store, id, &record) < 0)
                return false;
        if (!episode_record_done(record)) {
                json_decref(record);
                return false;
        }
        snprintf(context, sizeof(context), "episode %" PRIu64, run->item_id);
        if (queue_get_intent(s->deps.queue, run->item_id, &intent) < 0)
                intent = NULL;
        log_msg(LOG_NOTICE, context,
                "%s: its search finished before the restart; publishing what it found%s",
                run->op_dir, intent ? ", as the interrupted publication meant to" : "");
        s->episodes_done++;
        slot_publish(run, record, intent);
        json_decref(intent);
        return true;
}

/* Starts a claimed item: its operator is exported on a worker, then the episode starts. */
static void start_item(struct scheduler *s, struct running *run, json_t *item)
{
        const char *repo = json_string_value(json_object_get(item, "repo"));
        const char *op_dir = json_string_value(json_object_get(item, "op_dir"));
        const char *commit = json_string_value(json_object_get(item, "commit"));
        const char *branch = json_string_value(json_object_get(item, "branch"));
        struct export_job *job = NULL;
        char id[64];
        int r;

        run->item_id = (uint64_t)json_integer_value(json_object_get(item, "id"));
        run->scheduler = s;
        run->started = time(NULL);
        snprintf(run->op_dir, sizeof(run->op_dir), "%s", op_dir ? op_dir : "?");
        snprintf(run->repo, sizeof(run->repo), "%s", repo ? repo : "?");
        snprintf(run->branch, sizeof(run->branch), "%s", branch ? branch : "?");
        snprintf(run->commit, sizeof(run->commit), "%s", commit ? commit : "?");
        snprintf(id, sizeof(id), "q%" PRIu64, run->item_id);
        if (s->fleet) {
                /* the job's folder under the shared directory: "ascendopt-<item>-<attempt>" */
                unsigned attempt = (unsigned)json_integer_value(json_object_get(item, "attempts"));
                r = fleet_job_name(run->item_id, attempt, id, sizeof(id));
                if (r == 0)
                        r = fleet_job_dir(&config(s)->fleet, id, run->dir, sizeof(run->dir));
        } else {
                r = format_path(run->dir, sizeof(run->dir), "%s/episodes/%s", config(s)->state_dir,
                                id);
        }
        if (r < 0) {
                run->dir[0] = '\0';
                fail_start(run, "state_dir is too long");
                return;
        }
        if (publish_without_search(run))
                return;
        job = calloc(1, sizeof(*job));
        if (!job) {
                fail_start(run, "out of memory");
                return;
        }
        job->run = run;
        snprintf(job->repo, sizeof(job->repo), "%s", run->repo);
        snprintf(job->commit, sizeof(job->commit), "%s", run->commit);
        snprintf(job->op_dir, sizeof(job->op_dir), "%s", run->op_dir);
        snprintf(job->dir, sizeof(job->dir), "%s", run->dir);
        if (format_path(job->dest, sizeof(job->dest), "%s/repo", run->dir) < 0) {
                free(job);
                fail_start(run, "state_dir is too long");
                return;
        }
        r = worker_pool_submit(s->deps.workers, export_work, export_done, job);
        if (r < 0) {
                free(job);
                fail_start(run, "cannot hand the export to a worker thread");
        }
}

static void on_device_retry(evutil_socket_t fd, short what, void *userdata)
{
        scheduler_kick(userdata);
}

/*
 * Another process (a second daemon, a foreground 'ascendopt optimize')
 * holds a device that queued work could use.  flock tells nobody when it
 * is let go, so look again in a second, and only while work waits.
 */
static void retry_devices_later(struct scheduler *s)
{
        const struct timeval second = { 1, 0 };

        if (!s->device_retry)
                s->device_retry = evtimer_new(s->deps.base, on_device_retry, s);
        if (s->device_retry && !evtimer_pending(s->device_retry, NULL))
                evtimer_add(s->device_retry, &second);
}

/* Bytes free to the daemon's user on the state dir's file system; UINT64_MAX when unknown. */
static uint64_t state_free_bytes(const struct scheduler *s)
{
        struct statvfs st;

        if (statvfs(config(s)->state_dir, &st) < 0)
                return UINT64_MAX;
        return (uint64_t)st.f_bavail * st.f_frsize;
}

static void on_space_check(evutil_socket_t fd, short what, void *userdata)
{
        struct scheduler *s = userdata;

        (void)fd, (void)what;
        scheduler_kick(s); /* looks again, and resumes or waits longer */
}

/*
 * Whether there is space to start an episode.  Short of
 * limits.min_free_bytes the queue pauses, says so once in the log and in
 * status, and looks again after 5 s, doubling to 5 minutes: free space
 * has no event to wait on, and the timer runs only while paused.
 */
static bool space_to_start(struct scheduler *s)
{
        const struct config *c = config(s);
        uint64_t need = c->limits.min_free_bytes;
        struct timeval later = { 5, 0 };

        s->space_free = state_free_bytes(s);
        if (s->space_free >= need) {
                if (s->space_paused)
                        log_notice("resumed: %s has %" PRIu64 " MiB free again", c->state_dir,
                                   s->space_free >> 20);
                s->space_paused = false;
                s->space_checks = 0;
                return true;
        }
        if (!s->space_paused)
                log_warning("paused: %s has %" PRIu64 " MiB free, under limits.min_free_bytes "
                            "(%" PRIu64 " MiB); the queue resumes when there is space",
                            c->state_dir, s->space_free >> 20, need >> 20);
        s->space_paused = true;
        later.tv_sec = s->space_checks < 6 ? 5L << s->space_checks : 300;
        s->space_checks++;
        if (!s->space_check)
                s->space_check = evtimer_new(s->deps.base, on_space_check, s);
        if (s->space_check && !evtimer_pending(s->space_check, NULL))
                evtimer_add(s->space_check, &later);
        return false;
}

void scheduler_kick(struct scheduler *s)
{
        if (!s->paused && !s->stopping && s->deps.evaluator && queue_depth(s->deps.queue) > 0 &&
            !space_to_start(s)) {
                notify_status(s);
                return;
        }
        while (!s->paused && !s->stopping && s->deps.evaluator) {
                struct running *run = free_slot(s);
                json_t *item = NULL;
                size_t slot;
                int r;

                if (!run)
                        break;
                if (s->fleet) {
                        /* job slots, not devices: Slurm picks the node and the NPU */
                        if (scheduler_running(s) >= (size_t)config(s)->fleet.max_jobs ||
                            queue_depth(s->deps.queue) == 0 || !fleet_room_to_start(s))
                                break;
                        slot = 0;
                } else {
                        r = device_pool_acquire(s->deps.devices, &slot);
                        if (r < 0) {
                                if (r == -EAGAIN && queue_depth(s->deps.queue) > 0)
                                        retry_devices_later(s);
                                break;
                        }
                }
                r = queue_claim_next(s->deps.queue,
                                     s->fleet ? -1 : device_pool_id(s->deps.devices, slot), &item);
                if (r < 0) {
                        if (!s->fleet)
                                device_pool_release(s->deps.devices, slot);
                        if (r != -ENOENT)
                                log_error("cannot claim the next queue item: %s", strerror(-r));
                        break;
                }
                run->busy = true;
                run->slot = slot;
                start_item(s, run, item);
                json_decref(item);
        }
        notify_status(s);
}

bool scheduler_cancel(struct scheduler *s, uint64_t item_id)
{
        for (size_t i = 0; i < ARRAY_SIZE(s->running); i++) {
                if (s->running[i].busy && s->running[i].item_id == item_id && s->running[i].fleet) {
                        fleet_cancel_run(&s->running[i]);
                        return true;
                }
                if (s->running[i].busy && s->running[i].item_id == item_id &&
                    s->running[i].episode) {
                        episode_cancel(s->running[i].episode);
                        return true;
                }
        }
        return false;
}

int scheduler_new(const struct scheduler_deps *deps, const struct scheduler_ops *ops,
                  void *userdata, struct scheduler **ret)
{
        /* on the heap: its device slots are large and mostly never touched */
        struct scheduler *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        s->deps = *deps;
        s->ops = *ops;
        s->userdata = userdata;
        s->fleet = ops->config(userdata)->fleet.enabled;
        s->last_progress = time(NULL);
        *ret = s;
        return 0;
}

struct scheduler *scheduler_free(struct scheduler *s)
{
        if (!s)
                return NULL;
        stop_rechecks(s);
        if (s->device_retry)
                event_free(s->device_retry);
        if (s->space_check)
                event_free(s->space_check);
        free(s);
        return NULL;
}

void scheduler_start(struct scheduler *s)
{
        s->last_progress = time(NULL);
        fleet_adopt_all(s);
        scheduler_kick(s);
}

void scheduler_stop(struct scheduler *s)
{
        s->stopping = true;
        /* records are written after every evaluation: stopped episodes resume on restart */
        for (size_t i = 0; i < ARRAY_SIZE(s->running); i++) {
                if (s->running[i].busy && s->running[i].fleet)
                        fleet_stop_run(&s->running[i]);
                if (s->running[i].busy && s->running[i].episode)
                        episode_stop(s->running[i].episode);
                child_cancel(s->running[i].probe);
        }
        stop_rechecks(s);
}

void scheduler_set_paused(struct scheduler *s, bool paused)
{
        s->paused = paused;
}

bool scheduler_paused(const struct scheduler *s)
{
        return s->paused;
}

size_t scheduler_running(const struct scheduler *s)
{
        size_t n = 0;

        for (size_t i = 0; s && i < ARRAY_SIZE(s->running); i++)
                n += s->running[i].busy;
        return n;
}

time_t scheduler_last_progress(const struct scheduler *s)
{
        /*
         * A fleet's head evaluates nothing itself: it waits on Slurm, whose
         * time limit bounds each job, so a job running for hours is no sign
         * of a wedged head.
         */
        return s->fleet ? time(NULL) : s->last_progress;
}

/* Adds "next_probe_s" to each quarantined device of a device_pool_status() list. */
static int annotate_devices(const struct scheduler *s, json_t *devices)
{
        time_t now = time(NULL);
        json_t *v;
        size_t i;

        json_array_foreach(devices, i, v)
        {
                const struct device_recheck *rc =
                    i < ARRAY_SIZE(s->rechecks) ? &s->rechecks[i] : NULL;
                const char *state = json_string_value(json_object_get(v, "state"));
                json_int_t next;
                if (!rc || !state || strcmp(state, "quarantined") != 0)
                        continue;
                if (rc->probe)
                        next = 0;
                else if (rc->next_at)
                        next = rc->next_at > now ? (json_int_t)(rc->next_at - now) : 0;
                else
                        continue;
                if (json_object_set_new(v, "next_probe_s", json_integer(next)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* [{item, device, op_dir, repo, running_s}]; NULL without memory. */
static json_t *running_status(const struct scheduler *s)
{
        json_t *list = json_array();
        int r;

        for (size_t i = 0; list && i < ARRAY_SIZE(s->running); i++) {
                const struct running *run = &s->running[i];
                json_t *entry;
                if (!run->busy)
                        continue;
                entry = json_pack("{s:I, s:s, s:s, s:I}", "item", (json_int_t)run->item_id,
                                  "op_dir", run->op_dir, "repo", run->repo, "running_s",
                                  (json_int_t)(time(NULL) - run->started));
                r = entry ? 0 : -ENOMEM;
                if (r == 0 && s->fleet)
                        r = fleet_run_status(run, entry);
                else if (r == 0)
                        r = json_object_set_new(
                            entry, "device",
                            json_integer(device_pool_id(s->deps.devices, run->slot)));
                if (r < 0 || json_array_append_new(list, entry) < 0) {
                        if (r < 0)
                                json_decref(entry);
                        json_decref(list);
                        return NULL;
                }
        }
        return list;
}

int scheduler_status(const struct scheduler *s, json_t *status)
{
        const struct config *c = config(s);

        if (json_object_set_new(status, "paused", json_boolean(s->paused)) < 0 ||
            json_object_set_new(status, "episodes_done",
                                json_integer((json_int_t)s->episodes_done)) < 0 ||
            json_object_set_new(status, "episodes_failed",
                                json_integer((json_int_t)s->episodes_failed)) < 0 ||
            json_object_set_new(status, "running", running_status(s)) < 0)
                return -ENOMEM;
        if (s->fleet &&
            json_object_set_new(status, "fleet",
                                json_pack("{s:s, s:I, s:I, s:s, s:s?, s:s}", "engine", "slurm",
                                          "jobs_in_flight", (json_int_t)scheduler_running(s),
                                          "max_jobs", (json_int_t)c->fleet.max_jobs, "gres",
                                          c->fleet.gres, "partition", c->fleet.partition,
                                          "shared_dir", c->fleet.shared_dir)) < 0)
                return -ENOMEM;
        if (s->space_paused &&
            json_object_set_new(status, "waiting_for_space",
                                json_pack("{s:s, s:I, s:I}", "state_dir", c->state_dir,
                                          "free_bytes", (json_int_t)s->space_free, "min_free_bytes",
                                          (json_int_t)c->limits.min_free_bytes)) < 0)
                return -ENOMEM;
        return annotate_devices(s, json_object_get(status, "devices"));
}
