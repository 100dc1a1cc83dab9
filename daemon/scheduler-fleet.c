/* SPDX-License-Identifier: MIT */
/*
 * Episodes as Slurm jobs (docs/fleet.md): with the config's .fleet, a slot
 * of the scheduler is a job in flight rather than a device.  Once the
 * operator is exported into the job's folder under the shared directory,
 * the head writes the job's inputs and script, stores the intent in the
 * queue item, and runs 'sbatch --wait' as a supervised child: it exits when
 * the job ends.  Slurm then says how the job ended (squeue, else sacct),
 * fleet_reconcile() decides, and a completed job is merged into the store
 * in one batch and published like a local episode.  After a restart, each
 * item left running as a job is found again by the job's name; a job
 * still in Slurm's queue is asked about every 30 s, and only then.
 */
#include "scheduler-slots.h"

#include "common/common.h"
#include "config/config.h"
#include "fleet/fleet.h"
#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

/* How often a job the head did not submit itself (adopted after a restart) is asked about. */
#define FLEET_POLL_S 30

/* What a job slot is waiting for. */
enum fleet_wait {
        FLEET_WAIT_NONE,
        FLEET_WAIT_SBATCH,            /* sbatch --wait: the job to end */
        FLEET_WAIT_SQUEUE,            /* Slurm's queue, for the job's state */
        FLEET_WAIT_SACCT,             /* Slurm's accounting, for a job its queue forgot */
        FLEET_WAIT_SACCT_COMPLETIONS, /* sacct -c: the job completion log, without accounting */
        FLEET_WAIT_POLL,              /* the timer, before asking squeue again */
};

struct fleet_run {
        struct running *run;
        char name[64];
        char dir[4096]; /* shared_dir/jobs/<name>; the slot's run->dir until the job ends */
        unsigned cancels;
        enum fleet_wait wait;
        struct child *child;
        struct event *poll;
        bool cancel_asked; /* 'ascendopt cancel': scancel ran */
        char job_id[32];   /* from sbatch --parsable, or Slurm's answer */
};

static struct scheduler *sched(const struct fleet_run *fr)
{
        return fr->run->scheduler;
}

static const struct config_fleet *fleet_config(const struct fleet_run *fr)
{
        return &scheduler_config(sched(fr))->fleet;
}

