/* SPDX-License-Identifier: MIT */
/*
 * What the head gives one job (docs/fleet.md, "One job"): a snapshot of
 * its experience bank and the memo's results for the job's operator, so
 * that the job learns into the one bank and measures nothing the fleet
 * measured before.
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

/* Whether a stored result measured the operator named userdata (its cases' "op"). */
static bool result_of_op(const json_t *result, void *userdata)
{
        const json_t *cases = json_object_get(result, "cases");
        const char *op = json_string_value(json_object_get(json_array_get(cases, 0), "op"));

        return op && strcmp(op, userdata) == 0;
}

static int write_bank(struct store *store, const char *dir, size_t *ret_n, char *err,
                      size_t err_size)
{
        json_t *entries = NULL, *doc = NULL;
        char path[PATH_MAX], *text = NULL;
        int r = experience_list(store, &entries);

        if (r == 0) {
                *ret_n = json_array_size(entries);
                doc = experience_export_doc(entries);
                text = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
                r = text ? format_path(path, sizeof(path), "%s/bank.json", dir) : -ENOMEM;
        }
        if (r == 0)
                r = write_file_atomic(path, text, strlen(text), 0644);
        if (r < 0)
                snprintf(err, err_size, "%s/bank.json: %s", dir, strerror(-r));
        free(text);
        json_decref(doc);
        json_decref(entries);
        return r;
}

static int write_memo(struct store *store, const char *dir, const char *op, size_t *ret_n,
                      char *err, size_t err_size)
{
        char path[PATH_MAX], *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        int r = f ? 0 : -ENOMEM;

        *ret_n = 0;
        if (r == 0 && op)
                r = store_memo_write_if(store, result_of_op, (void *)op, f, ret_n);
        if (f && fclose(f) == EOF && r == 0)
                r = -ENOMEM;
        if (r == 0 && *ret_n > STORE_MEMO_MAX_LINES)
                r = -E2BIG; /* the job would refuse it */
        if (r == 0)
                r = format_path(path, sizeof(path), "%s/memo.jsonl", dir);
        if (r == 0)
                r = write_file_atomic(path, text ? text : "", len, 0644);
        if (r < 0)
                snprintf(err, err_size, "%s/memo.jsonl: %s", dir,
                         r == -E2BIG ? "the memo holds more results for this operator than a "
                                       "job takes (STORE_MEMO_MAX_LINES)"
                                     : strerror(-r));
        free(text);
        return r;
}

int fleet_write_inputs(struct store *store, const char *dir, const char *op,
                       struct fleet_inputs *ret, char *err, size_t err_size)
{
        struct fleet_inputs in = { 0 };
        int r = write_bank(store, dir, &in.bank_entries, err, err_size);

        if (r == 0)
                r = write_memo(store, dir, op, &in.memo_results, err, err_size);
        if (r == 0 && ret)
                *ret = in;
        return r;
}
