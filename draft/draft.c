/* SPDX-License-Identifier: MIT */
/*
 * The draft as a whole (draft.h): the session it runs the simulator in,
 * the order of its steps (the OpDef, the kernel entry, the cases and the
 * bench case, the dtype column, index ranges, attributes) and the manifest
 * they make, with the tolerances written out.  Also the small helpers the
 * other files share: notes, errors, listing files, comparing names.
 */
#include "draft-internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

/* ------------------------------------------------------------ the session */

int draft_session_new(struct draft_session **ret, char *err, size_t size)
{
        struct draft_session *s = calloc(1, sizeof(*s));
        int r = 0;

        if (!s) {
                snprintf(err, size, "out of memory");
                return -ENOMEM;
        }
        s->base = event_base_new();
        if (!s->base) {
                r = format_error(err, size, -ENOMEM, "out of memory");
                goto out;
        }
        /* the operator's host code and scripts run sandboxed, as every candidate's */
        r = npu_environment_open(&(struct npu_environment_options){ .base = s->base }, &s->env, err,
                                 size);
        if (r < 0)
                goto out;
        *ret = s;
        s = NULL;
out:
        draft_session_free(s);
        return r;
}

struct draft_session *draft_session_free(struct draft_session *s)
{
        if (!s)
                return NULL;
        npu_environment_close(&s->env);
        if (s->base)
                event_base_free(s->base);
        free(s);
        return NULL;
}

void draft_notes_release(struct draft_notes *notes)
{
        if (!notes)
                return;
        json_decref(notes->alt_bench);
        notes->alt_bench = NULL;
}

/* ------------------------------------------------------------ notes */

void draft_note(struct draft_notes *notes, const char *fmt, ...)
{
        va_list ap;

        if (notes->n == ARRAY_SIZE(notes->lines))
                return;
        va_start(ap, fmt);
        vsnprintf(notes->lines[notes->n++], sizeof(notes->lines[0]), fmt, ap);
        va_end(ap);
}

/* ------------------------------------------------------------ files and names */

int draft_compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files in dir ending in one of the suffixes, sorted; each a new string. */
size_t draft_list_files(const char *dir, const char *const *suffixes, char **names, size_t max)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        size_t n = 0;

        if (!d)
                return 0;
        while ((e = readdir(d)) && n < max) {
                size_t len = strlen(e->d_name);
                for (const char *const *s = suffixes; *s; s++) {
                        size_t sl = strlen(*s);
                        if (len > sl && strcmp(e->d_name + len - sl, *s) == 0) {
                                names[n] = strdup(e->d_name);
                                n += names[n] != NULL;
                                break;
                        }
                }
        }
        closedir(d);
        qsort(names, n, sizeof(*names), draft_compare_names);
        return n;
}

void draft_free_names(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
}

/* Names compared as msOpSt and OpDefs spell them: dstType, dst_type and DstType alike. */
bool draft_same_name(const char *a, const char *b)
{
        for (;;) {
                while (*a == '_')
                        a++;
                while (*b == '_')
                        b++;
                if (!*a || !*b)
                        return !*a && !*b;
                if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
                        return false;
                a++;
                b++;
        }
}

/* name lowered, without underscores, into buf */
void draft_plain_name(const char *name, char *buf, size_t size)
{
        size_t j = 0;

        for (; *name && j + 1 < size; name++)
                if (*name != '_')
                        buf[j++] = (char)tolower((unsigned char)*name);
        buf[j] = '\0';
}

/* ------------------------------------------------------------ the draft */

/* "--attr name=value": value as JSON (1e-6, true, [1, 2]), else as a string. */
static json_t *flag_attr_value(const char *text)
{
        json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);

        return v ? v : json_string(text);
}

static int draft_attrs(const struct draft_options *o, const struct opdef *def,
                       const json_t *st_attrs, json_t **ret, struct draft_notes *notes, char *err,
                       size_t size)
{
        json_t *attrs = json_object();

        for (size_t f = 0; f < o->n_flag_attrs; f++) {
                const char *eq = strchr(o->flag_attrs[f], '=');
                char name[128];
                bool known = false;
                if (!eq || eq == o->flag_attrs[f] || eq - o->flag_attrs[f] >= (long)sizeof(name)) {
                        json_decref(attrs);
                        return format_error(err, size, -EINVAL, "--attr %s: give it as NAME=VALUE",
                                            o->flag_attrs[f]);
                }
                snprintf(name, sizeof(name), "%.*s", (int)(eq - o->flag_attrs[f]),
                         o->flag_attrs[f]);
                for (size_t i = 0; i < def->n_attrs; i++)
                        known |= strcmp(def->attrs[i].name, name) == 0;
                if (!known) {
                        json_decref(attrs);
                        return format_error(err, size, -EINVAL,
                                            "--attr %s: the OpDef of %s has no "
                                            "attribute \"%s\"",
                                            o->flag_attrs[f], def->type, name);
                }
                json_object_set_new(attrs, name, flag_attr_value(eq + 1));
        }
        for (size_t i = 0; i < def->n_attrs; i++) {
                const struct attr *a = &def->attrs[i];
                if (json_object_get(attrs, a->name))
                        continue;
                if (a->default_value)
                        json_object_set(attrs, a->name, a->default_value);
                else if (json_object_get(st_attrs, a->name))
                        json_object_set(attrs, a->name, json_object_get(st_attrs, a->name));
                else if (a->required) {
                        json_decref(attrs);
                        return format_error(err, size, -EINVAL,
                                            "%s: .attrs.%s: the OpDef's attribute %s is REQUIRED "
                                            "and has no default; give it with --attr %s=VALUE",
                                            o->opdir, a->name, a->name, a->name);
                } else
                        draft_note(notes, "attribute %s has no default and is left out", a->name);
        }
        *ret = attrs;
        return 0;
}