static void job_log(const struct fleet_run *fr, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void job_log(const struct fleet_run *fr, int level, const char *fmt, ...)
{
        char context[64], text[2048];
        va_list ap;

        snprintf(context, sizeof(context), "episode %" PRIu64, fr->run->item_id);
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        log_msg(level, context, "%s: job %s: %s", fr->run->op_dir, fr->name, text);
}

void fleet_run_free(struct fleet_run *fr)
{
        if (!fr)
                return;
        if (fr->poll)
                event_free(fr->poll);
        free(fr);
}

/*
 * Whether the item is still running in the queue ('ascendopt cancel' ends
 * it there first); reads how many of its jobs were cancelled from Slurm.
 */
static bool item_running(struct fleet_run *fr)
{
        json_t *item = NULL;
        bool running =
            queue_get(sched(fr)->deps.queue, fr->run->item_id, &item) == 0 &&
            strcmp(json_string_value(json_object_get(item, "state")) ?: "", "running") == 0;

        fr->cancels = (unsigned)json_integer_value(json_object_get(item, "fleet_cancels"));
        json_decref(item);
        return running;
}

/* Runs a Slurm command (the site's, unsandboxed) whose end calls done. */
static int slurm_child(struct fleet_run *fr, const char *const *argv, enum fleet_wait wait,
                       child_done_fn done)
{
        struct child_spec spec = {
                .argv = argv,
                .output_cap = 64 * 1024,
                /* sbatch --wait waits as long as the job queues and runs */
                .timeout_s = wait == FLEET_WAIT_SBATCH ? 0 : 120,
        };
        int r = child_start(sched(fr)->deps.runner, &spec, done, fr, &fr->child);

        if (r == 0)
                fr->wait = wait;
        return r;
}

static void ask_squeue(struct fleet_run *fr);
static void decide(struct fleet_run *fr, const struct fleet_slurm_job *job);
static void fleet_node(const char *dir, char *id, size_t id_size, char *node, size_t node_size);

/*
 * A Slurm command of the slot ended: true when the daemon's stop cut it
 * short, and the slot was let go (the job runs on: the next start adopts it).
 */
static bool cut_short(struct fleet_run *fr, const struct child_result *result)
{
        fr->child = NULL;
        if (!result->cancelled)
                return false;
        slot_let_go(fr->run, true);
        return true;
}

static void on_poll(evutil_socket_t fd, short what, void *userdata)
{
        struct fleet_run *fr = userdata;

        (void)fd, (void)what;
        fr->wait = FLEET_WAIT_NONE;
        ask_squeue(fr);
}

/* Asks Slurm again in FLEET_POLL_S: a job the head has no sbatch --wait for, or Slurm down. */
static void poll_later(struct fleet_run *fr)
{
        struct timeval later = { FLEET_POLL_S, 0 };

        if (!fr->poll)
                fr->poll = evtimer_new(sched(fr)->deps.base, on_poll, fr);
        if (!fr->poll) {
                job_log(fr, LOG_ERR, "cannot arm a timer; the item resumes at the next start");
                slot_let_go(fr->run, true);
                return;
        }
        fr->wait = FLEET_WAIT_POLL;
        evtimer_add(fr->poll, &later);
}

/* The job is over for the head: its folder goes with the slot. */
static void end_item(struct fleet_run *fr, enum queue_state end, const char *reason, bool retry)
{
        slot_end(fr->run, end, reason, retry);
}

/* Queues the item again (a job Slurm lost, or one cancelled from outside once). */
static void requeue(struct fleet_run *fr, const char *reason, bool cancelled)
{
        struct running *run = fr->run;
        int r;

        job_log(fr, LOG_WARNING, "%s", reason);
        r = queue_retry_fleet_job(sched(fr)->deps.queue, run->item_id, reason, cancelled);
        if (r < 0)
                job_log(fr, LOG_ERR,
                        "cannot queue the item again (%s); it resumes at the next start",
                        store_last_error(sched(fr)->deps.store));
        slot_let_go(run, r < 0);
}

/*
 * The job left what it measured, learned and found: merge it into the
 * store (once, whatever happens next) and go on as a local episode's end
 * would.  why_failed, when the job failed, is Slurm's word on it.
 */
static void collect(struct fleet_run *fr, const char *why_failed)
{
        struct scheduler *s = sched(fr);
        struct fleet_merged merged;
        struct episode_summary sum;
        json_t *record = NULL, *intent = NULL;
        char out[4200], err[2048], reason[3072];
        int r;

        r = format_path(out, sizeof(out), "%s/out", fr->dir);
        if (r == 0)
                r = fleet_merge(s->deps.store, fr->name, out, &merged, err, sizeof(err));
        if (r == -ENOENT && why_failed) {
                end_item(fr, QUEUE_FAILED, why_failed, false);
                return;
        }
        if (r < 0) {
                snprintf(reason, sizeof(reason), "what the job left cannot be merged: %s", err);
                end_item(fr, QUEUE_FAILED, reason, false);
                return;
        }
        if (!merged.merged_before)
                job_log(fr, LOG_NOTICE,
                        "merged: %zu new results (%zu the store held already), %zu new "
                        "experience entries, %zu updated",
                        merged.results_added, merged.results_known, merged.entries_added,
                        merged.entries_updated);
        r = episode_load(s->deps.store, fr->name, &record);
        if (r < 0 || episode_summary_read(record, &sum) < 0) {
                json_decref(record);
                end_item(fr, QUEUE_FAILED, "the merged record cannot be read", false);
                return;
        }
        if (strcmp(sum.state ?: "", "done") == 0) {
                episode_summary_release(&sum);
                if (queue_get_intent(s->deps.queue, fr->run->item_id, &intent) < 0)
                        intent = NULL;
                s->episodes_done++;
                /* the job's folder goes when the slot ends: nothing to wait on any more */
                slot_publish(fr->run, record, intent);
                json_decref(intent);
                return;
        }
        /* the episode itself failed on the node: its own reason beats Slurm's */
        snprintf(reason, sizeof(reason), "%s%s%s", sum.error_message ?: "failed",
                 why_failed ? " -- " : "", why_failed ?: "");
        s->episodes_failed++;
        episode_summary_release(&sum);
        json_decref(record);
        end_item(fr, QUEUE_FAILED, reason, false);
}

/* The job's state is known: act on it (docs/fleet.md, "Supervision"). */
static void decide(struct fleet_run *fr, const struct fleet_slurm_job *job)
{
        char reason[512];
        enum fleet_step step;

        if (job && job->id[0])
                snprintf(fr->job_id, sizeof(fr->job_id), "%s", job->id);
        if (!item_running(fr)) {
                /* cancelled with 'ascendopt cancel' (scancel ran), or ended elsewhere */
                job_log(fr, LOG_INFO, "its item ended while the job ran; its folder is removed");
                slot_let_go(fr->run, false);
                return;
        }
        step = fleet_reconcile(job, fr->cancels, reason, sizeof(reason));
        switch (step) {
        case FLEET_ADOPT:
                job_log(fr, LOG_INFO, "%s; asked about again in %d s", reason, FLEET_POLL_S);
                poll_later(fr);
                return;
        case FLEET_COLLECT:
                job_log(fr, LOG_NOTICE, "%s", reason);
                collect(fr, NULL);
                return;
        case FLEET_REQUEUE:
                requeue(fr, reason, job && job->state == FLEET_SLURM_CANCELLED);
                return;
        case FLEET_FAIL:
                job_log(fr, LOG_WARNING, "%s", reason);
                if (job && job->state == FLEET_SLURM_CANCELLED)
                        end_item(fr, QUEUE_FAILED, reason, false);
                else
                        collect(fr, reason); /* what it left says more */
                return;
        }
}

/* Slurm has no word on the job: what it left in its folder decides. */
static void decide_from_folder(struct fleet_run *fr)
{
        char path[4300];
        struct fleet_slurm_job done = { .state = FLEET_SLURM_COMPLETED };

        snprintf(done.name, sizeof(done.name), "%s", fr->name);
        snprintf(done.id, sizeof(done.id), "%s", fr->job_id[0] ? fr->job_id : "?");
        if (format_path(path, sizeof(path), "%s/out/result.json", fr->dir) == 0 &&
            access(path, F_OK) == 0) {
                job_log(fr, LOG_INFO, "Slurm no longer knows the job; it left its result");
                collect(fr, NULL);
                return;
        }
        decide(fr, NULL);
}

/* Reads a Slurm answer into job; false when the command failed or does not know the name. */
static bool answer(struct fleet_run *fr, const struct child_result *result,
                   struct fleet_slurm_job *job)
{
        struct fleet_slurm_job jobs[8];
        const struct fleet_slurm_job *found;
        size_t n = 0;

        if (result->exit_code != 0 || !result->out.data ||
            fleet_slurm_parse(result->out.data, jobs, ARRAY_SIZE(jobs), &n) < 0)
                return false;
        found = fleet_slurm_find(jobs, n, fr->name);
        if (found)
                *job = *found;
        return found != NULL;
}

static void on_sacct(const struct child_result *result, void *userdata)
{
        struct fleet_run *fr = userdata;
        struct fleet_slurm_job job;
        const char *argv[] = {
                "sacct", "-c", "-n", "-X", "-P", "-o", "JobName,JobID,State,NodeList,ExitCode",
                NULL,    NULL
        };
        char name_arg[96];

        if (cut_short(fr, result))
                return;
        if (answer(fr, result, &job)) {
                decide(fr, &job);
                return;
        }
        /* no accounting storage: the job completion log may still know it */
        if (fr->wait == FLEET_WAIT_SACCT) {
                snprintf(name_arg, sizeof(name_arg), "--name=%s", fr->name);
                argv[7] = name_arg;
                if (slurm_child(fr, argv, FLEET_WAIT_SACCT_COMPLETIONS, on_sacct) == 0)
                        return;
        }
        decide_from_folder(fr);
}

static void ask_sacct(struct fleet_run *fr)
{
        char name_arg[96];
        const char *argv[] = { "sacct",  "-n", "-X",
                               "-P",     "-o", "JobName,JobID,State,NodeList,ExitCode",
                               name_arg, NULL };

        snprintf(name_arg, sizeof(name_arg), "--name=%s", fr->name);
        if (slurm_child(fr, argv, FLEET_WAIT_SACCT, on_sacct) < 0)
                decide_from_folder(fr);
}

static void on_squeue(const struct child_result *result, void *userdata)
{
        struct fleet_run *fr = userdata;
        struct fleet_slurm_job job;
        char what[128];

        if (cut_short(fr, result))
                return;
        fr->wait = FLEET_WAIT_NONE;
        if (result->exit_code != 0) {
                /* slurmctld down or unreachable: the job may run on; ask later */
                job_log(fr, LOG_WARNING, "squeue failed (%s): %.300s; asked again in %d s",
                        child_result_describe(result, what, sizeof(what)), result->err.data ?: "",
                        FLEET_POLL_S);
                poll_later(fr);
                return;
        }
        if (answer(fr, result, &job))
                decide(fr, &job);
        else
                ask_sacct(fr);
}

/* squeue -t all knows a job while it queues, runs, and MinJobAge (300 s) after it ended. */
static void ask_squeue(struct fleet_run *fr)
{
        char name_arg[96];
        const char *argv[] = { "squeue", "-h", "-t", "all", name_arg, "-o", "%j|%i|%T|%N", NULL };
        int r;

        snprintf(name_arg, sizeof(name_arg), "--name=%s", fr->name);
        r = slurm_child(fr, argv, FLEET_WAIT_SQUEUE, on_squeue);
        if (r < 0) {
                job_log(fr, LOG_WARNING, "cannot run squeue: %s; asked again in %d s",
                        child_strerror(r), FLEET_POLL_S);
                poll_later(fr);
        }
}

static void on_sbatch(const struct child_result *result, void *userdata)
{
        struct fleet_run *fr = userdata;
        char what[128], reason[1024];

        if (cut_short(fr, result))
                return;
        fr->wait = FLEET_WAIT_NONE;
        if (result->out.data && result->out.data[0]) {
                /* --parsable: "<id>" or "<id>;<cluster>" */
                snprintf(fr->job_id, sizeof(fr->job_id), "%.*s",
                         (int)strcspn(result->out.data, ";\n"), result->out.data);
        } else if (result->exit_code != 0) {
                /* refused at submission: nothing runs, and the reason is sbatch's */
                snprintf(reason, sizeof(reason), "sbatch refused the job (%s): %.600s",
                         child_result_describe(result, what, sizeof(what)), result->err.data ?: "");
                reason[strcspn(reason, "\n")] = '\0';
                snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
                         "; check .fleet's partition, gres and account in %s ('ascendopt "
                         "doctor --config %s' checks them against the cluster)",
                         scheduler_config(sched(fr))->source, scheduler_config(sched(fr))->source);
                if (item_running(fr))
                        requeue(fr, reason, false);
                else
                        slot_let_go(fr->run, false);
                return;
        }
        /*
         * Its exit status does not say how the job ended: 1 for a cancelled
         * job and a failed one alike, 0 for one cancelled while it was
         * pending.  Slurm's queue does.
         */
        ask_squeue(fr);
}

