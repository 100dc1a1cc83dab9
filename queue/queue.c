/* SPDX-License-Identifier: MIT */
/*
 * The persistent episode queue.  Keys in the store's queue family:
 *   item/<id>                      the record (JSON)
 *   ready/<rank>/<sequence>        the id, while queued; rank 0 resumes work
 *                                  interrupted by a restart, 1 is manual, 2 commits
 *   op/<repo>\0<branch>\0<op_dir>  the id of the newest item of that operator
 *   intent/<id>                    what publishing a running item is about to
 *                                  write (queue_put_intent); gone when it ends
 * A running item's record may hold "fleet_job", the Slurm job it was
 * submitted as (queue_set_fleet_job), and "fleet_cancels", how many of its
 * jobs were cancelled from outside.
 * and meta's queue_next_id.  Ids and sequences share one counter.
 */
#include "queue.h"

#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NEXT_ID_KEY "queue_next_id"
#define MAX_REASONS 10
#define KEY_MAX     8192

enum rank {
        RANK_RESUME = 0,
        RANK_MANUAL = 1,
        RANK_COMMIT = 2,
};

struct queue {
        struct store *store;
        struct queue_options options;
        uint64_t next_id;
        uint64_t depth;
};

static const char *const state_names[] = {
        [QUEUE_QUEUED] = "queued",       [QUEUE_RUNNING] = "running",
        [QUEUE_DONE] = "done",           [QUEUE_FAILED] = "failed",
        [QUEUE_CANCELLED] = "cancelled", [QUEUE_SUPERSEDED] = "superseded",
};

const char *queue_state_name(enum queue_state state)
{
        return (size_t)state < sizeof(state_names) / sizeof(*state_names) ? state_names[state]
                                                                          : "?";
}

int queue_state_from_name(const char *name, enum queue_state *ret)
{
        for (size_t i = 0; i < sizeof(state_names) / sizeof(*state_names); i++) {
                if (name && strcmp(state_names[i], name) == 0) {
                        *ret = (enum queue_state)i;
                        return 0;
                }
        }
        return -EINVAL;
}

static void item_key(char *buf, size_t size, uint64_t id)
{
        snprintf(buf, size, "item/%016" PRIx64, id);
}

static void ready_key(char *buf, size_t size, int rank, uint64_t sequence)
{
        snprintf(buf, size, "ready/%d/%016" PRIx64, rank, sequence);
}

