/* SPDX-License-Identifier: MIT */
/*
 * The OpDef and what follows from it alone: what op_host registers, read
 * by running the host code on the simulator (npu_sim_describe_start), so
 * that loops and helpers that build the OpDef are followed; the kernel
 * entry among op_kernel's "__global__ __aicore__" functions, read on
 * tokens; and the dtypes, as the manifest spells them, of the OpDef's
 * dtype columns, one of which the draft takes.
 */
#include "draft-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cxx/cxx.h"

/* ------------------------------------------------------------ sources */

/* A source file, read and tokenized. */
struct source {
        char rel[PATH_MAX];
        char *text;
        struct cxx_file file;
};

static int source_load(struct source *src, const char *opdir, const char *rel, char *err,
                       size_t size)
{
        char path[PATH_MAX];
        unsigned line = 0;
        size_t len = 0;
        int r;

        snprintf(src->rel, sizeof(src->rel), "%s", rel);
        if (format_path(path, sizeof(path), "%s/%s", opdir, rel) < 0)
                return format_error(err, size, -EINVAL, "%s/%s: path too long", opdir, rel);
        r = read_text_file(path, DRAFT_SOURCE_MAX_BYTES, &src->text, &len);
        if (r < 0) {
                snprintf(err, size, "%.1024s: cannot read: %s", path, strerror(-r));
                return r;
        }
        r = cxx_file_parse(&src->file, src->rel, src->text, len, &line);
        if (r < 0)
                snprintf(err, size, "%.1024s:%u: cannot tokenize (unterminated literal or comment)",
                         path, line);
        return r;
}

static void source_release(struct source *src)
{
        cxx_file_release(&src->file);
        free(src->text);
        memset(src, 0, sizeof(*src));
}

/* ------------------------------------------------------------ the OpDef */

struct described {
        json_t *description;
        char error[2048];
        bool done;
};

static void on_described(json_t *description, const char *error, void *userdata)
{
        struct described *w = userdata;

        w->description = description;
        snprintf(w->error, sizeof(w->error), "%s", error ? error : "");
        w->done = true;
}

/* What the operator's host code registers, by running it (npu_sim_describe_start). */
static int describe_host(struct draft_session *s, const char *opdir, json_t **ret, char *err,
                         size_t size)
{
        struct described w = { 0 };
        char work[PATH_MAX];
        const char *tmp = getenv("TMPDIR");
        int r;

        if (format_path(work, sizeof(work), "%s/ascendopt-init.XXXXXX",
                        tmp && *tmp ? tmp : "/tmp") < 0 ||
            !mkdtemp(work))
                return format_error(err, size, -EINVAL, "cannot make a scratch directory: %s",
                                    strerror(errno));
        r = npu_sim_describe_start(s->env.runner, &s->env.paths, opdir, work, 300, on_described, &w,
                                   NULL);
        if (r == -ENOENT)
                snprintf(err, size, "%s: no op_host/*.cpp holding the OpDef", opdir);
        else if (r < 0)
                snprintf(err, size, "cannot compile op_host: %s", strerror(-r));
        while (r == 0 && !w.done)
                event_base_loop(s->base, EVLOOP_ONCE);
        rm_rf(work);
        if (r == 0 && !w.description)
                r = format_error(err, size, -EINVAL, "%s: %s", opdir, w.error);
        if (r == 0)
                *ret = w.description;
        return r;
}

/* A float attribute as written (1e-6f), not as the float widened to double (9.99999997e-07). */
static json_t *shortest_float(double v)
{
        char buf[32];

        for (int digits = 6; digits <= 9; digits++) {
                snprintf(buf, sizeof(buf), "%.*g", digits, v);
                if ((float)strtod(buf, NULL) == (float)v)
                        return json_real(strtod(buf, NULL));
        }
        return json_real(v);
}

static json_t *attr_default(const json_t *a)
{
        const char *type = json_string_value(json_object_get(a, "type"));
        json_t *v = json_object_get(a, "default"), *copy, *item;
        size_t i;

        if (!v)
                return NULL;
        if (type && strcmp(type, "float") == 0 && json_is_number(v))
                return shortest_float(json_number_value(v));
        if (!type || strcmp(type, "list_float") != 0 || !json_is_array(v))
                return json_deep_copy(v);
        copy = json_array();
        json_array_foreach(v, i, item)
            json_array_append_new(copy, shortest_float(json_number_value(item)));
        return copy;
}

