/* SPDX-License-Identifier: MIT */
/*
 * The scheduler (daemon/scheduler.c): one episode per free device slot.
 * It owns what runs on the slots (the episodes, the health probes after a
 * run timed out and the re-probes of quarantined devices), the pause, the
 * wait for disk space and for devices another process holds, and the
 * episode counters.  It borrows the daemon's handles (struct
 * scheduler_deps) and asks the daemon for the rest through callbacks
 * (struct scheduler_ops): it never sees struct daemon, and the daemon
 * reads its state only through the functions below.
 */
#ifndef ASCENDOPT_DAEMON_SCHEDULER_INTERNAL_H
#define ASCENDOPT_DAEMON_SCHEDULER_INTERNAL_H

#include "daemon-internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

struct scheduler;
struct event_base;
struct queue;
struct device_pool;
struct store;
struct worker_pool;
struct child_runner;
struct npu_evaluator;
struct llm_client;

/* What the scheduler borrows from the daemon: each outlives it. */
struct scheduler_deps {
        struct event_base *base;
        struct queue *queue;
        struct device_pool *devices;
        struct store *store;
        struct worker_pool *workers;     /* exports the operators */
        struct child_runner *runner;     /* the devices' health probes */
        struct npu_evaluator *evaluator; /* NULL: operators are queued but nothing runs */
        struct llm_client *llm;          /* NULL: rules only */
        const char *prompts_dir;         /* the LLM's prompt templates, with llm */
        const char *llm_model;           /* the models the client was made with */
        const char *llm_embedding_model;
};

/* What the scheduler asks of the daemon; each gets scheduler_new()'s userdata. */
struct scheduler_ops {
        /* The config in force (a reload replaces it). */
        daemon_config_fn config;
        /* Publishes a finished episode (daemon_publish_fn). */
        daemon_publish_fn publish;
        /* An episode's end is recorded: what it added to the cache and the store may be trimmed. */
        void (*housekeeping)(void *userdata);
        /*
         * A slot was let go without a next episode: the daemon is stopping
         * (the last one ends the loop), or the worker pool went away.
         */
        void (*episode_ended)(void *userdata);
        /* An episode ended and the scheduler kicked the queue: heap pages may go back. */
        void (*trim_memory)(void *userdata);
};

/* The scheduler, idle; 0 or -ENOMEM. */
int scheduler_new(const struct scheduler_deps *deps, const struct scheduler_ops *ops,
                  void *userdata, struct scheduler **ret);
/* Frees its timers and cancels the re-probes; what still runs is not waited for. */
struct scheduler *scheduler_free(struct scheduler *s);

/* The watchdog's clock starts now, and queued episodes start. */
void scheduler_start(struct scheduler *s);

/* Starts queued episodes on free devices unless paused or stopping; safe to call any time. */
void scheduler_kick(struct scheduler *s);

/*
 * The daemon stops: nothing starts any more, running episodes stop after
 * their evaluation in flight (they resume on restart), probes are
 * cancelled and re-probes end.  Every slot let go from now on calls
 * ops->episode_ended.
 */
void scheduler_stop(struct scheduler *s);

/* Cancels the running episode of a queue item; false when none runs it. */
bool scheduler_cancel(struct scheduler *s, uint64_t item_id);

/* Pauses or resumes starting episodes ('ascendopt pause'); scheduler_kick() resumes. */
void scheduler_set_paused(struct scheduler *s, bool paused);
bool scheduler_paused(const struct scheduler *s);

/* How many slots are busy (an episode, its export, publication or probe); 0 for NULL. */
size_t scheduler_running(const struct scheduler *s);

/*
 * When an evaluation last finished or an episode last started (the
 * watchdog's measure); now, with the fleet, whose jobs Slurm bounds.
 */
time_t scheduler_last_progress(const struct scheduler *s);

/*
 * Adds the scheduler's part of 'ascendopt status' to status: "paused",
 * "waiting_for_space" (while the state dir is short of space),
 * "episodes_done", "episodes_failed", "running" ([{item, device, op_dir,
 * repo, running_s}]), and "next_probe_s" to each quarantined device of
 * its "devices".  0, or -ENOMEM with status partly filled.
 */
int scheduler_status(const struct scheduler *s, json_t *status);

#endif
