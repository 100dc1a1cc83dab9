/* SPDX-License-Identifier: MIT */
/*
 * What 'ascendopt optimize' takes in and leaves behind as a fleet job
 * (docs/fleet.md, "One job"): the head's bank snapshot and memo merged
 * into the job's store before the episode, and after it the job's new
 * memo results, what it added to the bank, the text of the baseline's and
 * the best's files (files/<sha>) and the episode record, each file
 * written whole (synced, then renamed), result.json last.
 */
#include "cli-internal.h"

#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exchange_take(struct store *store, const char *bank, const char *memo, struct exchange *x,
                  char *err, size_t err_size)
{
        json_t *entries = NULL;
        size_t n;
        int r = 0;

        if (bank) {
                /* the head's bank, not the seed bank: the job learns into the one bank */
                r = experience_list(store, &entries);
                if (r < 0) {
                        snprintf(err, err_size, "cannot read the store: %s", strerror(-r));
                        return r;
                }
                n = json_array_size(entries);
                json_decref(entries);
                if (n > 0) {
                        snprintf(err, err_size,
                                 "--bank %s: this store's bank has %zu entries already; a job "
                                 "starts from a new --state-dir",
                                 bank, n);
                        return -EEXIST;
                }
                r = experience_import_file(store, bank, NULL, err, err_size);
                if (r < 0)
                        return r;
        }
        if (memo) {
                struct store_batch *batch = store_batch_new(store);
                r = batch ? store_memo_merge(batch, memo, NULL, NULL, err, err_size) : -ENOMEM;
                if (r == 0) {
                        r = store_batch_commit(batch);
                        if (r < 0)
                                snprintf(err, err_size, "--memo %s: cannot write the store: %s",
                                         memo, store_last_error(store));
                }
                store_batch_free(batch);
                if (r < 0)
                        return r;
        }
        /* what the job is given, so that it writes back only what it adds */
        r = experience_list(store, &x->bank_before);
        if (r == 0)
                r = store_memo_identities(store, &x->memo_before);
        if (r < 0)
                snprintf(err, err_size, "cannot read the store: %s", strerror(-r));
        return r;
}

static int put_lines(const char *dir, const char *name, const json_t *lines, char *err,
                     size_t err_size)
{
        char path[PATH_MAX], *text = NULL;
        size_t len = 0, i;
        FILE *f = open_memstream(&text, &len);
        json_t *line;
        int r = f ? 0 : -ENOMEM;

        json_array_foreach(lines, i, line) if (r == 0) r = json_lines_put(f, line);
        if (f && fclose(f) == EOF && r == 0)
                r = -ENOMEM;
        if (r == 0)
                r = format_path(path, sizeof(path), "%s/%s", dir, name);
        if (r == 0)
                r = write_file_atomic(path, text, len, 0644);
        if (r < 0)
                snprintf(err, err_size, "%s/%s: %s", dir, name, strerror(-r));
        free(text);
        return r;
}

/* dir/files/<sha>: the text of each file of the record's baseline and best, for the head. */
static int put_files(struct store *store, const char *dir, const json_t *record, char *err,
                     size_t err_size)
{
        struct episode_summary sum;
        char path[PATH_MAX];
        int r = episode_summary_read(record, &sum);
        const json_t *maps[2] = { sum.baseline.files, sum.best.files };

        if (r == 0)
                r = format_path(path, sizeof(path), "%s/files", dir);
        if (r == 0)
                r = mkdir_p(path);
        for (size_t m = 0; r == 0 && m < 2; m++) {
                const char *file;
                json_t *sha;
                json_object_foreach((json_t *)maps[m], file, sha)
                {
                        void *data = NULL;
                        size_t len = 0;
                        const char *hex = json_string_value(sha);
                        r = hex ? store_blob_get(store, hex, &data, &len) : -EINVAL;
                        if (r == 0)
                                r = format_path(path, sizeof(path), "%s/files/%s", dir, hex);
                        if (r == 0)
                                r = write_file_atomic(path, data, len, 0644);
                        free(data);
                        if (r < 0) {
                                snprintf(err, err_size, "%s/files: %s: %s", dir, file,
                                         strerror(-r));
                                break;
                        }
                }
        }
        if (r < 0 && !err[0])
                snprintf(err, err_size, "%s/files: %s", dir, strerror(-r));
        episode_summary_release(&sum);
        return r;
}

int exchange_leave(struct store *store, const struct exchange *x, const char *dir,
                   const json_t *record, char *err, size_t err_size)
{
        json_t *bank_after = NULL, *learned = NULL, *memo_after = NULL;
        const char **ids = NULL, *id;
        char path[PATH_MAX], *text = NULL, *memo_text = NULL;
        size_t n = 0, memo_len = 0;
        FILE *f = NULL;
        json_t *v;
        int r;

        r = mkdir_p(dir);
        if (r == 0)
                r = experience_list(store, &bank_after);
        if (r == 0)
                r = experience_delta(x->bank_before, bank_after, &learned);
        if (r == 0)
                r = put_lines(dir, "experience.jsonl", learned, err, err_size);
        else
                snprintf(err, err_size, "%s: %s", dir, strerror(-r));
        if (r < 0)
                goto out;

        r = store_memo_identities(store, &memo_after);
        ids = r == 0 ? calloc(json_object_size(memo_after) + 1, sizeof(*ids)) : NULL;
        if (r == 0 && !ids)
                r = -ENOMEM;
        if (r == 0) {
                json_object_foreach(memo_after, id, v) if (!json_object_get(x->memo_before, id))
                    ids[n++] = id;
                f = open_memstream(&memo_text, &memo_len);
                r = f ? store_memo_write(store, ids, n, f, NULL) : -ENOMEM;
        }
        if (f && fclose(f) == EOF && r == 0)
                r = -ENOMEM;
        if (r == 0)
                r = format_path(path, sizeof(path), "%s/memo.jsonl", dir);
        if (r == 0)
                r = write_file_atomic(path, memo_text, memo_len, 0644);
        if (r < 0) {
                snprintf(err, err_size, "%s/memo.jsonl: %s", dir, strerror(-r));
                goto out;
        }

        err[0] = '\0';
        r = put_files(store, dir, record, err, err_size);
        if (r < 0)
                goto out;
        /* last: its presence says the job left everything */
        text = json_dumps(record, JSON_INDENT(2) | JSON_SORT_KEYS);
        r = text ? format_path(path, sizeof(path), "%s/result.json", dir) : -ENOMEM;
        if (r == 0)
                r = write_file_atomic(path, text, strlen(text), 0644);
        if (r < 0)
                snprintf(err, err_size, "%s/result.json: %s", dir, strerror(-r));
out:
        free(text);
        free(memo_text);
        free(ids);
        json_decref(bank_after);
        json_decref(learned);
        json_decref(memo_after);
        return r;
}

void exchange_release(struct exchange *x)
{
        json_decref(x->bank_before);
        json_decref(x->memo_before);
        x->bank_before = x->memo_before = NULL;
}
