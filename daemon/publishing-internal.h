/* SPDX-License-Identifier: MIT */
/*
 * Publishing finished episodes (daemon/publishing.c): the git work on a
 * worker thread, the intent recorded in the queue before a ref moves, the
 * post_publish_hook, and the sibling refs someone else committed to
 * ("stalled_siblings" in status), which the publisher owns.  It borrows
 * the daemon's handles (struct publisher_deps) and reads the config in
 * force through a callback; the scheduler and the control API reach it
 * only through their ops' publish, which daemon.c points here.
 */
#ifndef ASCENDOPT_DAEMON_PUBLISHING_INTERNAL_H
#define ASCENDOPT_DAEMON_PUBLISHING_INTERNAL_H

#include "daemon-internal.h"

#include <stddef.h>

#include <jansson.h>

struct publisher;
struct store;
struct queue;
struct worker_pool;
struct child_runner;

/* What the publisher borrows from the daemon: each outlives it. */
struct publisher_deps {
        struct store *store; /* the best candidate's files, the report's sources */
        struct queue *queue; /* publishing intents */
        struct worker_pool *workers;
        struct child_runner *runner; /* post_publish_hook */
        const char *ascend_soc;      /* the devices' SoC on the ascend backend, else NULL */
};

/* A publisher with nothing stalled; config(userdata) gives the config in force.  0 or -ENOMEM. */
int publisher_new(const struct publisher_deps *deps, daemon_config_fn config, void *userdata,
                  struct publisher **ret);
struct publisher *publisher_free(struct publisher *pub);

/* The daemon is stopping: no post_publish_hook starts any more. */
void publisher_stop(struct publisher *pub);

/*
 * Publishes a finished episode's best to its sibling branch when it beats
 * the baseline by min_speedup, then starts post_publish_hook.  The git
 * work runs on a worker thread: 0 means done will be called from the
 * loop.  1 means there was nothing to publish, and -errno that it failed
 * before starting; summary says why then and done is never called.  done
 * gets 0, -errno when publishing failed (-ECANCELED: the worker pool went
 * away first), or -EEXIST when someone else committed to the sibling
 * branch, with a summary ("published REF at ID (created)", "not
 * published: ...").  The shape of daemon_publish_fn, the publisher first.
 */
int publisher_publish(struct publisher *pub, const struct published_episode *episode,
                      const json_t *record, daemon_publish_done_fn done, void *userdata,
                      char *summary, size_t summary_size);

/* [{ref, repo, op_dir, message, since}] for status; NULL without memory. */
json_t *publisher_stalled(const struct publisher *pub);

#endif