static struct fleet_run *new_run(struct running *run, const char *name, const char *dir)
{
        struct fleet_run *fr = calloc(1, sizeof(*fr));

        if (!fr)
                return NULL;
        fr->run = run;
        snprintf(fr->name, sizeof(fr->name), "%s", name);
        snprintf(fr->dir, sizeof(fr->dir), "%s", dir);
        run->fleet = fr;
        return fr;
}

/* The OpDef type name of the exported operator, for its memo results; "" when unknown. */
static void op_name(const char *opdir, char *buf, size_t size)
{
        struct npu_manifest *m = NULL;
        char err[512];

        buf[0] = '\0';
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) == 0)
                snprintf(buf, size, "%s", m->name);
        npu_manifest_free(m);
}

/* The command the node runs; argv's strings live in words. */
static int job_argv(const struct fleet_run *fr, const char *opdir, char words[][4300],
                    const char **argv, size_t max)
{
        const struct config *c = scheduler_config(sched(fr));
        size_t n = 0;
        int r = 0;

#define WORD(...)                                                                                 \
        do {                                                                                      \
                if (r == 0 && n + 1 < max &&                                                      \
                    (size_t)snprintf(words[n], sizeof(words[n]), __VA_ARGS__) < sizeof(words[n])) \
                        argv[n] = words[n], n++;                                                  \
                else                                                                              \
                        r = -ENAMETOOLONG;                                                        \
        } while (0)
        /* the nodes run the ascendopt installed beside the head's ascendoptd */
        r = program_relative_path(words[0], sizeof(words[0]), "ascendopt");
        if (r == 0)
                argv[n] = words[n], n++;
        WORD("optimize");
        WORD("%s", opdir);
        WORD("--backend");
        WORD("%s", config_backend_name(c->backend));
        if (c->platform_set) {
                WORD("--platform");
                WORD("%s", c->platform);
        }
        WORD("--seed");
        WORD("1");
        WORD("--budget");
        WORD("%d", c->episode.budget);
        if (c->episode.rounds > 0) {
                WORD("--rounds");
                WORD("%d", c->episode.rounds);
        }
        WORD("--stage1-steps");
        WORD("%d", c->episode.stage1_steps);
        WORD("--stage2-steps");
        WORD("%d", c->episode.stage2_steps);
        if (c->episode.turn_patience > 0) {
                WORD("--turn-patience");
                WORD("%d", c->episode.turn_patience);
        }
        WORD("--first-stage");
        WORD("%d", c->episode.first_stage == 2 ? 2 : 1);
        WORD("--state-dir");
        WORD("%s/state", fr->dir);
        WORD("--bank");
        WORD("%s/bank.json", fr->dir);
        WORD("--memo");
        WORD("%s/memo.jsonl", fr->dir);
        WORD("--exchange");
        WORD("%s/out", fr->dir);
        WORD("--out");
        WORD("%s/best", fr->dir);
#undef WORD
        argv[n] = NULL;
        return r;
}

