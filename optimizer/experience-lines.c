/* SPDX-License-Identifier: MIT */
/*
 * The experience bank as JSON lines (docs/fleet.md, "The exchange
 * formats"): what a fleet job added to the bank it was given, and the
 * head's merge of it, statistics added.  The file comes from another
 * machine, so every line is checked before anything is added.
 */
#include "optimizer.h"

#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COUNT 1000000000 /* uses or wins on one line */

static json_int_t count_of(const json_t *entry, const char *name)
{
        return json_integer_value(json_object_get(entry, name));
}

/* entry without what is local to one bank: its id, a retrieval score, an embedding */
static json_t *portable(const json_t *entry)
{
        json_t *copy = json_deep_copy(entry);

        if (copy) {
                json_object_del(copy, "id");
                json_object_del(copy, "score");
                json_object_del(copy, "embedding");
                json_object_del(copy, "embedding_model");
        }
        return copy;
}

int experience_delta(const json_t *before, const json_t *after, json_t **ret_lines)
{
        json_t *by_id = json_object(), *lines = json_array(), *entry;
        size_t i;
        int r = 0;

        if (!by_id || !lines) {
                r = -ENOMEM;
                goto out;
        }
        json_array_foreach(before, i, entry)
        {
                const char *id = json_string_value(json_object_get(entry, "id"));
                if (id && json_object_set(by_id, id, entry) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        json_array_foreach(after, i, entry)
        {
                const char *id = json_string_value(json_object_get(entry, "id"));
                const json_t *old = id ? json_object_get(by_id, id) : NULL;
                json_int_t uses = count_of(entry, "uses") - count_of(old, "uses");
                json_int_t wins = count_of(entry, "wins") - count_of(old, "wins");
                json_t *line;

                if (old && uses <= 0 && wins <= 0)
                        continue; /* nothing this run added */
                line = portable(entry);
                if (!line ||
                    json_object_set_new(line, "uses", json_integer(uses > 0 ? uses : 0)) < 0 ||
                    json_object_set_new(line, "wins", json_integer(wins > 0 ? wins : 0)) < 0 ||
                    json_array_append_new(lines, line) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        *ret_lines = json_incref(lines);
out:
        json_decref(by_id);
        json_decref(lines);
        return r;
}

struct merge {
        json_t *by_id; /* id -> the entry to write, its counts summed over the file */
        size_t lines;
};

static bool count_ok(const json_t *v)
{
        return !v || (json_is_integer(v) && json_integer_value(v) >= 0 &&
                      json_integer_value(v) <= MAX_COUNT);
}

static int merge_line(json_t *line, size_t lineno, void *userdata, char *why, size_t why_size)
{
        static const char *const required[] = { "title", "description", "bottleneck", "diff" };
        struct merge *m = userdata;
        char id[SHA256_HEX_SIZE];
        json_t *seen;

        (void)lineno;
        for (size_t i = 0; i < ARRAY_SIZE(required); i++)
                if (!json_is_string(json_object_get(line, required[i]))) {
                        snprintf(why, why_size, "\"%s\" must be a string", required[i]);
                        return -EINVAL;
                }
        if (!count_ok(json_object_get(line, "uses")) || !count_ok(json_object_get(line, "wins"))) {
                snprintf(why, why_size, "\"uses\" and \"wins\" must be whole numbers from 0 to %d",
                         MAX_COUNT);
                return -EINVAL;
        }
        if (++m->lines > EXPERIENCE_MAX_ENTRIES) {
                snprintf(why, why_size, "more than %d entries", EXPERIENCE_MAX_ENTRIES);
                return -E2BIG;
        }
        experience_id(line, id);
        seen = json_object_get(m->by_id, id);
        if (seen) /* the same entry twice in one file: its counts add up too */
                return json_object_set_new(
                           seen, "uses",
                           json_integer(count_of(seen, "uses") + count_of(line, "uses"))) < 0 ||
                               json_object_set_new(seen, "wins",
                                                   json_integer(count_of(seen, "wins") +
                                                                count_of(line, "wins"))) < 0
                           ? -ENOMEM
                           : 0;
        seen = portable(line);
        if (!seen || json_object_set_new(m->by_id, id, seen) < 0)
                return -ENOMEM;
        return 0;
}

int experience_merge_lines(struct store_batch *batch, const char *path, size_t *ret_new,
                           size_t *ret_updated, char *err, size_t err_size)
{
        struct merge m = { .by_id = json_object() };
        size_t added = 0, updated = 0;
        const char *id;
        json_t *entry;
        int r;

        if (!m.by_id) {
                snprintf(err, err_size, "out of memory");
                return -ENOMEM;
        }
        r = json_lines_read(path, EXPERIENCE_MAX_ENTRIES, 16u << 20, merge_line, &m, err, err_size);
        json_object_foreach(m.by_id, id, entry)
        {
                json_t *have = NULL, *merged;

                if (r < 0)
                        break;
                if (experience_get(store_batch_owner(batch), id, &have) == 0) {
                        /* the bank's texts stay; the counts add up */
                        merged = json_deep_copy(have);
                        if (merged &&
                            (json_object_set_new(merged, "uses",
                                                 json_integer(count_of(have, "uses") +
                                                              count_of(entry, "uses"))) < 0 ||
                             json_object_set_new(merged, "wins",
                                                 json_integer(count_of(have, "wins") +
                                                              count_of(entry, "wins"))) < 0))
                                r = -ENOMEM;
                        updated++;
                } else {
                        merged = json_incref(entry);
                        added++;
                }
                if (r == 0)
                        r = merged ? experience_put(batch, merged, NULL) : -ENOMEM;
                if (r < 0)
                        snprintf(err, err_size, "%s: cannot merge entry %.12s: %s", path, id,
                                 strerror(-r));
                json_decref(merged);
                json_decref(have);
        }
        json_decref(m.by_id);
        if (r < 0)
                return r;
        if (ret_new)
                *ret_new = added;
        if (ret_updated)
                *ret_updated = updated;
        return 0;
}
