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
        /* sibling refs someone else committed to: {ref: {repo, op_dir, message, since}} */
        json_t *stalled_siblings;
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
 * publishes as daemon_publish_episode() below.
 */
typedef const struct config *(*daemon_config_fn)(void *userdata);
typedef int (*daemon_publish_fn)(const struct published_episode *episode, const json_t *record,
                                 daemon_publish_done_fn done, void *done_userdata, char *summary,
                                 size_t summary_size, void *userdata);

/*
 * Publishes a finished episode's best to its sibling branch when it beats
 * the baseline by min_speedup, then starts post_publish_hook.  The git
 * work runs on a worker thread: 0 means done will be called from the
 * loop.  1 means there was nothing to publish, and -errno that it failed
 * before starting; summary says why then and done is never called.  done
 * gets 0, -errno when publishing failed, or -EEXIST when someone else
 * committed to the sibling branch, with a summary ("published REF at ID
 * (created)", "not published: ...").
 */
int daemon_publish_episode(struct daemon *d, const struct published_episode *episode,
                           const json_t *record, daemon_publish_done_fn done, void *userdata,
                           char *summary, size_t summary_size);

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
 * The control socket's connections (daemon/control-conns.c): at most max
 * open at once, and at most deadline_s to send a whole request (a request
 * being answered gets more).  full_changed says when the limit is reached
 * and when it is not any more, so that the caller pauses and resumes
 * accepting.  control_conns_open is evhttp's bevcb, with the
 * control_conns as its argument; control_conns_request and
 * control_conns_replied bracket the answering of each request.
 */
struct control_conns;
struct bufferevent;
struct evhttp_request;
typedef void (*control_conns_full_fn)(bool full, void *userdata);
int control_conns_new(struct event_base *base, unsigned max, unsigned deadline_s,
                      control_conns_full_fn full_changed, void *userdata,
                      struct control_conns **ret);
struct control_conns *control_conns_free(struct control_conns *conns);
struct bufferevent *control_conns_open(struct event_base *base, void *conns);
void control_conns_request(struct control_conns *conns, struct evhttp_request *req);
void control_conns_replied(struct control_conns *conns, struct evhttp_request *req);

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

/* Reloads the config from d->config_path; on failure keeps the old one and fills err. */
int daemon_reload(struct daemon *d, char *err, size_t err_size);

/* The status object of 'ascendopt status', all but "repos" (cheap, on the loop). */
json_t *daemon_status(struct daemon *d);

/*
 * The "repos" of the status: each repo's branch tips and the tip last
 * seen (daemon/repos.c).  It opens every repository, so the control API
 * calls it on a worker thread, with repos copied from the config
 * (borrowed here).
 */
json_t *daemon_repos_status(struct store *store, const struct config_repo *repos, size_t n_repos,
                            const char *prefix);

/*
 * Starts the control API: HTTP+JSON on the unix socket of the config,
 * mode 0660.  Mutating requests are accepted only from the daemon's own
 * user, root, or members of the daemon's group (SO_PEERCRED).
 */
int control_start(struct daemon *d, struct control **ret_control, char *err, size_t err_size);
struct control *control_stop(struct control *control);

/*
 * A POST body as the control API takes it: len bytes of text (not read
 * when over CONTROL_MAX_BODY_BYTES; need not end in NUL; none is an empty
 * object) parsed as a JSON object, with the fields the endpoint at path
 * needs checked ("repo" and "op_dir" for /v1/enqueue and /v1/recreate, a
 * plain relative op_dir for enqueue, an integer "id" for /v1/cancel).
 * Returns the object (the caller owns it), or NULL with why saying what is
 * wrong, for a 400 reply.
 */
#define CONTROL_MAX_BODY_BYTES (64 * 1024)
json_t *control_request_body(const char *path, const char *text, size_t len, char *why,
                             size_t why_size);

#endif