/* Writes the job's inputs and script; err says what failed. */
static int prepare(struct fleet_run *fr, char *err, size_t err_size)
{
        struct scheduler *s = sched(fr);
        const struct config_fleet *f = fleet_config(fr);
        static char words[40][4300]; /* the loop's thread only */
        const char *argv[40];
        struct fleet_inputs in;
        char opdir[4300], op[256];
        int r;

        r = format_path(opdir, sizeof(opdir), "%s/repo/%s", fr->dir, fr->run->op_dir);
        if (r < 0) {
                snprintf(err, err_size, "shared_dir is too long");
                return r;
        }
        op_name(opdir, op, sizeof(op));
        r = fleet_write_inputs(s->deps.store, fr->dir, op[0] ? op : NULL, &in, err, err_size);
        if (r < 0)
                return r;
        r = job_argv(fr, opdir, words, argv, ARRAY_SIZE(argv));
        if (r < 0) {
                snprintf(err, err_size, "the job's command line is too long");
                return r;
        }
        /* the sim too: two jobs on one node must not lease the same simulated device */
        r = fleet_write_script(fr->dir, argv, f->device_env, err, err_size);
        if (r == 0)
                job_log(fr, LOG_INFO, "given %zu bank entries and %zu memo results of %s",
                        in.bank_entries, in.memo_results, op[0] ? op : "(no manifest)");
        return r;
}

