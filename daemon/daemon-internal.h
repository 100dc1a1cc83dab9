/* SPDX-License-Identifier: MIT */
/* The daemon's state, shared by its lifecycle (daemon.c) and its control API (control.c). */
#ifndef ASCENDOPT_DAEMON_INTERNAL_H
#define ASCENDOPT_DAEMON_INTERNAL_H

#include "daemon.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "npu/npu.h"

struct event_base;
struct event;
struct store;
struct queue;
struct device_pool;
struct watcher;
struct control;
struct scheduler;
struct publisher;
struct child_runner;
struct npu_evaluator;
struct episode;
struct ascend_env;

/* Threads for git exports and publishing; jobs queued or running at most. */
#define DAEMON_WORKER_THREADS  2
#define DAEMON_MAX_WORKER_JOBS 256

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
        struct worker_pool *workers;   /* git and publishing work, off the loop */
        struct npu_environment env;    /* owns runner and evaluator; borrows store */
        struct ascend_env *ascend_env; /* set_env.sh, loaded once at start-up (ascend) */
        char *ascend_soc;              /* the devices' SoC (ascend) */
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
        /* the cache's and the store's limits (housekeeping in daemon.c) */
        bool housekeeping, housekeeping_again;
};

/* Where a finished episode's operator came from. */
struct published_episode {
        const char *repo;
        const char *branch;
        const char *commit;
        const char *op_dir;
        bool recreate; /* 'ascendopt recreate': replace even someone else's tip */
        /*
         * The queue item being published, or 0 (recreate): its intent is
         * recorded in the queue before the ref moves.  resume is the intent
         * an earlier, interrupted attempt recorded (queue_get_intent), or NULL.
         */
        uint64_t item_id;
        const json_t *resume;
};

/* Hears how a publication ended: r as below, and the summary line. */
typedef void (*daemon_publish_done_fn)(int r, const char *summary, void *userdata);

/*
 * The callbacks the parts of the daemon call it back with (struct
 * scheduler_ops, struct control_ops) take these shapes; userdata is the
 * one the part was made with.  daemon_config_fn gives the config in force:
 * a reload replaces it, so a part never keeps it.  daemon_publish_fn
 * publishes as publisher_publish() (daemon/publishing-internal.h).
 */
typedef const struct config *(*daemon_config_fn)(void *userdata);
typedef int (*daemon_publish_fn)(const struct published_episode *episode, const json_t *record,
                                 daemon_publish_done_fn done, void *done_userdata, char *summary,
                                 size_t summary_size, void *userdata);

/* The configured repo at path (as configured, or its realpath), or NULL (daemon/repos.c). */
const struct config_repo *daemon_find_repo(const struct config *config, const char *path);
/*
 * The ascend backend's start-up (daemon/backend-ascend.c): finds the toolkit, loads
 * set_env.sh once into d->ascend_env, takes the device ids from the config
 * or from `npu-smi info -l` ("auto") into ids (CONFIG_MAX_DEVICES of
 * them), and the SoC from `npu-smi info` into d->ascend_soc.  Logs why it
 * fails and returns -errno (-ENOENT: no toolkit; -ENODEV: no devices).
 */
int daemon_ascend_open(struct daemon *d, int *ids, size_t *ret_n);
void daemon_ascend_release(struct daemon *d);

/*
 * Fault injection for the crash-safety tests (tests/security/s0010,
 * 'make stress'): when $ASCENDOPT_CRASH_AT names step, the daemon logs it
 * and kills itself with SIGKILL right there, as a power cut or an OOM kill
 * would.  The steps of a publication: "episode-done" (the search's record
 * says done, nothing published yet), "intent" (the intent is in the queue,
 * the ref not moved), "ref" (the ref moved, the item's end not recorded).
 * It lives in daemon/publishing.c.
 */
void daemon_crash_point(const char *step);

/*
 * The "repos" of the status: each repo's branch tips and the tip last
 * seen (daemon/repos.c).  It opens every repository, so the control API
 * calls it on a worker thread, with repos copied from the config
 * (borrowed here).
 */
json_t *daemon_repos_status(struct store *store, const struct config_repo *repos, size_t n_repos,
                            const char *prefix);

#endif
