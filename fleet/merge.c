/* SPDX-License-Identifier: MIT */
/*
 * The head's merge of one finished job (docs/fleet.md, "Merging, once"):
 * its memo results, what it added to the bank, the text of its baseline's
 * and best's files and its episode record, in one synced batch.  The record under the job's name is the mark that the
 * job is merged, so a head that crashed before the batch merges again and
 * one that crashed after it does not add the bank's counts twice.
 */
#include "fleet.h"

#include "common/common.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dir/result.json as an object; the job wrote it last, so its absence means it did not finish. */
static int read_result(const char *dir, json_t **ret, char *err, size_t err_size)
{
        char path[PATH_MAX], *text = NULL;
        size_t len = 0;
        json_error_t error;
        json_t *doc;
        int r = format_path(path, sizeof(path), "%s/result.json", dir);

        if (r == 0)
                r = read_untrusted_file(path, FLEET_MAX_RESULT_BYTES, &text, &len);
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", path,
                         r == -ENOENT  ? "missing: the job did not finish"
                         : r == -EFBIG ? "too large"
                                       : strerror(-r));
                return r;
        }
        doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &error);
        free(text);
        if (!json_is_object(doc)) {
                snprintf(err, err_size, "%s:%d: %s", path, error.line,
                         doc ? "not a JSON object" : error.text);
                json_decref(doc);
                return -EINVAL;
        }
        *ret = doc;
        return 0;
}

/*
 * The text of each file of the record's baseline and best, from
 * dir/files/<sha>, into batch: what the head publishes and reports from.
 * A file whose text does not hash to its name is refused.
 */
static int merge_files(struct store_batch *batch, const char *dir, const json_t *record, char *err,
                       size_t err_size)
{
        struct episode_summary sum;
        int r = episode_summary_read(record, &sum);
        const json_t *maps[2] = { sum.baseline.files, sum.best.files };

        for (size_t m = 0; r == 0 && m < 2; m++) {
                const char *file;
                json_t *sha;
                json_object_foreach((json_t *)maps[m], file, sha)
                {
                        const char *hex = json_string_value(sha);
                        char path[PATH_MAX], got[SHA256_HEX_SIZE], *data = NULL;
                        size_t len = 0;
                        if (!hex || strlen(hex) != SHA256_HEX_SIZE - 1 || strchr(hex, '/')) {
                                snprintf(err, err_size, "%s/result.json: %s: not a file hash", dir,
                                         file);
                                r = -EINVAL;
                                break;
                        }
                        r = format_path(path, sizeof(path), "%s/files/%s", dir, hex);
                        if (r == 0)
                                r = read_untrusted_file(path, FLEET_MAX_RESULT_BYTES, &data, &len);
                        if (r < 0) {
                                snprintf(err, err_size, "%s/files/%s (%s): %s", dir, hex, file,
                                         strerror(-r));
                                break;
                        }
                        /* a mismatch fails the merge, and the batch is dropped */
                        store_blob_put(batch, data, len, got);
                        free(data);
                        if (strcmp(got, hex) != 0) {
                                snprintf(err, err_size,
                                         "%s/files/%s (%s): its text does not hash to its name",
                                         dir, hex, file);
                                r = -EINVAL;
                                break;
                        }
                }
        }
        episode_summary_release(&sum);
        return r;
}

int fleet_merge(struct store *store, const char *name, const char *dir, struct fleet_merged *ret,
                char *err, size_t err_size)
{
        struct fleet_merged m = { 0 };
        struct store_batch *batch = NULL;
        json_t *record = NULL;
        char path[PATH_MAX];
        int r;

        r = episode_load(store, name, &record);
        if (r == 0) {
                m.merged_before = true;
                goto out;
        }
        if (r != -ENOENT) {
                snprintf(err, err_size, "%s: cannot read the store: %s", name, strerror(-r));
                goto out;
        }
        r = read_result(dir, &record, err, err_size);
        if (r < 0)
                goto out;
        batch = store_batch_new(store);
        if (!batch) {
                r = -ENOMEM;
                snprintf(err, err_size, "out of memory");
                goto out;
        }
        r = format_path(path, sizeof(path), "%s/memo.jsonl", dir);
        if (r == 0)
                r = store_memo_merge(batch, path, &m.results_added, &m.results_known, err,
                                     err_size);
        if (r == 0)
                r = format_path(path, sizeof(path), "%s/experience.jsonl", dir);
        if (r == 0)
                r = experience_merge_lines(batch, path, &m.entries_added, &m.entries_updated, err,
                                           err_size);
        if (r == 0)
                r = merge_files(batch, dir, record, err, err_size);
        if (r < 0)
                goto out;
        json_object_set_new(record, "fleet_job", json_string(name));
        r = episode_record_put(batch, name, record);
        if (r == 0)
                r = store_batch_commit(batch);
        if (r < 0)
                snprintf(err, err_size, "%s: cannot write the store: %s", name,
                         store_last_error(store));
out:
        store_batch_free(batch);
        json_decref(record);
        if (r == 0 && ret)
                *ret = m;
        return r;
}
