/* SPDX-License-Identifier: MIT */
/*
 * The candidate memo as JSON lines (docs/fleet.md, "The exchange
 * formats"): written for a job that should not measure again what the
 * head knows, and merged back from a job, the first result per identity
 * winning.  A file from another machine is untrusted: every line is
 * checked before anything is added.
 */
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_line(FILE *out, const char *identity, json_t *result)
{
        json_t *line = json_pack("{s:s, s:O}", "identity", identity, "result", result);
        int r = line ? json_lines_put(out, line) : -ENOMEM;

        json_decref(line);
        return r;
}

struct write_all {
        FILE *out;
        size_t written;
        bool (*keep)(const json_t *result, void *userdata); /* NULL: all */
        void *userdata;
};

static int write_visit(const void *key, size_t key_len, const void *value, size_t value_len,
                       void *userdata)
{
        struct write_all *w = userdata;
        char identity[SHA256_HEX_SIZE];
        json_t *result;
        int r;

        if (key_len != SHA256_HEX_SIZE - 1)
                return 0; /* not a candidate's key */
        memcpy(identity, key, key_len);
        identity[key_len] = '\0';
        result = json_loadb(value, value_len, 0, NULL);
        if (!result)
                return -EBADMSG;
        if (w->keep && !w->keep(result, w->userdata)) {
                json_decref(result);
                return 0;
        }
        r = write_line(w->out, identity, result);
        json_decref(result);
        if (r == 0)
                w->written++;
        return r;
}

int store_memo_write(struct store *store, const char *const *identities, size_t n, FILE *out,
                     size_t *ret_written)
{
        struct write_all w = { .out = out };
        int r = 0;

        if (!identities)
                r = store_scan(store, STORE_CANDIDATES, "", 0, write_visit, &w);
        for (size_t i = 0; identities && r == 0 && i < n; i++) {
                json_t *result;
                if (!store_is_digest(identities[i]))
                        return -EINVAL;
                r = store_candidate_get(store, identities[i], &result);
                if (r == -ENOENT) {
                        r = 0; /* never measured here: nothing to give */
                        continue;
                }
                if (r < 0)
                        break;
                r = write_line(out, identities[i], result);
                json_decref(result);
                if (r == 0)
                        w.written++;
        }
        if (r == 0 && fflush(out) == EOF)
                r = -EIO;
        if (r == 0 && ret_written)
                *ret_written = w.written;
        return r;
}

int store_memo_write_if(struct store *store, bool (*keep)(const json_t *result, void *userdata),
                        void *userdata, FILE *out, size_t *ret_written)
{
        struct write_all w = { .out = out, .keep = keep, .userdata = userdata };
        int r = store_scan(store, STORE_CANDIDATES, "", 0, write_visit, &w);

        if (r == 0 && fflush(out) == EOF)
                r = -EIO;
        if (r == 0 && ret_written)
                *ret_written = w.written;
        return r;
}

static int identity_visit(const void *key, size_t key_len, const void *value, size_t value_len,
                          void *userdata)
{
        char identity[SHA256_HEX_SIZE];

        (void)value, (void)value_len;
        if (key_len != SHA256_HEX_SIZE - 1)
                return 0;
        memcpy(identity, key, key_len);
        identity[key_len] = '\0';
        return json_object_set_new(userdata, identity, json_true()) < 0 ? -ENOMEM : 0;
}

int store_memo_identities(struct store *store, json_t **ret_set)
{
        json_t *set = json_object();
        int r = set ? store_scan(store, STORE_CANDIDATES, "", 0, identity_visit, set) : -ENOMEM;

        if (r < 0) {
                json_decref(set);
                return r;
        }
        *ret_set = set;
        return 0;
}

struct merge {
        struct store_batch *batch;
        json_t *taken; /* identities this file gave already */
        size_t added, known;
};

static int merge_line(json_t *line, size_t lineno, void *userdata, char *why, size_t why_size)
{
        struct merge *m = userdata;
        const json_t *result = json_object_get(line, "result");
        const char *identity = json_string_value(json_object_get(line, "identity"));
        const char *status = json_string_value(json_object_get(result, "status"));
        json_t *have = NULL;
        int r;

        (void)lineno;
        if (json_object_size(line) != 2 || !store_is_digest(identity))
                snprintf(why, why_size,
                         "needs \"identity\" (64 lowercase hex digits) and "
                         "\"result\", nothing else");
        else if (!json_is_object(result) || !status)
                snprintf(why, why_size, "\"result\" needs a \"status\"");
        else if (strcmp(status, "infra_error") == 0)
                snprintf(why, why_size,
                         "an infra_error says nothing about the candidate and is never kept");
        if (why[0])
                return -EINVAL;
        if (json_object_get(m->taken, identity) ||
            store_candidate_get(store_batch_owner(m->batch), identity, &have) == 0) {
                m->known++; /* the first result wins */
                json_decref(have);
                return 0;
        }
        r = store_candidate_put(m->batch, identity, result);
        /* filed under its launch too, as where it was measured */
        if (r == 0)
                r = store_launch_put(m->batch, identity, result);
        if (r == 0 && json_object_set_new(m->taken, identity, json_true()) < 0)
                r = -ENOMEM;
        m->added += r == 0;
        return r;
}

int store_memo_merge(struct store_batch *batch, const char *path, size_t *ret_added,
                     size_t *ret_known, char *err, size_t err_size)
{
        struct merge m = { .batch = batch, .taken = json_object() };
        int r;

        if (!m.taken) {
                snprintf(err, err_size, "out of memory");
                return -ENOMEM;
        }
        r = json_lines_read(path, STORE_MEMO_MAX_LINES, STORE_MEMO_MAX_LINE_BYTES, merge_line, &m,
                            err, err_size);
        json_decref(m.taken);
        if (r < 0) {
                size_t n = strlen(err);
                snprintf(err + n, err_size - n, "; nothing was merged");
                return r;
        }
        if (ret_added)
                *ret_added = m.added;
        if (ret_known)
                *ret_known = m.known;
        return 0;
}
