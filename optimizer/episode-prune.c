/* SPDX-License-Identifier: MIT */
/*
 * Keeps the store under limits.store_max_bytes.  Compaction comes first;
 * while the store is still over, the finished episodes (done or
 * cancelled) lose their trajectories (every candidate's row), oldest first.  A record keeps its
 * summary (baseline, best, counters, the report's figures) and says how
 * many rows went.  Memoized results, source blobs and the experience bank
 * are never touched: they are what saves measuring twice.
 */
#include "optimizer.h"

#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EPISODE_PREFIX "episode/"
#define BATCH_RECORDS  64

struct prunable {
        char *key;
        json_int_t finished;
        uint64_t bytes; /* the trajectory's, serialised */
};

struct collect {
        struct prunable *items;
        size_t n, cap;
};

/*
 * Records nothing writes again: a failed item may be retried under the same
 * episode id (daemon/scheduler.c), so a failed record is left alone.
 */
static bool finished_state(const char *state)
{
        return state && (strcmp(state, "done") == 0 || strcmp(state, "cancelled") == 0);
}

/* Notes a finished record that still holds a trajectory. */
static int collect_record(const void *key, size_t key_len, const void *value, size_t value_len,
                          void *userdata)
{
        struct collect *c = userdata;
        json_t *record = json_loadb(value, value_len, 0, NULL);
        const json_t *trajectory = json_object_get(record, "trajectory");
        char *text;
        int r = 0;

        if (!record || !finished_state(json_string_value(json_object_get(record, "state"))) ||
            json_array_size(trajectory) == 0)
                goto out;
        if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 64;
                struct prunable *grown = realloc(c->items, cap * sizeof(*grown));
                if (!grown) {
                        r = -ENOMEM;
                        goto out;
                }
                c->items = grown;
                c->cap = cap;
        }
        text = json_dumps(trajectory, JSON_COMPACT);
        c->items[c->n].key = strndup(key, key_len);
        if (!text || !c->items[c->n].key) {
                free(text);
                free(c->items[c->n].key);
                r = -ENOMEM;
                goto out;
        }
        c->items[c->n].bytes = strlen(text);
        c->items[c->n].finished = json_integer_value(json_object_get(record, "finished"));
        c->n++;
        free(text);
out:
        json_decref(record);
        return r;
}

static int by_finish(const void *a, const void *b)
{
        const struct prunable *x = a, *y = b;

        if (x->finished != y->finished)
                return x->finished < y->finished ? -1 : 1;
        return strcmp(x->key, y->key);
}

/* Rewrites one record without its trajectory, into the batch. */
static int drop_trajectory(struct store *store, struct store_batch *b, const char *key)
{
        json_t *record = NULL;
        int r = store_get_json(store, STORE_EPISODES, key, &record);

        if (r < 0)
                return r == -ENOENT ? 0 : r;
        json_object_set_new(
            record, "trajectory_dropped",
            json_integer((json_int_t)json_array_size(json_object_get(record, "trajectory"))));
        json_object_del(record, "trajectory");
        r = store_batch_put_json(b, STORE_EPISODES, key, record);
        json_decref(record);
        return r;
}

int episode_prune_store(struct store *store, uint64_t max_bytes, struct episode_prune *ret)
{
        struct collect c = { 0 };
        struct store_batch *b = NULL;
        uint64_t size = 0, saved = 0;
        int r;

        memset(ret, 0, sizeof(*ret));
        r = store_size_bytes(store, &size);
        ret->size_before = ret->size_after = size;
        if (r < 0 || size <= max_bytes)
                return r;
        r = store_compact(store);
        if (r < 0)
                return r;
        ret->compacted = true;
        r = store_size_bytes(store, &size);
        ret->size_after = size;
        if (r < 0 || size <= max_bytes)
                return r;

        r = store_scan(store, STORE_EPISODES, EPISODE_PREFIX, strlen(EPISODE_PREFIX),
                       collect_record, &c);
        if (r < 0)
                goto out;
        qsort(c.items, c.n, sizeof(*c.items), by_finish);
        b = store_batch_new(store);
        if (!b) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < c.n && size > max_bytes + saved; i++) {
                r = drop_trajectory(store, b, c.items[i].key);
                if (r < 0)
                        goto out;
                saved += c.items[i].bytes;
                ret->dropped++;
                if (store_batch_count(b) >= BATCH_RECORDS) {
                        r = store_batch_commit(b);
                        if (r < 0)
                                goto out;
                }
        }
        if (store_batch_count(b) > 0) {
                r = store_batch_commit(b);
                if (r < 0)
                        goto out;
        }
        if (ret->dropped) {
                r = store_compact(store);
                if (r == 0)
                        r = store_size_bytes(store, &ret->size_after);
        }
out:
        for (size_t i = 0; i < c.n; i++)
                free(c.items[i].key);
        free(c.items);
        store_batch_free(b);
        return r;
}