/* NULL when out of memory. */
static json_t *tensor_list(const struct param *params, size_t n, size_t variant,
                           const char (*st_dtypes)[32])
{
        json_t *list = json_array();

        for (size_t i = 0; i < n; i++) {
                const char *dtype = st_dtypes && st_dtypes[i][0]
                                        ? st_dtypes[i]
                                        : draft_param_dtype(&params[i], variant);
                json_t *t = json_pack("{s:s, s:s}", "name", params[i].name, "dtype",
                                      dtype ? dtype : "float32");
                if (t && params[i].type == PARAM_DYNAMIC)
                        json_object_set_new(t, "list", json_true());
                if (t && params[i].ref)
                        json_object_set_new(t, "ref", json_true());
                if (json_array_append_new(list, t) < 0) {
                        json_decref(list);
                        return NULL;
                }
        }
        return list;
}

/* Whether the operator's CMakeLists turns auto-sync off (as cann-ops builds may). */
static bool auto_sync_off(const char *opdir)
{
        char path[PATH_MAX], *text = NULL;
        size_t len = 0;
        bool off;

        if (format_path(path, sizeof(path), "%s/CMakeLists.txt", opdir) < 0 ||
            read_text_file(path, DRAFT_SOURCE_MAX_BYTES, &text, &len) < 0)
                return false;
        off = strstr(text, "--cce-auto-sync=off") != NULL;
        free(text);
        return off;
}

/*
 * The default tolerance of every floating dtype among the tensors of doc,
 * written out; NULL when out of memory.
 */
static json_t *draft_tolerance(const json_t *doc)
{
        json_t *tolerance = json_object(), *t;
        size_t i;

        for (size_t k = 0; k < 2; k++) {
                json_array_foreach(json_object_get(doc, k ? "outputs" : "inputs"), i, t)
                {
                        const char *name = json_string_value(json_object_get(t, "dtype"));
                        const struct npu_tolerance *tol;
                        enum npu_dtype dtype;
                        if (npu_dtype_from_name(name, &dtype) < 0 || !npu_dtype_is_float(dtype) ||
                            json_object_get(tolerance, name))
                                continue;
                        tol = npu_default_tolerance(dtype);
                        json_t *one =
                            json_pack("{s:f, s:f, s:f}", "atol", tol->atol, "rtol", tol->rtol,
                                      "max_mismatch_fraction", tol->max_mismatch_fraction);
                        if (json_object_set_new(tolerance, name, one) < 0) {
                                json_decref(tolerance);
                                return NULL;
                        }
                }
        }
        return tolerance;
}

/* Whether an input's name says it holds indices (indices, sorted_index, idx). */
static bool index_like(const char *name)
{
        char n[128];

        draft_plain_name(name, n, sizeof(n));
        return strstr(n, "indic") || strstr(n, "index") || strstr(n, "idx");
}

/*
 * Seeded integers default to [-100, 100], which sends an index input out
 * of bounds.  An integer input named as an index that no msOpSt
 * value_range covers gets [0, n - 1], n the smallest dimension of the
 * first other input that is not an index, in any case: an index valid
 * along every axis of the tensor it most likely indexes.  -ENOMEM.
 */
static int draft_index_ranges(const struct opdef *def, struct draft_state *st, size_t variant,
                              struct draft_notes *notes)
{
        for (size_t k = 0; k < def->n_inputs; k++) {
                const char *dtype = st->have_dtypes && st->dtypes[k][0]
                                        ? st->dtypes[k]
                                        : draft_param_dtype(&def->inputs[k], variant);
                const char *data = NULL;
                enum npu_dtype dt;
                json_int_t smallest = 0;
                json_t *c;
                size_t i;

                if (!index_like(def->inputs[k].name) ||
                    json_object_get(st->ranges, def->inputs[k].name) || !dtype ||
                    npu_dtype_from_name(dtype, &dt) < 0 || npu_dtype_is_float(dt))
                        continue;
                for (size_t q = 0; q < def->n_inputs && !data; q++)
                        if (q != k && !index_like(def->inputs[q].name) &&
                            def->inputs[q].type != PARAM_DYNAMIC)
                                data = def->inputs[q].name;
                json_array_foreach(st->cases, i, c)
                {
                        const json_t *dims = json_object_get(json_object_get(c, "shapes"), data);
                        const json_t *d;
                        size_t j;
                        json_array_foreach(dims, j,
                                           d) if (json_is_integer(d) &&
                                                  (!smallest || json_integer_value(d) < smallest))
                            smallest = json_integer_value(d);
                }
                if (!data || smallest < 1)
                        continue;
                if (json_object_set_new(st->ranges, def->inputs[k].name,
                                        json_pack("[i, I]", 0, smallest - 1)) < 0)
                        return -ENOMEM;
                draft_note(
                    notes,
                    "input_ranges.%s [0, %lld]: an index input, kept inside every axis of %s "
                    "(seeded integers are in [-100, 100]); check it",
                    def->inputs[k].name, (long long)(smallest - 1), data);
        }
        return 0;
}