static size_t op_key(char *buf, size_t size, const char *repo, const char *branch,
                     const char *op_dir)
{
        int n = snprintf(buf, size, "op/%s%c%s%c%s", repo, 0, branch, 0, op_dir);
        return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

static int state_of(const json_t *item, enum queue_state *ret)
{
        return queue_state_from_name(json_string_value(json_object_get(item, "state")), ret);
}

static json_int_t now_seconds(void)
{
        return (json_int_t)time(NULL);
}

static void add_reason(json_t *item, const char *reason)
{
        json_t *reasons = json_object_get(item, "reasons");

        if (!reason)
                return;
        if (!reasons) {
                reasons = json_array();
                json_object_set_new(item, "reasons", reasons);
        }
        json_array_append_new(reasons, json_string(reason));
        while (json_array_size(reasons) > MAX_REASONS)
                json_array_remove(reasons, 0);
}

static int put_item(struct store_batch *b, json_t *item)
{
        char key[64];

        item_key(key, sizeof(key), (uint64_t)json_integer_value(json_object_get(item, "id")));
        json_object_set_new(item, "updated", json_integer(now_seconds()));
        return store_batch_put_json(b, STORE_QUEUE, key, item);
}

static void put_ready(struct store_batch *b, int rank, uint64_t sequence, uint64_t id)
{
        char key[64], value[32];

        ready_key(key, sizeof(key), rank, sequence);
        snprintf(value, sizeof(value), "%" PRIu64, id);
        store_batch_put(b, STORE_QUEUE, key, strlen(key), value, strlen(value));
}

static void delete_ready(struct store_batch *b, const json_t *item)
{
        char key[64];

        ready_key(key, sizeof(key), (int)json_integer_value(json_object_get(item, "rank")),
                  (uint64_t)json_integer_value(json_object_get(item, "sequence")));
        store_batch_delete(b, STORE_QUEUE, key, strlen(key));
}

/* Gives the item a fresh place at the back of its rank. */
static void enqueue_item(struct queue *q, struct store_batch *b, json_t *item, int rank)
{
        uint64_t sequence = q->next_id++;
        char value[32];

        json_object_set_new(item, "rank", json_integer(rank));
        json_object_set_new(item, "sequence", json_integer((json_int_t)sequence));
        json_object_set_new(item, "state", json_string("queued"));
        put_ready(b, rank, sequence, (uint64_t)json_integer_value(json_object_get(item, "id")));
        snprintf(value, sizeof(value), "%" PRIu64, q->next_id);
        store_batch_put(b, STORE_META, NEXT_ID_KEY, strlen(NEXT_ID_KEY), value, strlen(value));
}

static void intent_key(char *buf, size_t size, uint64_t id)
{
        snprintf(buf, size, "intent/%016" PRIx64, id);
}

int queue_put_intent(struct queue *q, uint64_t id, const json_t *intent)
{
        struct store_batch *b = store_batch_new(q->store);
        char key[64];
        int r;

        if (!b)
                return -ENOMEM;
        intent_key(key, sizeof(key), id);
        r = store_batch_put_json(b, STORE_QUEUE, key, intent);
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        return r;
}

int queue_get_intent(struct queue *q, uint64_t id, json_t **ret_intent)
{
        char key[64];

        intent_key(key, sizeof(key), id);
        return store_get_json(q->store, STORE_QUEUE, key, ret_intent);
}

/* An item that ends takes its publishing intent with it, in the same batch. */
static void drop_intent(struct store_batch *b, uint64_t id)
{
        char key[64];

        intent_key(key, sizeof(key), id);
        store_batch_delete(b, STORE_QUEUE, key, strlen(key));
}

int queue_get(struct queue *q, uint64_t id, json_t **ret_item)
{
        char key[64];

        item_key(key, sizeof(key), id);
        return store_get_json(q->store, STORE_QUEUE, key, ret_item);
}

struct id_list {
        uint64_t *ids;
        size_t n, cap, limit;
};

static int collect_ready(const void *key, size_t key_len, const void *value, size_t value_len,
                         void *userdata)
{
        struct id_list *l = userdata;
        char text[32];

        (void)key;
        (void)key_len;
        if (l->limit && l->n >= l->limit)
                return 1;
        if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 16;
                uint64_t *grown = realloc(l->ids, cap * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                l->ids = grown;
                l->cap = cap;
        }
        snprintf(text, sizeof(text), "%.*s", (int)(value_len < 31 ? value_len : 31),
                 (const char *)value);
        l->ids[l->n++] = strtoull(text, NULL, 10);
        return 0;
}

static int count_item(const void *key, size_t key_len, const void *value, size_t value_len,
                      void *userdata)
{
        (void)key, (void)key_len, (void)value, (void)value_len;
        (*(uint64_t *)userdata)++;
        return 0;
}

static int collect_running(const void *key, size_t key_len, const void *value, size_t value_len,
                           void *userdata)
{
        struct id_list *l = userdata;
        json_t *item = json_loadb(value, value_len, 0, NULL);
        enum queue_state state;
        int r = 0;

        (void)key, (void)key_len;
        /* a fleet item's Slurm job may still run: the daemon reconciles it (docs/fleet.md) */
        if (item && state_of(item, &state) == 0 && state == QUEUE_RUNNING &&
            !json_object_get(item, "fleet_job")) {
                char id[32];
                snprintf(id, sizeof(id), "%" PRIu64,
                         (uint64_t)json_integer_value(json_object_get(item, "id")));
                r = collect_ready(NULL, 0, id, strlen(id), l);
        }
        json_decref(item);
        return r;
}

/* Puts items a dead process left running back at the front. */
static int recover_running(struct queue *q, unsigned *ret_recovered)
{
        struct id_list running = { 0 };
        struct store_batch *b = NULL;
        int r;

        r = store_scan(q->store, STORE_QUEUE, "item/", 5, collect_running, &running);
        if (r < 0 || running.n == 0)
                goto out;
        b = store_batch_new(q->store);
        if (!b) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < running.n; i++) {
                json_t *item = NULL;
                if (queue_get(q, running.ids[i], &item) < 0)
                        continue;
                add_reason(item, "resumed after a restart");
                json_object_del(item, "device");
                enqueue_item(q, b, item, RANK_RESUME);
                r = put_item(b, item);
                json_decref(item);
                if (r < 0)
                        goto out;
        }
        r = store_batch_commit(b);
out:
        if (ret_recovered)
                *ret_recovered = r == 0 ? (unsigned)running.n : 0;
        store_batch_free(b);
        free(running.ids);
        return r;
}