/* Runs sbatch --wait for the job in fr's folder. */
static int submit(struct fleet_run *fr, char *err, size_t err_size)
{
        char **argv = NULL;
        int r = fleet_sbatch_argv(fleet_config(fr), "sbatch", fr->name, fr->dir, &argv);

        if (r == 0)
                r = slurm_child(fr, (const char *const *)argv, FLEET_WAIT_SBATCH, on_sbatch);
        if (r < 0)
                snprintf(err, err_size, "cannot run sbatch: %s", child_strerror(r));
        fleet_argv_free(argv);
        return r;
}

void fleet_start(struct running *run)
{
        struct scheduler *s = run->scheduler;
        struct fleet_run *fr;
        json_t *intent = NULL;
        char name[64], err[2048];
        int r;

        snprintf(name, sizeof(name), "%s", strrchr(run->dir, '/') + 1);
        fr = new_run(run, name, run->dir);
        if (!fr) {
                slot_end(run, QUEUE_FAILED, "out of memory", true);
                return;
        }
        if (!item_running(fr)) {
                slot_let_go(run, false); /* cancelled while it was exported */
                return;
        }
        r = prepare(fr, err, sizeof(err));
        if (r < 0) {
                slot_end(run, QUEUE_FAILED, err, false);
                return;
        }
        /* the intent first: a head that dies after sbatch finds the job by its name */
        intent = json_pack("{s:s, s:s, s:I}", "name", fr->name, "dir", fr->dir, "attempt",
                           (json_int_t)strtoul(strrchr(fr->name, '-') + 1, NULL, 10));
        r = intent ? queue_set_fleet_job(s->deps.queue, run->item_id, intent) : -ENOMEM;
        json_decref(intent);
        if (r < 0) {
                snprintf(err, sizeof(err), "cannot store the job's intent: %s",
                         r == -ENOMEM ? strerror(ENOMEM) : store_last_error(s->deps.store));
                slot_end(run, QUEUE_FAILED, err, true);
                return;
        }
        r = submit(fr, err, sizeof(err));
        if (r < 0) {
                requeue(fr, err, false);
                return;
        }
        job_log(fr, LOG_NOTICE, "sbatch started (gres %s%s%s)", fleet_config(fr)->gres,
                fleet_config(fr)->partition ? ", partition " : "",
                fleet_config(fr)->partition ?: "");
}

