/* SPDX-License-Identifier: MIT */
/*
 * The report's account of dtypes (issue #26): the combination the
 * manifest's cases run, the other combinations of the OpDef every new best
 * had to pass on the small cases against the original's outputs, those
 * the original fails itself, those that could not be checked and why, and
 * how many candidates were rejected for breaking one.
 */
#include "report-internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Candidates rejected by the gate. */
static int64_t rejected(const struct episode_summary *s)
{
        return json_integer_value(json_object_get(s->failures, "dtype_regression"));
}

/* "a, b and c" of the strings in list (or of member key of its objects). */
static void put_list(struct strbuf *sb, const json_t *list, const char *key)
{
        const json_t *item;
        size_t i, n = json_array_size(list);

        json_array_foreach(list, i, item)
        {
                strbuf_puts(sb, i == 0 ? "" : i + 1 == n ? " and " : ", ");
                sbuf_put_md(sb, key ? json_string_value(json_object_get(item, key))
                                    : json_string_value(item));
        }
}

/* The dtypes the rejected rows broke, each once. */
static void put_broken(struct strbuf *sb, const struct episode_summary *s)
{
        json_t *seen = json_array();
        size_t i;

        for (i = 0; seen && i < s->n_rows; i++) {
                const char *d = s->rows[i].dtype_regression;
                bool dup = false;
                size_t k;
                const json_t *v;

                if (!d)
                        continue;
                json_array_foreach(seen, k, v)
                {
                        dup |= strcmp(json_string_value(v), d) == 0;
                }
                if (!dup)
                        json_array_append_new(seen, json_string(d));
        }
        if (json_array_size(seen)) {
                strbuf_puts(sb, " (");
                put_list(sb, seen, NULL);
                strbuf_puts(sb, ")");
        }
        json_decref(seen);
}

void report_md_dtypes(struct strbuf *sb, const struct episode_summary *s)
{
        const struct episode_dtypes *d = &s->dtypes;
        const json_t *item;
        size_t i;

        if (!d->present) {
                strbuf_puts(sb, "- Dtypes: only the manifest's were checked (the record lists no "
                                "other).\n");
                return;
        }
        strbuf_puts(sb, "- Dtypes checked: ");
        sbuf_put_md(sb, d->manifest ? d->manifest : "the manifest's");
        strbuf_puts(sb, " (the manifest's cases)");
        if (json_array_size(d->checked)) {
                strbuf_puts(sb, "; every new best also passed ");
                put_list(sb, d->checked, NULL);
                strbuf_puts(sb, " on the small cases, against the original's outputs on the same "
                                "seeded inputs");
        }
        strbuf_puts(sb, ".\n");
        if (json_array_size(d->baseline_fails)) {
                strbuf_puts(sb, "- Dtypes the original fails itself, so not held against the "
                                "candidates: ");
                json_array_foreach(d->baseline_fails, i, item)
                {
                        strbuf_puts(sb, i ? "; " : "");
                        sbuf_put_md(sb, json_string_value(json_object_get(item, "dtypes")));
                        strbuf_puts(sb, " (");
                        sbuf_put_md(sb, json_string_value(json_object_get(item, "status")));
                        strbuf_puts(sb, ")");
                }
                strbuf_puts(sb, ".\n");
        }
        if (json_array_size(d->not_checkable)) {
                strbuf_puts(sb, "- Dtypes the OpDef registers that could not be checked: ");
                json_array_foreach(d->not_checkable, i, item)
                {
                        strbuf_puts(sb, i ? "; " : "");
                        sbuf_put_md(sb, json_string_value(json_object_get(item, "dtypes")));
                        strbuf_puts(sb, ": ");
                        sbuf_put_md(sb, json_string_value(json_object_get(item, "why")));
                }
                strbuf_puts(sb, ".\n");
        }
        if (rejected(s) > 0) {
                strbuf_printf(sb,
                              "- Candidates rejected for breaking a dtype the original passes: "
                              "%" PRId64,
                              rejected(s));
                put_broken(sb, s);
                strbuf_puts(sb, ".\n");
        }
}

/* A new reference to list, or an empty array. */
static json_t *list_or_empty(const json_t *list)
{
        return list ? json_incref((json_t *)list) : json_array();
}

json_t *report_json_dtypes(const struct episode_summary *s)
{
        const struct episode_dtypes *d = &s->dtypes;

        if (!d->present)
                return json_null();
        /* json_pack takes the three lists, even when it fails */
        return json_pack("{s:s?, s:o, s:o, s:o, s:I}", "manifest", d->manifest, "checked",
                         list_or_empty(d->checked), "not_checkable",
                         list_or_empty(d->not_checkable), "baseline_fails",
                         list_or_empty(d->baseline_fails), "rejected", (json_int_t)rejected(s));
}