int queue_open(struct store *store, const struct queue_options *options, struct queue **ret_queue,
               unsigned *ret_recovered)
{
        struct queue *q;
        void *value = NULL;
        size_t len = 0;
        int r;

        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        q->store = store;
        if (options)
                q->options = *options;
        if (!q->options.max_items)
                q->options.max_items = 10000;
        if (!q->options.max_attempts)
                q->options.max_attempts = 3;
        q->next_id = 1;
        r = store_get(store, STORE_META, NEXT_ID_KEY, strlen(NEXT_ID_KEY), &value, &len);
        if (r == 0) {
                q->next_id = strtoull(value, NULL, 10);
                free(value);
        } else if (r != -ENOENT) {
                goto fail;
        }
        r = recover_running(q, ret_recovered);
        if (r < 0)
                goto fail;
        r = store_scan(store, STORE_QUEUE, "ready/", 6, count_item, &q->depth);
        if (r < 0)
                goto fail;
        *ret_queue = q;
        return 0;
fail:
        free(q);
        return r;
}

struct queue *queue_close(struct queue *q)
{
        free(q);
        return NULL;
}

uint64_t queue_depth(const struct queue *q)
{
        return q ? q->depth : 0;
}

/* The newest item recorded for an operator, if any. */
static json_t *newest_for_operator(struct queue *q, const char *key, size_t key_len)
{
        void *value = NULL;
        size_t len = 0;
        json_t *item = NULL;

        if (store_get(q->store, STORE_QUEUE, key, key_len, &value, &len) == 0) {
                queue_get(q, strtoull(value, NULL, 10), &item);
                free(value);
        }
        return item;
}

int queue_enqueue(struct queue *q, struct store_batch *b, const struct queue_request *req,
                  uint64_t *ret_id, uint64_t *ret_running_older)
{
        char key[KEY_MAX], value[32];
        size_t key_len;
        json_t *older, *item;
        uint64_t id;
        enum queue_state state;
        int r;

        if (!req->repo || !req->branch || !req->op_dir || !req->commit)
                return -EINVAL;
        key_len = op_key(key, sizeof(key), req->repo, req->branch, req->op_dir);
        if (!key_len)
                return -ENAMETOOLONG;
        if (ret_running_older)
                *ret_running_older = 0;

        older = newest_for_operator(q, key, key_len);
        if (older && state_of(older, &state) == 0) {
                const char *older_commit = json_string_value(json_object_get(older, "commit"));
                bool same_commit = older_commit && strcmp(older_commit, req->commit) == 0;
                if (same_commit && (state == QUEUE_QUEUED || state == QUEUE_RUNNING)) {
                        /* already waiting or being worked on: nothing to add */
                        if (ret_id)
                                *ret_id =
                                    (uint64_t)json_integer_value(json_object_get(older, "id"));
                        json_decref(older);
                        return 0;
                }
        }
        if (q->depth >= q->options.max_items) {
                json_decref(older);
                return -ENOSPC;
        }

        id = q->next_id++;
        item = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:i, s:I}", "id", (json_int_t)id, "repo",
                         req->repo, "branch", req->branch, "op_dir", req->op_dir, "commit",
                         req->commit, "priority",
                         req->priority == QUEUE_PRIORITY_MANUAL ? "manual" : "commit", "attempts",
                         0, "created", now_seconds());
        if (!item) {
                json_decref(older);
                return -ENOMEM;
        }
        if (older && state_of(older, &state) == 0) {
                uint64_t older_id = (uint64_t)json_integer_value(json_object_get(older, "id"));
                if (state == QUEUE_QUEUED) {
                        char reason[64];
                        snprintf(reason, sizeof(reason), "superseded by item %" PRIu64, id);
                        delete_ready(b, older);
                        json_object_set_new(older, "state", json_string("superseded"));
                        json_object_set_new(older, "superseded_by", json_integer((json_int_t)id));
                        add_reason(older, reason);
                        put_item(b, older);
                        q->depth--;
                } else if (state == QUEUE_RUNNING && ret_running_older) {
                        *ret_running_older = older_id;
                }
        }
        enqueue_item(q, b, item,
                     req->priority == QUEUE_PRIORITY_MANUAL ? RANK_MANUAL : RANK_COMMIT);
        r = put_item(b, item);
        snprintf(value, sizeof(value), "%" PRIu64, id);
        store_batch_put(b, STORE_QUEUE, key, key_len, value, strlen(value));
        json_decref(item);
        json_decref(older);
        if (r < 0)
                return r;
        q->depth++;
        if (ret_id)
                *ret_id = id;
        return 0;
}