/* Gives a slot to an item left running as a job, and asks Slurm about the job. */
static void adopt(struct scheduler *s, struct running *run, const json_t *item)
{
        const json_t *job = json_object_get(item, "fleet_job");
        const char *name = json_string_value(json_object_get(job, "name"));
        const char *dir = json_string_value(json_object_get(job, "dir"));
        const char *str;
        struct fleet_run *fr;
        json_t *record = NULL;

        run->busy = true;
        run->scheduler = s;
        run->item_id = (uint64_t)json_integer_value(json_object_get(item, "id"));
        run->started = (time_t)json_integer_value(json_object_get(item, "started"));
        str = json_string_value(json_object_get(item, "op_dir"));
        snprintf(run->op_dir, sizeof(run->op_dir), "%s", str ?: "?");
        str = json_string_value(json_object_get(item, "repo"));
        snprintf(run->repo, sizeof(run->repo), "%s", str ?: "?");
        str = json_string_value(json_object_get(item, "branch"));
        snprintf(run->branch, sizeof(run->branch), "%s", str ?: "?");
        str = json_string_value(json_object_get(item, "commit"));
        snprintf(run->commit, sizeof(run->commit), "%s", str ?: "?");
        if (!name || !dir ||
            snprintf(run->dir, sizeof(run->dir), "%s", dir) >= (int)sizeof(run->dir)) {
                slot_end(run, QUEUE_FAILED, "its fleet_job in the queue is malformed", true);
                return;
        }
        fr = new_run(run, name, dir);
        if (!fr) {
                slot_let_go(run, true);
                return;
        }
        /* merged before the restart: only its publication was left to do */
        if (episode_load(s->deps.store, name, &record) == 0) {
                json_decref(record);
                job_log(fr, LOG_NOTICE, "merged before the restart; publishing what it found");
                collect(fr, NULL);
                return;
        }
        job_log(fr, LOG_NOTICE, "left running by the last start; asking Slurm about it");
        ask_squeue(fr);
}