int draft_manifest(const struct draft_options *o, struct draft_session *s, json_t **ret_doc,
                   struct draft_notes *notes, char *err, size_t size)
{
        struct opdef *def = calloc(1, sizeof(*def));
        char abs_dir[PATH_MAX];
        /* the sandbox binds the operator by an absolute path */
        struct draft_state st = { .cases = json_array(),
                                  .ranges = json_object(),
                                  .attrs = json_object(),
                                  .sim = s,
                                  .opdir = realpath(o->opdir, abs_dir) ? abs_dir : o->opdir };
        json_t *doc = NULL, *attrs = NULL;
        char kernel[320];
        size_t variant = 0;
        bool sync_off = auto_sync_off(o->opdir);
        int r = def ? 0 : -ENOMEM;

        if (r == 0)
                r = draft_find_opdef(o, s, def, err, size);
        if (r < 0)
                goto out;
        draft_note(notes,
                   "name %s, %zu inputs, %zu outputs and %zu attributes from the OpDef op_host "
                   "registers",
                   def->type, def->n_inputs, def->n_outputs, def->n_attrs);
        r = draft_choose_kernel(o, def, kernel, sizeof(kernel), notes, err, size);
        if (r == 0)
                r = draft_gather_cases(o, def, &st, notes, err, size);
        if (r == 0)
                r = draft_bench_case(o, def, &st, notes, err, size);
        if (r == 0)
                r = draft_choose_variant(o, def, &st, &variant, notes, err, size);
        if (r == 0 && draft_index_ranges(def, &st, variant, notes) < 0)
                r = format_error(err, size, -ENOMEM, "out of memory");
        if (r == 0)
                r = draft_attrs(o, def, st.attrs, &attrs, notes, err, size);
        if (r < 0)
                goto out;

        doc = json_object();
        json_object_set_new(doc, "name", json_string(def->type));
        json_object_set_new(doc, "kernel", json_string(kernel));
        json_object_set_new(doc, "description",
                            json_string("Drafted by 'ascendopt init' from the operator's OpDef "
                                        "and kernel; check the cases, ranges and tolerances."));
        const char(*in_dtypes)[32] = st.have_dtypes ? (const char(*)[32])st.dtypes : NULL;
        const char(*out_dtypes)[32] = st.have_dtypes ? (const char(*)[32])st.out_dtypes : NULL;
        if (json_object_set_new(doc, "inputs",
                                tensor_list(def->inputs, def->n_inputs, variant, in_dtypes)) < 0 ||
            json_object_set_new(doc, "outputs",
                                tensor_list(def->outputs, def->n_outputs, variant, out_dtypes)) <
                0) {
                r = format_error(err, size, -ENOMEM, "out of memory");
                goto out;
        }
        /* a ref output is its input: the same dtype */
        for (size_t k = 0; k < def->n_outputs; k++) {
                const struct param *in = draft_find_input(def, def->outputs[k].name);
                if (def->outputs[k].ref && in)
                        json_object_set(
                            json_array_get(json_object_get(doc, "outputs"), k), "dtype",
                            json_object_get(json_array_get(json_object_get(doc, "inputs"),
                                                           (size_t)(in - def->inputs)),
                                            "dtype"));
        }
        if (def->n_outputs_declared == 0)
                draft_note(
                    notes,
                    "the OpDef declares no outputs: the kernel updates its inputs in place, so "
                    "every input is read back after the run as a ref output");
        if (json_object_size(attrs))
                json_object_set(doc, "attrs", attrs);
        json_object_set(doc, "cases", st.cases);
        if (json_object_size(st.ranges))
                json_object_set(doc, "input_ranges", st.ranges);
        json_t *tolerance = draft_tolerance(doc);
        if (!tolerance) {
                r = format_error(err, size, -ENOMEM, "out of memory");
                goto out;
        }
        if (json_object_size(tolerance))
                json_object_set(doc, "tolerance", tolerance);
        json_decref(tolerance);
        json_object_set_new(doc, "level", json_integer(o->level));
        json_object_set_new(doc, "auto_sync", json_boolean(!sync_off));
        if (sync_off)
                draft_note(notes,
                           "auto_sync false: CMakeLists.txt builds with --cce-auto-sync=off");
        *ret_doc = doc;
        doc = NULL;
out:
        json_decref(doc);
        json_decref(attrs);
        json_decref(st.cases);
        json_decref(st.ranges);
        json_decref(st.attrs);
        draft_opdef_free(def);
        return r;
}