static int params_from_json(const json_t *list, struct param *params, size_t *n, char *err,
                            size_t size)
{
        const json_t *j, *dt;
        size_t i, k;

        if (json_array_size(list) > NPU_MAX_TENSORS)
                return format_error(err, size, -EINVAL,
                                    "the OpDef has more than %d inputs or outputs",
                                    NPU_MAX_TENSORS);
        json_array_foreach(list, i, j)
        {
                const char *type = json_string_value(json_object_get(j, "param_type"));
                struct param *p = &params[i];
                memset(p, 0, sizeof(*p));
                snprintf(p->name, sizeof(p->name), "%s",
                         json_string_value(json_object_get(j, "name")) ?: "");
                p->type = type && strcmp(type, "dynamic") == 0    ? PARAM_DYNAMIC
                          : type && strcmp(type, "optional") == 0 ? PARAM_OPTIONAL
                                                                  : PARAM_REQUIRED;
                json_array_foreach(json_object_get(j, "dtypes"), k, dt)
                {
                        if (p->n_dtypes == DRAFT_MAX_VARIANTS)
                                break;
                        /* a dtype the runtime cannot name comes as a number */
                        snprintf(p->dtypes[p->n_dtypes++], sizeof(p->dtypes[0]), "%s",
                                 json_is_string(dt) ? json_string_value(dt) : "");
                }
        }
        *n = json_array_size(list);
        return 0;
}

static int opdef_from_json(const json_t *j, struct opdef *def, char *err, size_t size)
{
        const json_t *a;
        size_t i;
        int r;

        snprintf(def->type, sizeof(def->type), "%s",
                 json_string_value(json_object_get(j, "type")) ?: "");
        r = params_from_json(json_object_get(j, "inputs"), def->inputs, &def->n_inputs, err, size);
        if (r == 0)
                r = params_from_json(json_object_get(j, "outputs"), def->outputs, &def->n_outputs,
                                     err, size);
        if (r < 0)
                return r;
        def->n_outputs_declared = def->n_outputs;
        def->has_infer_shape = json_is_true(json_object_get(j, "has_infer_shape"));
        if (json_array_size(json_object_get(j, "attrs")) > DRAFT_MAX_ATTRS)
                return format_error(err, size, -EINVAL, "the OpDef has more than %d attributes",
                                    DRAFT_MAX_ATTRS);
        json_array_foreach(json_object_get(j, "attrs"), i, a)
        {
                struct attr *at = &def->attrs[def->n_attrs++];
                snprintf(at->name, sizeof(at->name), "%s",
                         json_string_value(json_object_get(a, "name")) ?: "");
                at->required = json_is_true(json_object_get(a, "required"));
                snprintf(at->type, sizeof(at->type), "%s",
                         json_string_value(json_object_get(a, "type")) ?: "");
                at->default_value = attr_default(a);
        }
        /*
         * An output named as an input is, for CANN, one tensor the operator
         * updates in place (a ref tensor; aclnn passes it once): a ref output.
         */
        for (size_t k = 0; k < def->n_outputs; k++)
                for (size_t q = 0; q < def->n_inputs; q++)
                        if (strcmp(def->inputs[q].name, def->outputs[k].name) == 0) {
                                if (def->inputs[q].type != def->outputs[k].type)
                                        return format_error(err, size, -EINVAL,
                                                            "the OpDef of %s has an input and an "
                                                            "output both named %s, one dynamic and "
                                                            "one not",
                                                            def->type, def->outputs[k].name);
                                def->outputs[k].ref = true;
                        }
        if (!def->n_inputs)
                return format_error(
                    err, size, -EINVAL,
                    "the OpDef of %s declares no inputs; an operator needs at least "
                    "one",
                    def->type);
        /*
         * An operator that declares no outputs updates its inputs in place
         * (an in-place scale, a scatter into var): every input is read back
         * after the run as a ref output that takes no kernel argument.
         */
        for (size_t q = 0; q < def->n_inputs && !def->n_outputs_declared; q++) {
                def->outputs[q] = def->inputs[q];
                def->outputs[q].ref = def->outputs[q].undeclared = true;
        }
        if (!def->n_outputs_declared)
                def->n_outputs = def->n_inputs;
        return 0;
}

