/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's state, shared by its two files and nothing else:
 * scheduler.c (the slots, what runs on them, the episodes on this
 * machine's devices) and scheduler-fleet.c (the episodes run as Slurm
 * jobs, docs/fleet.md).  The rest of the daemon sees scheduler-internal.h.
 */
#ifndef ASCENDOPT_DAEMON_SCHEDULER_SLOTS_H
#define ASCENDOPT_DAEMON_SCHEDULER_SLOTS_H

#include "scheduler-internal.h"

#include "queue/queue.h"

struct event;
struct child;
struct episode;
struct fleet_run;

/* An episode running on a device slot, or as a fleet job in a job slot. */
struct running {
        bool busy;
        uint64_t item_id;
        size_t slot;             /* the device's, in the device pool; unused for a fleet job */
        struct fleet_run *fleet; /* the Slurm job, in the fleet (scheduler-fleet.c); else NULL */
        struct episode *episode;
        char dir[4096]; /* the exported operator, removed when the episode ends */
        char op_dir[1024];
        char repo[1024];
        char branch[256];
        char commit[64];
        time_t started;
        struct scheduler *scheduler;
        struct child *probe; /* the device's health probe, after a run timed out */
        /* kept from the record while its publication runs on a worker */
        bool run_timed_out;
        double base_us, best_us;
        char stop_reason[256];
};

/*
 * A quarantined device is probed again later, with a pause that doubles
 * after each failure (DEVICE_RECHECK_FIRST_S, at most DEVICE_RECHECK_MAX_S):
 * a device that wedged once comes back without a restart.
 */
#define DEVICE_RECHECK_FIRST_S 60
#define DEVICE_RECHECK_MAX_S   3600

struct device_recheck {
        struct scheduler *scheduler;
        struct event *timer;
        struct child *probe;
        unsigned failures; /* re-probes failed since the quarantine */
        time_t next_at;    /* when the timer fires; 0 while none is set */
        char dir[4096];    /* the probe's scratch directory */
};

struct scheduler {
        struct scheduler_deps deps;
        bool fleet;      /* episodes run as Slurm jobs (the config's .fleet at the start) */
        bool fleet_full; /* the shared directory's jobs are at shared_max_bytes (logged once) */
        struct scheduler_ops ops;
        void *userdata;
        struct running running[64];
        struct device_recheck rechecks[64]; /* by device slot */
        bool paused;
        bool stopping;
        uint64_t episodes_done;
        uint64_t episodes_failed;
        time_t last_progress; /* an evaluation finished or an episode started */
        /* while work waits on a device another process holds: retry leasing it */
        struct event *device_retry;
        /* the state dir's file system is short of limits.min_free_bytes: wait for space */
        bool space_paused;
        uint64_t space_free;   /* bytes free when last looked */
        unsigned space_checks; /* looks since the pause, for the backoff */
        struct event *space_check;
};

/* ------------------------------------------------------------ scheduler.c, for the fleet */

const struct config *scheduler_config(const struct scheduler *s);

/*
 * Ends a slot's item in the queue (retry: queued again while attempts
 * are left), then lets the slot go: its folder is removed, and the queue
 * is kicked, or the daemon told while it stops.
 */
void slot_end(struct running *run, enum queue_state end, const char *reason, bool retry);

/* Publishes the finished episode of a slot, then ends it; takes record. */
void slot_publish(struct running *run, json_t *record, const json_t *resume);

/* Lets a slot go, keeping its folder when keep_dir (a job that may still run). */
void slot_let_go(struct running *run, bool keep_dir);

/* ------------------------------------------------------------ scheduler-fleet.c */

/* Submits the slot's exported operator as a Slurm job; the slot ends with the job. */
void fleet_start(struct running *run);

/*
 * At the start: gives each item left running as a Slurm job a slot again
 * and asks Slurm what became of its job.  Without .fleet, such items are
 * queued to run here instead.
 */
void fleet_adopt_all(struct scheduler *s);

/* 'ascendopt cancel' of a job's item (already cancelled in the queue): scancel. */
void fleet_cancel_run(struct running *run);

/* The daemon stops: stop waiting on the job (it runs on) and let the slot go. */
void fleet_stop_run(struct running *run);

/* Adds "job" ({name, id, node, state}) to a running item's status entry. */
int fleet_run_status(const struct running *run, json_t *entry);

/* Frees what the slot's job held; accepts NULL. */
void fleet_run_free(struct fleet_run *fr);

/* Items in flight may not hold more of the shared folder: false, logged, when they do. */
bool fleet_room_to_start(struct scheduler *s);

#endif
