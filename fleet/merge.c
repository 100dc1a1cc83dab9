/* SPDX-License-Identifier: MIT */
/*
 * The head's merge of one finished job (docs/fleet.md, "Merging, once"):
 * its memo results, what it added to the bank and its episode record, in
 * one synced batch.  The record under the job's name is the mark that the
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
                r = store_memo_merge(batch, path, &m.results_added, NULL, err, err_size);
        if (r == 0)
                r = format_path(path, sizeof(path), "%s/experience.jsonl", dir);
        if (r == 0)
                r = experience_merge_lines(batch, path, &m.entries_added, &m.entries_updated, err,
                                           err_size);
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
