/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the daemon share: the shape of a publication, the
 * callbacks' types, and the few plain functions more than one part calls.
 * The parts, and who owns what:
 *
 *   daemon.c          struct daemon, private to it: the config (swapped
 *                     on reload), the loop and signals, the store, queue,
 *                     devices, worker threads, runner, evaluator, LLM
 *                     client and watcher, the watchdog and housekeeping;
 *                     it makes the three parts below and wires them.
 *   scheduler.c       struct scheduler (scheduler-internal.h): the device
 *                     slots and what runs on them, re-probes, the pause,
 *                     the waits for space and for devices, the counters.
 *   control.c         struct control (control-internal.h): the control
 *                     socket and its requests.
 *   publishing.c      struct publisher (publishing-internal.h):
 *                     publications and the stalled sibling refs.
 *   backend-ascend.c  the ascend devices' start-up (below).
 *   repos.c           the repo look-ups (below).
 *
 * Each part borrows the handles it needs (its _deps struct) and reaches
 * the daemon only through callbacks (its _ops struct, or a
 * daemon_config_fn); none sees struct daemon or another part, so calls go
 * one way, from daemon.c down, and back up only through the callbacks.
 */
#ifndef ASCENDOPT_DAEMON_INTERNAL_H
#define ASCENDOPT_DAEMON_INTERNAL_H

#include "daemon.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct event_base;
struct store;
struct child_runner;
struct ascend_env;

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

/* Hears how a publication ended: r and the summary line, as publisher_publish() says. */
typedef void (*daemon_publish_done_fn)(int r, const char *summary, void *userdata);

/*
 * The callbacks the parts of the daemon call it back with (struct
 * scheduler_ops, struct control_ops, publisher_new()) take these shapes;
 * userdata is the one the part was made with.  daemon_config_fn gives the config in force:
 * a reload replaces it, so a part never keeps it.  daemon_publish_fn
 * publishes as publisher_publish() (daemon/publishing-internal.h).
 */
typedef const struct config *(*daemon_config_fn)(void *userdata);
typedef int (*daemon_publish_fn)(const struct published_episode *episode, const json_t *record,
                                 daemon_publish_done_fn done, void *done_userdata, char *summary,
                                 size_t summary_size, void *userdata);

/* The configured repo at path (as configured, or its realpath), or NULL (daemon/repos.c). */
const struct config_repo *daemon_find_repo(const struct config *config, const char *path);

/* What the ascend backend's start-up found; daemon_ascend_release() frees it. */
struct daemon_ascend {
        struct ascend_env *env; /* set_env.sh, loaded once */
        char *soc;              /* the devices' SoC */
};

/*
 * The ascend backend's start-up (daemon/backend-ascend.c), before the
 * daemon serves anything: finds the toolkit, loads set_env.sh once into
 * found->env, takes the device ids from config or from `npu-smi info -l`
 * ("auto") into ids (CONFIG_MAX_DEVICES of them), and the SoC from
 * `npu-smi info` into found->soc.  It runs the tools with runner, turning
 * base's loop until each has answered; config_path names the config in
 * the log.  Logs why it fails and returns -errno (-ENOENT: no toolkit;
 * -ENODEV: no devices).
 */
int daemon_ascend_open(struct event_base *base, struct child_runner *runner,
                       const struct config *config, const char *config_path,
                       struct daemon_ascend *found, int *ids, size_t *ret_n);
void daemon_ascend_release(struct daemon_ascend *found);

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
 * (borrowed here).  NULL without memory.
 */
json_t *daemon_repos_status(struct store *store, const struct config_repo *repos, size_t n_repos,
                            const char *prefix);

#endif