struct opdef *draft_opdef_free(struct opdef *def)
{
        for (size_t i = 0; def && i < def->n_attrs; i++)
                json_decref(def->attrs[i].default_value);
        free(def);
        return NULL;
}

/* The one OpDef op_host registers (or --op's), read by running the host code. */
int draft_find_opdef(const struct draft_options *o, struct draft_session *s, struct opdef *def,
                     char *err, size_t size)
{
        json_t *description = NULL, *defs, *j, *pick = NULL;
        size_t i;
        int r;

        r = describe_host(s, o->opdir, &description, err, size);
        if (r < 0)
                return r;
        defs = json_object_get(description, "op_defs");
        json_array_foreach(defs, i, j)
        {
                const char *type = json_string_value(json_object_get(j, "type"));
                if (!o->op_type || (type && strcmp(type, o->op_type) == 0))
                        pick = pick ? pick : j;
        }
        if (json_array_size(defs) == 0)
                r = format_error(err, size, -EINVAL,
                                 "%s: op_host registers no OpDef (OP_ADD)%s; .name, .inputs and "
                                 ".outputs must be written by hand",
                                 o->opdir,
                                 json_array_size(json_object_get(description, "op_impls"))
                                     ? ", only tiling (IMPL_OP_OPTILING)"
                                     : "");
        else if (!pick)
                r = format_error(
                    err, size, -EINVAL, "%s: op_host registers no OpDef named %s (it has %s%s)",
                    o->opdir, o->op_type,
                    json_string_value(json_object_get(json_array_get(defs, 0), "type")),
                    json_array_size(defs) > 1 ? ", ..." : "");
        else if (!o->op_type && json_array_size(defs) > 1)
                r = format_error(
                    err, size, -EINVAL,
                    "%s: op_host registers %zu OpDefs (%s, %s%s); pick one with --op", o->opdir,
                    json_array_size(defs),
                    json_string_value(json_object_get(json_array_get(defs, 0), "type")),
                    json_string_value(json_object_get(json_array_get(defs, 1), "type")),
                    json_array_size(defs) > 2 ? ", ..." : "");
        else
                r = opdef_from_json(pick, def, err, size);
        /* InferShape may come with IMPL_OP_INFERSHAPE instead of the OpDef */
        json_array_foreach(json_object_get(description, "op_impls"), i, j)
        {
                if (r == 0 && json_is_true(json_object_get(j, "has_infer_shape")) &&
                    strcmp(json_string_value(json_object_get(j, "type")) ?: "", def->type) == 0)
                        def->has_infer_shape = true;
        }
        json_decref(description);
        return r;
}

/* ------------------------------------------------------------ the kernel entry */

/*
 * The kernel entries of op_kernel ("__global__ __aicore__ void name(") as
 * "file:name", marking templated ones with a trailing '<'.
 */
static int find_entries(const char *opdir, char entries[][320], size_t *n, size_t max, char *err,
                        size_t size)
{
        static const char *const suffixes[] = { ".cpp", ".cc", ".cxx", NULL };
        char dir[PATH_MAX], *files[DRAFT_MAX_SOURCES];
        size_t n_files;
        int r = 0;

        if (format_path(dir, sizeof(dir), "%s/op_kernel", opdir) < 0)
                return format_error(err, size, -ENAMETOOLONG, "%s: path too long", opdir);
        n_files = draft_list_files(dir, suffixes, files, DRAFT_MAX_SOURCES);
        for (size_t f = 0; f < n_files && r == 0; f++) {
                struct source src = { 0 };
                const struct cxx_file *cf = &src.file;
                char rel[PATH_MAX];
                snprintf(rel, sizeof(rel), "op_kernel/%s", files[f]);
                r = source_load(&src, opdir, rel, err, size);
                for (size_t i = 0; r == 0 && i < cf->tokens.n && *n < max;
                     i = cxx_tok_next(cf, i)) {
                        size_t j = i, id;
                        bool templated;
                        char name[256];
                        if (!cxx_tok_eq(cf, i, "__global__"))
                                continue;
                        while (j < cf->tokens.n && !cxx_tok_eq(cf, j, "(") &&
                               !cxx_tok_eq(cf, j, ";") && !cxx_tok_eq(cf, j, "{"))
                                j = cxx_tok_next(cf, j);
                        if (!cxx_tok_eq(cf, j, "("))
                                continue;
                        /* the name is the identifier before "(" */
                        id = cxx_tok_prev(cf, j);
                        if (!cxx_tok_is_ident(cf, id))
                                continue;
                        /* a template header before __global__ makes it a template */
                        templated = cxx_range_mentions(cf, cxx_stmt_first(cf, i), i, "template",
                                                       strlen("template"));
                        snprintf(entries[(*n)++], 320, "%s:%s%s", files[f],
                                 cxx_tok_copy(cf, id, name, sizeof(name)), templated ? "<" : "");
                        i = j;
                }
                source_release(&src);
        }
        draft_free_names(files, n_files);
        if (r == 0 && n_files == 0)
                return format_error(err, size, -EINVAL, "%s: no op_kernel/*.cpp holding the kernel",
                                    opdir);
        return r;
}

