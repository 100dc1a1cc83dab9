/* SPDX-License-Identifier: MIT */
/*
 * The control API (daemon/control.c, with control-conns.c and
 * control-request.c): HTTP+JSON on the config's unix socket.  It reads the
 * queue and the store through the handles it borrows (struct
 * control_deps) and changes the daemon only through callbacks (struct
 * control_ops): it never sees struct daemon nor the scheduler.
 */
#ifndef ASCENDOPT_DAEMON_CONTROL_INTERNAL_H
#define ASCENDOPT_DAEMON_CONTROL_INTERNAL_H

#include "daemon-internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct control;
struct event_base;
struct store;
struct queue;
struct worker_pool;

/* What the control API borrows from the daemon: each outlives it. */
struct control_deps {
        struct event_base *base;
        struct store *store; /* episode records and reports, the status's recorded tips */
        struct queue *queue;
        struct worker_pool *workers; /* the status's "repos" and recreate's git work */
        const char *ascend_soc;      /* the devices' SoC on the ascend backend, else NULL */
};

/* What the control API asks of the daemon; each gets control_start()'s userdata. */
struct control_ops {
        /* The config in force (a reload replaces it). */
        daemon_config_fn config;
        /* The status object of 'ascendopt status', all but "repos"; NULL without memory. */
        json_t *(*status)(void *userdata);
        /* Reloads the config; on failure keeps the old one and fills err (-errno). */
        int (*reload)(char *err, size_t err_size, void *userdata);
        /* Queued work may start ('ascendopt enqueue', resume). */
        void (*kick)(void *userdata);
        /* Cancels the running episode of a queue item; false when none runs it. */
        bool (*cancel)(uint64_t item_id, void *userdata);
        /* Whether starting episodes is paused, and pausing or resuming it. */
        bool (*paused)(void *userdata);
        void (*set_paused)(bool paused, void *userdata);
        /* Publishes a finished episode again ('ascendopt recreate'; daemon_publish_fn). */
        daemon_publish_fn publish;
};

/*
 * Starts the control API: HTTP+JSON on the unix socket of the config,
 * mode 0660.  Mutating requests are accepted only from the daemon's own
 * user, root, or members of the daemon's group (SO_PEERCRED).  -errno with
 * err filled when it cannot.
 */
int control_start(const struct control_deps *deps, const struct control_ops *ops, void *userdata,
                  struct control **ret_control, char *err, size_t err_size);
struct control *control_stop(struct control *control);

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
 * A POST body as the control API takes it (daemon/control-request.c): len
 * bytes of text (not read when over CONTROL_MAX_BODY_BYTES; need not end
 * in NUL; none is an empty object) parsed as a JSON object, with the
 * fields the endpoint at path needs checked ("repo" and "op_dir" for
 * /v1/enqueue and /v1/recreate, a plain relative op_dir for enqueue, an
 * integer "id" for /v1/cancel).  Returns the object (the caller owns it),
 * or NULL with why saying what is wrong, for a 400 reply.
 */
#define CONTROL_MAX_BODY_BYTES (64 * 1024)
json_t *control_request_body(const char *path, const char *text, size_t len, char *why,
                             size_t why_size);

#endif
