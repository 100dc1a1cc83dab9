/* SPDX-License-Identifier: MIT */
/*
 * The queue of optimization episodes, persisted in the store.  Items are
 * keyed twice: by id (the record) and, while queued, by (priority,
 * sequence) so that claiming the next one is one ordered seek.  A newer
 * commit of the same (repo, branch, operator) supersedes a queued older
 * one.  Every state change is one synced batch.  Library code: no logging.
 */
#ifndef ASCENDOPT_QUEUE_H
#define ASCENDOPT_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct store;
struct store_batch;

enum queue_priority {
        QUEUE_PRIORITY_COMMIT = 0, /* found by a watcher */
        QUEUE_PRIORITY_MANUAL = 1, /* asked for with 'ascendopt enqueue' */
};

enum queue_state {
        QUEUE_QUEUED,
        QUEUE_RUNNING,
        QUEUE_DONE,
        QUEUE_FAILED,
        QUEUE_CANCELLED,
        QUEUE_SUPERSEDED,
};

const char *queue_state_name(enum queue_state state);
int queue_state_from_name(const char *name, enum queue_state *ret);

struct queue;

struct queue_options {
        uint64_t max_items;    /* queued items at most; 0: 10000 */
        unsigned max_attempts; /* runs per item before it fails for good; 0: 3 */
};

/*
 * Opens the queue on a store (borrowed).  Items left running by a previous
 * process go back to the front of the queue, so their episodes resume;
 * ret_recovered (may be NULL) says how many.  An item running as a fleet
 * job (queue_set_fleet_job) stays running: its job may still run on a
 * node, and the daemon asks Slurm what became of it.
 */
int queue_open(struct store *store, const struct queue_options *options, struct queue **ret_queue,
               unsigned *ret_recovered);
struct queue *queue_close(struct queue *queue);

struct queue_request {
        const char *repo;
        const char *branch;
        const char *op_dir; /* relative to the repo root */
        const char *commit; /* hex */
        enum queue_priority priority;
};

/*
 * Adds an item to batch (the caller commits it, typically together with
 * the watcher's new tip).  A queued item for the same repo, branch and
 * op_dir is marked superseded in the same batch.  *ret_running_older
 * (may be NULL) receives the id of a running item for an older commit of
 * the same operator, or 0, so the caller can cancel it if configured to.
 * -ENOSPC when max_items are queued already.
 */
int queue_enqueue(struct queue *queue, struct store_batch *batch, const struct queue_request *req,
                  uint64_t *ret_id, uint64_t *ret_running_older);

/*
 * Counts the queued items again from the store, after a batch holding
 * queue_enqueue could not be committed (queue_depth() counted them).
 */
int queue_recount(struct queue *queue);

/* Like queue_enqueue, in a batch of its own that is committed before it returns. */
int queue_enqueue_now(struct queue *queue, const struct queue_request *req, uint64_t *ret_id,
                      uint64_t *ret_running_older);

/*
 * Takes the queued item with the highest priority, oldest first, marks it
 * running on device and commits that.  -ENOENT when nothing is queued.
 * *ret_item is the record (a new reference).
 */
int queue_claim_next(struct queue *queue, int device, json_t **ret_item);

/*
 * Ends a running item.  With retry set and attempts left, it goes back to
 * the queue instead (behind items of its priority); the reason is kept
 * either way.  -ENOENT for an unknown id, -EINVAL when it is not running.
 */
int queue_finish(struct queue *queue, uint64_t id, enum queue_state state, const char *reason,
                 bool retry);

/*
 * A running item is a Slurm job now (docs/fleet.md): job ({name, attempt,
 * ...}) becomes the item's "fleet_job", in a synced batch, before sbatch
 * runs.  It goes when the item ends.  -EINVAL when the item is not running.
 */
int queue_set_fleet_job(struct queue *queue, uint64_t id, const json_t *job);

/*
 * Ends a fleet item's job and queues the item again while attempts are
 * left (else it fails with reason), like queue_finish(FAILED, retry);
 * cancelled adds one to its "fleet_cancels" in the same batch.
 */
int queue_retry_fleet_job(struct queue *queue, uint64_t id, const char *reason, bool cancelled);

/* Cancels a queued or running item (running ones: the caller stops the episode). */
int queue_cancel(struct queue *queue, uint64_t id, const char *reason);

/*
 * Publishing a running item records what it is about to write (a JSON
 * object: ref, previous tip, new commit) before the ref moves, in a synced
 * batch of its own; after a crash the restarted daemon reads it back and
 * finishes that publication instead of making another.  The intent goes
 * when the item ends (queue_finish, queue_cancel).  These two touch only
 * the store, so a worker thread may call them.  queue_get_intent: -ENOENT
 * when there is none.
 */
int queue_put_intent(struct queue *queue, uint64_t id, const json_t *intent);
int queue_get_intent(struct queue *queue, uint64_t id, json_t **ret_intent);

/* The record of one item; -ENOENT when unknown. */
int queue_get(struct queue *queue, uint64_t id, json_t **ret_item);

/* Items in a state (or every item when state is negative), oldest first, at most limit. */
int queue_list(struct queue *queue, int state, size_t limit, json_t **ret_items);

/* Number of items queued now. */
uint64_t queue_depth(const struct queue *queue);

/* ------------------------------------------------------------ devices */

/*
 * The devices episodes run on, one measurement per device at a time.  A
 * lease is also an flock on <lock_dir>/<backend>-device-<id>.lock, so two
 * daemons, or a daemon and a foreground 'ascendopt optimize', never measure
 * on the same device at once.
 */
struct device_pool;

#define DEVICE_POOL_MAX 64

/*
 * ids are the device ids (0..n-1 for the sim).  lock_dir NULL picks
 * $ASCENDOPT_LOCK_DIR when set, else /run/lock/ascendopt when writable, else $XDG_RUNTIME_DIR/ascendopt/locks,
 * else /tmp/ascendopt-locks-<uid>; it is created.
 */
int device_pool_new(const char *backend, const int *ids, size_t n, const char *lock_dir,
                    struct device_pool **ret_pool);
struct device_pool *device_pool_free(struct device_pool *pool);

/*
 * Leases a free, healthy device that no other process holds; *ret_slot is
 * its index in the pool.  -EAGAIN when a device this pool does not lease
 * is held by another process (nothing tells us when it lets go: retry
 * later); -EBUSY when every healthy device is leased here.  Never blocks.
 */
int device_pool_acquire(struct device_pool *pool, size_t *ret_slot);
void device_pool_release(struct device_pool *pool, size_t slot);

/* Takes a device out of service (e.g. after a failed health probe) until reinstated. */
void device_pool_quarantine(struct device_pool *pool, size_t slot, const char *reason);
void device_pool_reinstate(struct device_pool *pool, size_t slot);

size_t device_pool_size(const struct device_pool *pool);
int device_pool_id(const struct device_pool *pool, size_t slot);

/*
 * [{id, state: free|leased|held_elsewhere|quarantined, reason?}] for status;
 * NULL when out of memory.
 */
json_t *device_pool_status(const struct device_pool *pool);

#endif
