/* SPDX-License-Identifier: MIT */
/*
 * The store: the single owner of durable state, in RocksDB column families
 * (docs/design.md, "The store").  Every multi-key change goes through one synced
 * write batch, so a kill -9 at any point loses nothing that was committed.
 * Only one process opens a store at a time; RocksDB's lock enforces it.
 * Library code: returns -errno plus a message, never logs.
 */
#ifndef ASCENDOPT_STORE_H
#define ASCENDOPT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/common.h"

/*
 * The room the store keeps free on its file system: RocksDB (as Debian
 * builds it) aborts when one of its own writes finds the disk full, so the
 * store refuses to open or write below this.  See store.c.
 */
#define STORE_MIN_FREE_BYTES (32ull << 20)

/* Bytes free for an unprivileged writer on the file system holding dir. */
uint64_t store_free_bytes(const char *dir);

/* Bumped whenever the layout of keys or values changes; see store_open(). */
#define STORE_SCHEMA_VERSION 1

enum store_family {
        STORE_META,       /* schema version and store-wide counters */
        STORE_REPOS,      /* last seen tip per repo and branch */
        STORE_QUEUE,      /* queue items by (state, priority, sequence) and an index by id */
        STORE_EPISODES,   /* episode records and trajectories */
        STORE_CANDIDATES, /* results keyed by candidate identity */
        STORE_BLOBS,      /* content-addressed source texts, compressed */
        STORE_EXPERIENCE, /* experience bank entries and statistics */
        STORE_FAMILY_COUNT,
};

struct store;
struct store_batch;

const char *store_family_name(enum store_family family);

/*
 * Opens (creating if needed) the store in dir.  Errors, with a message in err:
 *   -EBUSY     another process holds the store; the message names it when known
 *   -EPROTO    the store was written by a newer schema this build cannot read
 *   -ENOSPC    its file system has less than STORE_MIN_FREE_BYTES free, plus
 *              what replaying the write-ahead log writes; the message says
 *              how much there is and how much it needs
 *   -EIO       RocksDB failed; its message is included
 */
int store_open(const char *dir, struct store **ret_store, char *err, size_t err_size);

/*
 * Who holds the store in dir, without opening it (nothing is created, so
 * it is safe to ask as another user than the store's): 1 when a process
 * holds RocksDB's lock on it, with "pid N (program)" or "pid N" in buf; 0
 * when no one does or there is no store; -errno when its lock file cannot
 * be read.
 */
int store_holder(const char *dir, char *buf, size_t size);

/* Closes the store and releases its lock; accepts NULL. */
struct store *store_close(struct store *store);

/* The schema version recorded in the store. */
int store_schema_version(struct store *store);

/* Reads one value; -ENOENT when absent.  *ret_value is malloc'd. */
int store_get(struct store *store, enum store_family family, const void *key, size_t key_len,
              void **ret_value, size_t *ret_len);

/* Reads a JSON value stored under a string key; -ENOENT, or -EBADMSG when it is not JSON. */
int store_get_json(struct store *store, enum store_family family, const char *key,
                   json_t **ret_value);

/* ------------------------------------------------------------ batches */

/* A batch belongs to one open store (borrowed; it must outlive the batch). */
struct store_batch *store_batch_new(struct store *store);
struct store_batch *store_batch_free(struct store_batch *batch);
/* The store a batch writes to, for read-modify-write in one batch. */
struct store *store_batch_owner(const struct store_batch *batch);

void store_batch_put(struct store_batch *batch, enum store_family family, const void *key,
                     size_t key_len, const void *value, size_t value_len);
/* Serialises value compactly with sorted keys; -ENOMEM on failure. */
int store_batch_put_json(struct store_batch *batch, enum store_family family, const char *key,
                         const json_t *value);
void store_batch_delete(struct store_batch *batch, enum store_family family, const void *key,
                        size_t key_len);
size_t store_batch_count(const struct store_batch *batch);

/*
 * Writes the batch atomically and fsyncs before returning.  The batch is
 * left empty.  -ENOSPC, before RocksDB is asked, when the store's file
 * system has less than STORE_MIN_FREE_BYTES plus twice the batch free;
 * -EIO when RocksDB fails.  store_last_error() has the message.
 */