void fleet_adopt_all(struct scheduler *s)
{
        json_t *items = NULL, *item;
        size_t i, slot = 0;

        if (queue_list(s->deps.queue, QUEUE_RUNNING, 4096, &items) < 0) {
                log_error("cannot list the running items to find their Slurm jobs: %s",
                          store_last_error(s->deps.store));
                return;
        }
        json_array_foreach(items, i, item)
        {
                if (!json_object_get(item, "fleet_job"))
                        continue;
                if (!s->fleet) {
                        uint64_t id = (uint64_t)json_integer_value(json_object_get(item, "id"));
                        log_warning("item %" PRIu64 " ran as Slurm job %s, but the config has no "
                                    ".fleet now: the job is left to Slurm and the item is queued "
                                    "to run here",
                                    id,
                                    json_string_value(
                                        json_object_get(json_object_get(item, "fleet_job"), "name"))
                                        ?: "?");
                        queue_retry_fleet_job(s->deps.queue, id, "the config has no .fleet now",
                                              false);
                        continue;
                }
                while (slot < ARRAY_SIZE(s->running) && s->running[slot].busy)
                        slot++;
                if (slot == ARRAY_SIZE(s->running)) {
                        log_error("more jobs in flight than slots: the rest are adopted at the "
                                  "next start");
                        break;
                }
                adopt(s, &s->running[slot], item);
        }
        json_decref(items);
}

static void on_scancel_sent(const struct child_result *result, void *userdata)
{
        char what[128];

        (void)userdata;
        if (!result->cancelled && result->exit_code != 0)
                log_warning("scancel failed (%s): %.300s",
                            child_result_describe(result, what, sizeof(what)),
                            result->err.data ?: "");
}

void fleet_cancel_run(struct running *run)
{
        struct fleet_run *fr = run->fleet;
        char name_arg[96];
        const char *argv[] = { "scancel", name_arg, NULL };
        struct child_spec spec = { .argv = argv, .timeout_s = 60, .output_cap = 4096 };

        if (fr->cancel_asked)
                return;
        fr->cancel_asked = true;
        snprintf(name_arg, sizeof(name_arg), "--name=%s", fr->name);
        job_log(fr, LOG_NOTICE, "cancelled by request: scancel");
        if (child_start(sched(fr)->deps.runner, &spec, on_scancel_sent, NULL, NULL) < 0)
                job_log(fr, LOG_WARNING, "cannot run scancel: the job runs to its end");
        if (fr->wait == FLEET_WAIT_POLL) {
                /* nothing else waits on the job: the item is cancelled, so the slot ends */
                event_del(fr->poll);
                decide(fr, NULL);
        }
        /* sbatch --wait ends with the job, squeue and sacct with an answer: each sees the item cancelled */
}