int queue_recount(struct queue *q)
{
        uint64_t depth = 0;
        int r = store_scan(q->store, STORE_QUEUE, "ready/", 6, count_item, &depth);

        if (r == 0)
                q->depth = depth;
        return r;
}

int queue_enqueue_now(struct queue *q, const struct queue_request *req, uint64_t *ret_id,
                      uint64_t *ret_running_older)
{
        struct store_batch *b = store_batch_new(q->store);
        int r;

        if (!b)
                return -ENOMEM;
        r = queue_enqueue(q, b, req, ret_id, ret_running_older);
        if (r == 0) {
                r = store_batch_commit(b);
                if (r < 0)
                        queue_recount(q);
        }
        store_batch_free(b);
        return r;
}

int queue_claim_next(struct queue *q, int device, json_t **ret_item)
{
        struct id_list first = { .limit = 1 };
        struct store_batch *b = NULL;
        json_t *item = NULL;
        int r;

        r = store_scan(q->store, STORE_QUEUE, "ready/", 6, collect_ready, &first);
        if (r < 0)
                goto out;
        if (first.n == 0) {
                r = -ENOENT;
                goto out;
        }
        r = queue_get(q, first.ids[0], &item);
        if (r < 0)
                goto out;
        b = store_batch_new(q->store);
        if (!b) {
                r = -ENOMEM;
                goto out;
        }
        delete_ready(b, item);
        json_object_set_new(item, "state", json_string("running"));
        json_object_set_new(item, "device", json_integer(device));
        json_object_set_new(
            item, "attempts",
            json_integer(json_integer_value(json_object_get(item, "attempts")) + 1));
        json_object_set_new(item, "started", json_integer(now_seconds()));
        r = put_item(b, item);
        if (r == 0)
                r = store_batch_commit(b);
        if (r < 0)
                goto out;
        q->depth--;
        *ret_item = item;
        item = NULL;
out:
        json_decref(item);
        store_batch_free(b);
        free(first.ids);
        return r;
}

/* The record of a running item; -EINVAL when it is not running. */
static int get_running(struct queue *q, uint64_t id, json_t **ret_item)
{
        enum queue_state state;
        int r = queue_get(q, id, ret_item);

        if (r == 0 && (state_of(*ret_item, &state) < 0 || state != QUEUE_RUNNING)) {
                json_decref(*ret_item);
                *ret_item = NULL;
                r = -EINVAL;
        }
        return r;
}