int store_batch_commit(struct store_batch *batch);

/* What the calling thread's last failed write or compaction said, for logs. */
const char *store_last_error(const struct store *store);

/* ------------------------------------------------------------ scans */

/*
 * Calls visit for every key starting with prefix, in key order.  visit
 * returns 0 to go on, a positive number to stop early (store_scan then
 * returns 0), or -errno to abort (returned as is).
 */
typedef int (*store_visit_fn)(const void *key, size_t key_len, const void *value, size_t value_len,
                              void *userdata);
int store_scan(struct store *store, enum store_family family, const void *prefix, size_t prefix_len,
               store_visit_fn visit, void *userdata);

/* ------------------------------------------------------------ blobs */

/*
 * Adds a source text to the batch under its SHA-256 (hex, written into
 * ret_hex).  Storing the same text twice costs nothing.
 */
void store_blob_put(struct store_batch *batch, const void *data, size_t len,
                    char ret_hex[SHA256_HEX_SIZE]);
int store_blob_get(struct store *store, const char *hex, void **ret_data, size_t *ret_len);

/* ------------------------------------------------------------ candidates */

/* The memoized result of a candidate identity; -ENOENT when never measured. */
int store_candidate_get(struct store *store, const char *identity, json_t **ret_result);

/*
 * Adds a result to the batch.  infra_error results are refused with
 * -EINVAL: they say nothing about the candidate and are never cached.
 */
int store_candidate_put(struct store_batch *batch, const char *identity, const json_t *result);

/*
 * The launch memo's index (npu/evaluator.c, "the launch memo"): a result
 * that carries "launch": {"key": K, "base": B}, 64 lowercase hex digits
 * each, is filed as the one measured for launch K (STORE_LAUNCH_PREFIX K
 * in STORE_CANDIDATES, {"identity": identity}), and base B as measured
 * (STORE_LAUNCH_BASE_PREFIX B, the same value).  A result without it is
 * left alone: 0.  The evaluator files what it measures; a memo merge
 * files what another store measured.
 */
/* Whether s is a SHA-256 digest as the store keys spell them: 64 lowercase hex digits. */
bool store_is_digest(const char *s);

#define STORE_LAUNCH_PREFIX      "launch/"
#define STORE_LAUNCH_BASE_PREFIX "launchbase/"
int store_launch_put(struct store_batch *batch, const char *identity, const json_t *result);

/* ------------------------------------------------------------ the memo as JSON lines */

/* Limits on a memo file from elsewhere (docs/fleet.md). */
#define STORE_MEMO_MAX_LINES      100000
#define STORE_MEMO_MAX_LINE_BYTES (64u << 20)

/*
 * Writes {"identity": ..., "result": ...} and a newline to out for each of
 * the n identities the memo holds (every result it holds when identities
 * is NULL); identities never measured are left out.  -EINVAL for an
 * identity that is not 64 lowercase hex digits.
 */
int store_memo_write(struct store *store, const char *const *identities, size_t n, FILE *out,
                     size_t *ret_written);

/* Like store_memo_write for every result keep() says yes to. */
int store_memo_write_if(struct store *store, bool (*keep)(const json_t *result, void *userdata),
                        void *userdata, FILE *out, size_t *ret_written);

/* Every identity the memo holds, as the keys of a new object. */
int store_memo_identities(struct store *store, json_t **ret_set);

/*
 * Adds to batch the result of each line of the file at path whose identity
 * neither the store nor an earlier line holds: the first result wins, so
 * merging a file twice changes nothing.  Every line is checked; on a bad
 * one (not such an object, an infra_error, no newline at its end) it fails
 * with -EINVAL and err names path:line, and the caller drops the batch.
 * *ret_added counts the results added, *ret_known those already held.
 */
int store_memo_merge(struct store_batch *batch, const char *path, size_t *ret_added,
                     size_t *ret_known, char *err, size_t err_size);

/*
 * Compacts every family, dropping deleted and overwritten values from disk;
 * -ENOSPC (store_last_error() says how much is free) short of the room the
 * new tables need.
 */
int store_compact(struct store *store);

/* Estimated bytes on disk, for the size caps of the config. */
int store_size_bytes(struct store *store, uint64_t *ret_bytes);

#endif