/* The kernel entry: --kernel, the only one, or the one named after the op. */
int draft_choose_kernel(const struct draft_options *o, const struct opdef *def, char *ret,
                        size_t ret_size, struct draft_notes *notes, char *err, size_t size)
{
        char entries[16][320], *snake = npu_snake_case(def->type);
        size_t n = 0, pick = (size_t)-1;
        int r;

        if (!snake)
                return -ENOMEM;
        if (o->kernel) {
                snprintf(ret, ret_size, "%s", o->kernel);
                free(snake);
                return 0;
        }
        r = find_entries(o->opdir, entries, &n, ARRAY_SIZE(entries), err, size);
        for (size_t k = 0; r == 0 && k < n; k++) {
                const char *name = strchr(entries[k], ':') + 1;
                size_t len = strcspn(name, "<");
                if (n == 1 || (strlen(snake) == len && strncmp(name, snake, len) == 0))
                        pick = k;
        }
        if (r == 0 && n == 0)
                r = format_error(err, size, -EINVAL,
                                 "%s: .kernel: no \"__global__ __aicore__ void NAME(...)\" entry "
                                 "in op_kernel/; give it with --kernel",
                                 o->opdir);
        else if (r == 0 && pick == (size_t)-1)
                r = format_error(err, size, -EINVAL,
                                 "%s: .kernel: op_kernel/ has %zu entries and none is named %s; "
                                 "pick one with --kernel",
                                 o->opdir, n, snake);
        if (r == 0) {
                const char *name = strchr(entries[pick], ':') + 1;
                size_t len = strcspn(name, "<");
                if (name[len] == '<')
                        r = format_error(err, size, -EINVAL,
                                         "%s: .kernel: the entry %.*s is a template; give the "
                                         "instantiation to run with --kernel, e.g. --kernel "
                                         "'%.*s<1>'",
                                         o->opdir, (int)len, name, (int)len, name);
                else {
                        snprintf(ret, ret_size, "%.*s", (int)len, name);
                        draft_note(notes, "kernel %s from op_kernel/%.*s", ret,
                                   (int)(strchr(entries[pick], ':') - entries[pick]),
                                   entries[pick]);
                }
        }
        free(snake);
        return r;
}

/* ------------------------------------------------------------ dtypes */

/* ge's DT_ names (without DT_) and msOpSt's type names, as the manifest spells them. */
const char *draft_manifest_dtype(const char *name)
{
        static const char *const map[][2] = {
                { "FLOAT", "float32" },   { "FLOAT32", "float32" },     { "float", "float32" },
                { "FLOAT16", "float16" }, { "BF16", "bfloat16" },       { "INT8", "int8" },
                { "INT16", "int16" },     { "INT32", "int32" },         { "INT64", "int64" },
                { "UINT8", "uint8" },     { "UINT16", "uint16" },       { "UINT32", "uint32" },
                { "BOOL", "bool" },       { "UINT64", "uint64" },       { "DOUBLE", "float64" },
                { "double", "float64" },  { "COMPLEX64", "complex64" },
        };
        enum npu_dtype dtype;

        for (size_t i = 0; i < ARRAY_SIZE(map); i++)
                if (strcmp(map[i][0], name) == 0)
                        return map[i][1];
        return npu_dtype_from_name(name, &dtype) == 0 ? npu_dtype_name(dtype) : NULL;
}

/* The dtype of p in column v; a param listing one dtype has it in every column. */
const char *draft_param_dtype(const struct param *p, size_t v)
{
        if (!p->n_dtypes)
                return NULL;
        return draft_manifest_dtype(p->dtypes[p->n_dtypes == 1 ? 0 : v]);
}