void fleet_stop_run(struct running *run)
{
        struct fleet_run *fr = run->fleet;

        if (!fr)
                return;
        if (fr->child) {
                child_cancel(fr->child); /* its callback lets the slot go */
                return;
        }
        if (fr->wait == FLEET_WAIT_POLL) {
                event_del(fr->poll);
                slot_let_go(run, true);
        }
}

/* "<job id> <node>", as job.sh writes it where it starts, into id and node ("" when absent). */
static void fleet_node(const char *dir, char *id, size_t id_size, char *node, size_t node_size)
{
        char path[4300], *text = NULL, *space;
        size_t len = 0;

        if (id_size)
                id[0] = '\0';
        node[0] = '\0';
        if (format_path(path, sizeof(path), "%s/node", dir) < 0 ||
            read_untrusted_file(path, 1024, &text, &len) < 0)
                return;
        text[strcspn(text, "\n")] = '\0';
        space = strchr(text, ' ');
        if (space) {
                *space = '\0';
                snprintf(node, node_size, "%s", space + 1);
        }
        if (id_size)
                snprintf(id, id_size, "%s", text);
        free(text);
}

int fleet_run_status(const struct running *run, json_t *entry)
{
        const struct fleet_run *fr = run->fleet;
        char id[32], node[256];
        const char *state;
        json_t *job;

        if (!fr)
                return json_object_set_new(entry, "job", json_pack("{s:s}", "state", "exporting"));
        fleet_node(fr->dir, id, sizeof(id), node, sizeof(node));
        if (!id[0])
                snprintf(id, sizeof(id), "%s", fr->job_id);
        /* sbatch --parsable --wait prints the id at submission, long before it exits */
        if (!id[0] && fr->wait == FLEET_WAIT_SBATCH) {
                const char *out = child_stdout_so_far(fr->child);
                size_t n = strspn(out, "0123456789");
                if (n > 0 && n < sizeof(id))
                        snprintf(id, sizeof(id), "%.*s", (int)n, out);
        }
        state = fr->wait == FLEET_WAIT_SQUEUE || fr->wait == FLEET_WAIT_SACCT ||
                        fr->wait == FLEET_WAIT_SACCT_COMPLETIONS
                    ? "asking slurm"
                : node[0]                     ? "running"
                : fr->wait == FLEET_WAIT_NONE ? "merging"
                                              : "pending";
        job = json_pack("{s:s, s:s, s:s, s:s}", "name", fr->name, "id", id, "node", node, "state",
                        state);
        return json_object_set_new(entry, "job", job) < 0 ? -ENOMEM : 0;
}

/* Bytes the regular files under the shared directory's jobs/ take. */
static uint64_t jobs_bytes;

static int count_file(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void)path, (void)ftw;
        if (flag == FTW_F)
                jobs_bytes += (uint64_t)st->st_blocks * 512;
        return 0;
}

bool fleet_room_to_start(struct scheduler *s)
{
        const struct config_fleet *f = &scheduler_config(s)->fleet;
        char jobs[4200];

        if (format_path(jobs, sizeof(jobs), "%s/jobs", f->shared_dir) < 0)
                return false;
        jobs_bytes = 0;
        if (nftw(jobs, count_file, 16, FTW_PHYS) < 0 && errno != ENOENT)
                return true; /* unreadable: sbatch's own errors will say more */
        if (jobs_bytes < f->shared_max_bytes) {
                s->fleet_full = false;
                return true;
        }
        if (s->fleet_full)
                return false; /* said once */
        s->fleet_full = true;
        log_warning("%s holds %" PRIu64 " MiB of jobs, at .fleet.shared_max_bytes (%" PRIu64
                    " MiB): no job is submitted until running ones end or old folders are "
                    "removed (then 'ascendopt resume')",
                    jobs, jobs_bytes >> 20, f->shared_max_bytes >> 20);
        return false;
}