/* queue_finish; cancelled_job counts a fleet job cancelled from outside, in the same batch. */
static int finish(struct queue *q, uint64_t id, enum queue_state state, const char *reason,
                  bool retry, bool cancelled_job)
{
        struct store_batch *b = NULL;
        json_t *item = NULL;
        bool requeued = false;
        int r;

        if (state != QUEUE_DONE && state != QUEUE_FAILED && state != QUEUE_CANCELLED)
                return -EINVAL;
        r = get_running(q, id, &item);
        if (r < 0)
                return r;
        b = store_batch_new(q->store);
        if (!b) {
                r = -ENOMEM;
                goto out;
        }
        add_reason(item, reason);
        json_object_del(item, "device");
        json_object_del(item, "fleet_job");
        if (cancelled_job)
                json_object_set_new(
                    item, "fleet_cancels",
                    json_integer(json_integer_value(json_object_get(item, "fleet_cancels")) + 1));
        drop_intent(b, id);
        if (state == QUEUE_FAILED && retry &&
            json_integer_value(json_object_get(item, "attempts")) < q->options.max_attempts) {
                enqueue_item(
                    q, b, item,
                    strcmp(json_string_value(json_object_get(item, "priority")), "manual") == 0
                        ? RANK_MANUAL
                        : RANK_COMMIT);
                requeued = true;
        } else {
                json_object_set_new(item, "state", json_string(queue_state_name(state)));
                json_object_set_new(item, "finished", json_integer(now_seconds()));
        }
        r = put_item(b, item);
        if (r == 0)
                r = store_batch_commit(b);
        if (r == 0 && requeued)
                q->depth++;
out:
        json_decref(item);
        store_batch_free(b);
        return r;
}

int queue_finish(struct queue *q, uint64_t id, enum queue_state state, const char *reason,
                 bool retry)
{
        return finish(q, id, state, reason, retry, false);
}

int queue_retry_fleet_job(struct queue *q, uint64_t id, const char *reason, bool cancelled)
{
        return finish(q, id, QUEUE_FAILED, reason, true, cancelled);
}

int queue_set_fleet_job(struct queue *q, uint64_t id, const json_t *job)
{
        struct store_batch *b = NULL;
        json_t *item = NULL;
        int r;

        r = get_running(q, id, &item);
        if (r < 0)
                return r;
        b = store_batch_new(q->store);
        r = b && json_object_set(item, "fleet_job", (json_t *)job) == 0 ? 0 : -ENOMEM;
        if (r == 0)
                r = put_item(b, item);
        if (r == 0)
                r = store_batch_commit(b);
        json_decref(item);
        store_batch_free(b);
        return r < 0 ? r : 0;
}

int queue_cancel(struct queue *q, uint64_t id, const char *reason)
{
        struct store_batch *b = NULL;
        json_t *item = NULL;
        enum queue_state state;
        int r;

        r = queue_get(q, id, &item);
        if (r < 0)
                return r;
        if (state_of(item, &state) < 0 || (state != QUEUE_QUEUED && state != QUEUE_RUNNING)) {
                r = -EINVAL;
                goto out;
        }
        if (state == QUEUE_RUNNING) {
                r = queue_finish(q, id, QUEUE_CANCELLED, reason ? reason : "cancelled", false);
                goto out;
        }
        b = store_batch_new(q->store);
        if (!b) {
                r = -ENOMEM;
                goto out;
        }
        delete_ready(b, item);
        json_object_set_new(item, "state", json_string("cancelled"));
        add_reason(item, reason ? reason : "cancelled");
        r = put_item(b, item);
        if (r == 0)
                r = store_batch_commit(b);
        if (r == 0)
                q->depth--;
out:
        json_decref(item);
        store_batch_free(b);
        return r;
}

struct listing {
        int state;
        size_t limit;
        json_t *items;
};

static int collect_items(const void *key, size_t key_len, const void *value, size_t value_len,
                         void *userdata)
{
        struct listing *l = userdata;
        json_t *item = json_loadb(value, value_len, 0, NULL);
        enum queue_state state;

        (void)key, (void)key_len;
        if (!item)
                return 0;
        if (l->state < 0 || (state_of(item, &state) == 0 && (int)state == l->state))
                json_array_append(l->items, item);
        json_decref(item);
        return l->limit && json_array_size(l->items) >= l->limit ? 1 : 0;
}

int queue_list(struct queue *q, int state, size_t limit, json_t **ret_items)
{
        struct listing l = { .state = state, .limit = limit, .items = json_array() };
        int r;

        if (!l.items)
                return -ENOMEM;
        r = store_scan(q->store, STORE_QUEUE, "item/", 5, collect_items, &l);
        if (r < 0) {
                json_decref(l.items);
                return r;
        }
        *ret_items = l.items;
        return 0;
}