/* Whether p lists a dtype of dtype's kind: floating, or integer and bool. */
bool draft_same_kind(const struct param *p, const char *dtype)
{
        enum npu_dtype want, have;

        if (npu_dtype_from_name(dtype, &want) < 0)
                return false;
        for (size_t v = 0; v < p->n_dtypes; v++)
                if (draft_manifest_dtype(p->dtypes[v]) &&
                    npu_dtype_from_name(draft_manifest_dtype(p->dtypes[v]), &have) == 0 &&
                    npu_dtype_is_float(have) == npu_dtype_is_float(want))
                        return true;
        return false;
}

/* Whether p lists dtype (as the manifest names it) in any column. */
bool draft_param_lists(const struct param *p, const char *dtype)
{
        for (size_t v = 0; v < p->n_dtypes; v++)
                if (draft_manifest_dtype(p->dtypes[v]) &&
                    strcmp(draft_manifest_dtype(p->dtypes[v]), dtype) == 0)
                        return true;
        return false;
}

static size_t variant_count(const struct opdef *def)
{
        size_t n = 1;

        for (size_t i = 0; i < def->n_inputs + def->n_outputs; i++) {
                const struct param *p =
                    i < def->n_inputs ? &def->inputs[i] : &def->outputs[i - def->n_inputs];
                n = p->n_dtypes > n ? p->n_dtypes : n;
        }
        return n;
}

/* Whether every param has a dtype the simulator knows in column v. */
static bool variant_supported(const struct opdef *def, size_t v)
{
        for (size_t i = 0; i < def->n_inputs + def->n_outputs; i++) {
                const struct param *p =
                    i < def->n_inputs ? &def->inputs[i] : &def->outputs[i - def->n_inputs];
                if (p->n_dtypes > 1 && v >= p->n_dtypes)
                        return false;
                if (p->n_dtypes && !draft_param_dtype(p, v))
                        return false;
        }
        return true;
}

const struct param *draft_find_input(const struct opdef *def, const char *name)
{
        for (size_t i = 0; i < def->n_inputs; i++)
                if (strcmp(def->inputs[i].name, name) == 0)
                        return &def->inputs[i];
        return NULL;
}

/*
 * The OpDef's dtype column: the one whose inputs have the msOpSt cases'
 * types, else --variant, else the first the simulator has.
 */
int draft_choose_variant(const struct draft_options *o, const struct opdef *def,
                         const struct draft_state *st, size_t *ret_variant,
                         struct draft_notes *notes, char *err, size_t size)
{
        size_t n_variants = variant_count(def), variant = 0;

        if (o->variant >= 0) {
                if ((size_t)o->variant >= n_variants || !variant_supported(def, (size_t)o->variant))
                        return format_error(
                            err, size, -EINVAL,
                            "--variant %ld: the OpDef lists %zu dtype combination%s "
                            "(0 to %zu)%s",
                            o->variant, n_variants, n_variants == 1 ? "" : "s", n_variants - 1,
                            (size_t)o->variant < n_variants
                                ? " and this one has a dtype the simulator lacks"
                                : "");
                variant = (size_t)o->variant;
        } else {
                while (variant < n_variants && !variant_supported(def, variant))
                        variant++;
                if (variant == n_variants)
                        return format_error(err, size, -EINVAL,
                                            "%s: .inputs: no dtype combination of the OpDef is one "
                                            "the simulator has (float16, float32, bfloat16, "
                                            "float64, complex64, the integers up to 64 bits, bool)",
                                            o->opdir);
        }
        if (st->have_dtypes) {
                for (size_t v = 0; v < n_variants; v++) {
                        bool same = true;
                        for (size_t k = 0; k < def->n_inputs; k++) {
                                const char *dtype = draft_param_dtype(&def->inputs[k], v);
                                same &= !st->dtypes[k][0] ||
                                        (dtype && strcmp(dtype, st->dtypes[k]) == 0);
                        }
                        if (same) {
                                variant = v;
                                break;
                        }
                }
                draft_note(notes, "dtypes from %s",
                           st->dtypes_from ? st->dtypes_from : "the cases");
        } else if (n_variants > 1) {
                draft_note(notes,
                           "dtypes: combination %zu of the %zu the OpDef lists (--variant picks "
                           "another)",
                           variant, n_variants);
        }
        *ret_variant = variant;
        return 0;
}
