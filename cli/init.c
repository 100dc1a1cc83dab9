/* SPDX-License-Identifier: MIT */
/*
 * ascendopt init: drafts an operator's ascendopt.json from what its own
 * files say.  The OpDef in op_host gives the name, the inputs and outputs
 * with their dtypes and the attributes with their defaults; op_kernel gives
 * the kernel entry; msOpSt cases (the JSON files in tests/st) or --case
 * give the shapes.  The OpDef is read by running the host code on the
 * simulator (npu_sim_describe_start), so loops and helpers that build it
 * are followed.  The draft is checked as a manifest and run once on the
 * simulator before it is written, so a draft that does not match the
 * operator is never left behind.
 */
#include "cli-internal.h"

#include "npu/npu.h"
#include "optimizer/optimizer.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

#define SOURCE_MAX_BYTES (4u << 20)
#define MAX_SOURCES      64
#define MAX_VARIANTS     32 /* dtype combinations an OpDef lists */
#define MAX_ATTRS        64
#define MAX_FLAG_CASES   16
#define MAX_FLAG_ATTRS   64

enum param_type { PARAM_REQUIRED, PARAM_OPTIONAL, PARAM_DYNAMIC };

/* An input or output as the OpDef declares it. */
struct param {
        char name[128];
        enum param_type type;
        char dtypes[MAX_VARIANTS][32]; /* the runtime's names (float16...), "" for one it lacks */
        size_t n_dtypes;
        /* an output that is the input of its name, updated in place (a ref tensor);
         * undeclared: the OpDef declares no outputs and the input is read back */
        bool ref, undeclared;
};

/* An attribute as the OpDef declares it. */
struct attr {
        char name[128];
        char type[16]; /* the runtime's: int, float, bool, string, list_int, ... */
        bool required;
        json_t *default_value; /* NULL: none */
};

struct opdef {
        char type[128];
        struct param inputs[NPU_MAX_TENSORS], outputs[NPU_MAX_TENSORS];
        size_t n_inputs, n_outputs;
        size_t n_outputs_declared; /* n_outputs but for undeclared ref outputs */
        bool has_infer_shape;      /* it registers an InferShape (else outputs need shapes) */
        struct attr attrs[MAX_ATTRS];
        size_t n_attrs;
};

struct init_options {
        const char *opdir;
        const char *op_type;     /* --op: which OpDef when op_host has several */
        const char *kernel;      /* --kernel: the entry expression */
        const char *bench_shape; /* --bench-shape: the timed case */
        const char *flag_cases[MAX_FLAG_CASES];
        size_t n_flag_cases;
        const char *flag_attrs[MAX_FLAG_ATTRS];
        size_t n_flag_attrs;
        long variant; /* --variant: the OpDef's dtype column; -1: the first the simulator has */
        int level;
        bool force, to_stdout, check;
};

/* What the draft was made from, said to the user after it is written. */
struct notes {
        char lines[32][512];
        size_t n;
        char grown_bench[129]; /* the bench case init grew, which the check runs too */
        json_t *alt_bench;     /* the same grown along the other axis (owned), or NULL */
};

static void note(struct notes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct notes *notes, const char *fmt, ...)
{
        va_list ap;

        if (notes->n == ARRAY_SIZE(notes->lines))
                return;
        va_start(ap, fmt);
        vsnprintf(notes->lines[notes->n++], sizeof(notes->lines[0]), fmt, ap);
        va_end(ap);
}

static int init_error(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int init_error(char *err, size_t size, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* ------------------------------------------------------------ files */

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files in dir ending in one of the suffixes, sorted; each a new string. */
static size_t list_files(const char *dir, const char *const *suffixes, char **names, size_t max)
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
        qsort(names, n, sizeof(*names), compare_names);
        return n;
}

static void free_names(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
}

/* ------------------------------------------------------------ tokens */

/* A source file and its tokens. */
struct source {
        char rel[PATH_MAX];
        char *text;
        struct token_list tokens;
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
                return init_error(err, size, "%s/%s: path too long", opdir, rel);
        r = read_text_file(path, SOURCE_MAX_BYTES, &src->text, &len);
        if (r < 0) {
                snprintf(err, size, "%.1024s: cannot read: %s", path, strerror(-r));
                return r;
        }
        r = tokenize(src->text, len, &src->tokens, &line);
        if (r < 0)
                snprintf(err, size, "%.1024s:%u: cannot tokenize (unterminated literal or comment)",
                         path, line);
        return r;
}

static void source_release(struct source *src)
{
        token_list_release(&src->tokens);
        free(src->text);
        memset(src, 0, sizeof(*src));
}

static const struct token *tok(const struct source *src, size_t i)
{
        return &src->tokens.tokens[i];
}

static bool is_kind(const struct source *src, size_t i, enum token_kind kind)
{
        return i < src->tokens.n && tok(src, i)->kind == kind;
}

static bool is(const struct source *src, size_t i, const char *s)
{
        return i < src->tokens.n && token_is(&src->tokens, i, s);
}

static size_t next(const struct source *src, size_t i)
{
        return token_next(&src->tokens, i);
}

/* The token's text into buf (truncated). */
static const char *text_of(const struct source *src, size_t i, char *buf, size_t size)
{
        snprintf(buf, size, "%.*s", (int)tok(src, i)->len, src->text + tok(src, i)->start);
        return buf;
}

/* ------------------------------------------------------------ the OpDef */

/* The simulator and a loop to run its children on, for describing and checking. */
struct sim_session {
        struct npu_sim_paths paths;
        struct event_base *base;
        struct child_runner *runner;
};

static int sim_session_open(struct sim_session *s, char *err, size_t size)
{
        if (npu_sim_paths_find(&s->paths) < 0)
                return init_error(err, size,
                                  "the simulator runtime was not found; build it "
                                  "with 'make' or set ASCENDOPT_SIM_DIR");
        s->base = event_base_new();
        if (!s->base || child_runner_new(s->base, NULL, &s->runner) < 0)
                return init_error(err, size,
                                  "cannot start the child-process runner (is "
                                  "ascendopt-exec installed?)");
        return 0;
}

static void sim_session_close(struct sim_session *s)
{
        child_runner_free(s->runner);
        if (s->base)
                event_base_free(s->base);
        npu_sim_paths_release(&s->paths);
        memset(s, 0, sizeof(*s));
}

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
static int describe_host(struct sim_session *s, const char *opdir, json_t **ret, char *err,
                         size_t size)
{
        struct described w = { 0 };
        char work[PATH_MAX];
        const char *tmp = getenv("TMPDIR");
        int r;

        if (format_path(work, sizeof(work), "%s/ascendopt-init.XXXXXX",
                        tmp && *tmp ? tmp : "/tmp") < 0 ||
            !mkdtemp(work))
                return init_error(err, size, "cannot make a scratch directory: %s",
                                  strerror(errno));
        r = npu_sim_describe_start(s->runner, &s->paths, opdir, work, 300, on_described, &w);
        if (r == -ENOENT)
                r = init_error(err, size, "%s: no op_host/*.cpp holding the OpDef", opdir);
        else if (r < 0)
                snprintf(err, size, "cannot compile op_host: %s", strerror(-r));
        while (r == 0 && !w.done)
                event_base_loop(s->base, EVLOOP_ONCE);
        rm_rf(work);
        if (r == 0 && !w.description)
                r = init_error(err, size, "%s: %s", opdir, w.error);
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
                return init_error(err, size, "the OpDef has more than %d inputs or outputs",
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
                        if (p->n_dtypes == MAX_VARIANTS)
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
        if (json_array_size(json_object_get(j, "attrs")) > MAX_ATTRS)
                return init_error(err, size, "the OpDef has more than %d attributes", MAX_ATTRS);
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
                                        return init_error(err, size,
                                                          "the OpDef of %s has an input and an "
                                                          "output both named %s, one dynamic and "
                                                          "one not",
                                                          def->type, def->outputs[k].name);
                                def->outputs[k].ref = true;
                        }
        if (!def->n_inputs)
                return init_error(err, size,
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

static struct opdef *opdef_free(struct opdef *def)
{
        for (size_t i = 0; def && i < def->n_attrs; i++)
                json_decref(def->attrs[i].default_value);
        free(def);
        return NULL;
}

/* The one OpDef op_host registers (or --op's), read by running the host code. */
static int find_opdef(const struct init_options *o, struct sim_session *s, struct opdef *def,
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
                r = init_error(err, size,
                               "%s: op_host registers no OpDef (OP_ADD)%s; .name, .inputs and "
                               ".outputs must be written by hand",
                               o->opdir,
                               json_array_size(json_object_get(description, "op_impls"))
                                   ? ", only tiling (IMPL_OP_OPTILING)"
                                   : "");
        else if (!pick)
                r = init_error(err, size, "%s: op_host registers no OpDef named %s (it has %s%s)",
                               o->opdir, o->op_type,
                               json_string_value(json_object_get(json_array_get(defs, 0), "type")),
                               json_array_size(defs) > 1 ? ", ..." : "");
        else if (!o->op_type && json_array_size(defs) > 1)
                r = init_error(err, size,
                               "%s: op_host registers %zu OpDefs (%s, %s%s); pick one with --op",
                               o->opdir, json_array_size(defs),
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
        char dir[PATH_MAX], *files[MAX_SOURCES];
        size_t n_files;
        int r = 0;

        format_path(dir, sizeof(dir), "%s/op_kernel", opdir);
        n_files = list_files(dir, suffixes, files, MAX_SOURCES);
        for (size_t f = 0; f < n_files && r == 0; f++) {
                struct source src = { 0 };
                char rel[PATH_MAX];
                snprintf(rel, sizeof(rel), "op_kernel/%s", files[f]);
                r = source_load(&src, opdir, rel, err, size);
                for (size_t i = 0; r == 0 && i < src.tokens.n && *n < max; i = next(&src, i)) {
                        size_t j = i, start;
                        bool templated = false;
                        char name[256];
                        if (!is(&src, i, "__global__"))
                                continue;
                        while (j < src.tokens.n && !is(&src, j, "(") && !is(&src, j, ";") &&
                               !is(&src, j, "{"))
                                j = next(&src, j);
                        if (!is(&src, j, "("))
                                continue;
                        /* the name is the identifier before "(" */
                        size_t id = token_prev(&src.tokens, j);
                        if (id == (size_t)-1 || !is_kind(&src, id, TOKEN_IDENTIFIER))
                                continue;
                        /* a template header before __global__ makes it a template */
                        for (start = token_prev(&src.tokens, i);
                             start != (size_t)-1 && !is(&src, start, ";") &&
                             !is(&src, start, "}") && !is(&src, start, "{") &&
                             !tok(&src, start)->in_directive;
                             start = token_prev(&src.tokens, start))
                                templated |= is(&src, start, "template");
                        snprintf(entries[(*n)++], 320, "%s:%s%s", files[f],
                                 text_of(&src, id, name, sizeof(name)), templated ? "<" : "");
                        i = j;
                }
                source_release(&src);
        }
        free_names(files, n_files);
        if (r == 0 && n_files == 0)
                return init_error(err, size, "%s: no op_kernel/*.cpp holding the kernel", opdir);
        return r;
}

/* The kernel entry: --kernel, the only one, or the one named after the op. */
static int choose_kernel(const struct init_options *o, const struct opdef *def, char *ret,
                         size_t ret_size, struct notes *notes, char *err, size_t size)
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
                r = init_error(err, size,
                               "%s: .kernel: no \"__global__ __aicore__ void NAME(...)\" entry "
                               "in op_kernel/; give it with --kernel",
                               o->opdir);
        else if (r == 0 && pick == (size_t)-1)
                r = init_error(err, size,
                               "%s: .kernel: op_kernel/ has %zu entries and none is named %s; "
                               "pick one with --kernel",
                               o->opdir, n, snake);
        if (r == 0) {
                const char *name = strchr(entries[pick], ':') + 1;
                size_t len = strcspn(name, "<");
                if (name[len] == '<')
                        r = init_error(err, size,
                                       "%s: .kernel: the entry %.*s is a template; give the "
                                       "instantiation to run with --kernel, e.g. --kernel "
                                       "'%.*s<1>'",
                                       o->opdir, (int)len, name, (int)len, name);
                else {
                        snprintf(ret, ret_size, "%.*s", (int)len, name);
                        note(notes, "kernel %s from op_kernel/%.*s", ret,
                             (int)(strchr(entries[pick], ':') - entries[pick]), entries[pick]);
                }
        }
        free(snake);
        return r;
}

/* ------------------------------------------------------------ dtypes */

/* ge's DT_ names (without DT_) and msOpSt's type names, as the manifest spells them. */
static const char *manifest_dtype(const char *name)
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
static const char *param_dtype(const struct param *p, size_t v)
{
        if (!p->n_dtypes)
                return NULL;
        return manifest_dtype(p->dtypes[p->n_dtypes == 1 ? 0 : v]);
}

/* Whether p lists a dtype of dtype's kind: floating, or integer and bool. */
static bool same_kind(const struct param *p, const char *dtype)
{
        enum npu_dtype want, have;

        if (npu_dtype_from_name(dtype, &want) < 0)
                return false;
        for (size_t v = 0; v < p->n_dtypes; v++)
                if (manifest_dtype(p->dtypes[v]) &&
                    npu_dtype_from_name(manifest_dtype(p->dtypes[v]), &have) == 0 &&
                    npu_dtype_is_float(have) == npu_dtype_is_float(want))
                        return true;
        return false;
}

/* Whether p lists dtype (as the manifest names it) in any column. */
static bool param_lists(const struct param *p, const char *dtype)
{
        for (size_t v = 0; v < p->n_dtypes; v++)
                if (manifest_dtype(p->dtypes[v]) &&
                    strcmp(manifest_dtype(p->dtypes[v]), dtype) == 0)
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
                if (p->n_dtypes && !param_dtype(p, v))
                        return false;
        }
        return true;
}

/* ------------------------------------------------------------ cases */

/* Parses "4096x4096" (or "1") into a JSON list of dimensions. */
static json_t *parse_dims(const char *s, size_t len)
{
        json_t *dims = json_array();
        size_t i = 0;

        while (dims && i < len) {
                char *end;
                unsigned long long d;
                if (s[i] < '0' || s[i] > '9')
                        goto bad;
                d = strtoull(s + i, &end, 10);
                if (d == 0 || d > NPU_MAX_CASE_ELEMENTS || json_array_size(dims) == NPU_MAX_DIMS)
                        goto bad;
                json_array_append_new(dims, json_integer((json_int_t)d));
                i = (size_t)(end - s);
                if (i < len && s[i] != 'x' && s[i] != 'X')
                        goto bad;
                if (i < len && ++i == len)
                        goto bad; /* a trailing 'x' */
        }
        if (json_array_size(dims) == 0)
                goto bad;
        return dims;
bad:
        json_decref(dims);
        return NULL;
}

/* A shape for param p: dims, or for a dynamic list "100;2x50;4099" a list of dims. */
static json_t *parse_shape(const char *s, size_t len, const struct param *p)
{
        json_t *list;

        if (p->type != PARAM_DYNAMIC)
                return parse_dims(s, len);
        list = json_array();
        while (list && len) {
                size_t item = strcspn(s, ";");
                json_t *dims = parse_dims(s, item < len ? item : len);
                if (!dims || json_array_size(list) == NPU_MAX_LIST_ITEMS) {
                        json_decref(dims);
                        json_decref(list);
                        return NULL;
                }
                json_array_append_new(list, dims);
                if (item >= len)
                        break;
                s += item + 1;
                len -= item + 1;
        }
        return list;
}

static const struct param *find_input(const struct opdef *def, const char *name)
{
        for (size_t i = 0; i < def->n_inputs; i++)
                if (strcmp(def->inputs[i].name, name) == 0)
                        return &def->inputs[i];
        return NULL;
}

/*
 * One --case: "[NAME:]x=8x2048,y=8x2048", or "[NAME:]8x2048" for every
 * input alike; a dynamic input takes a list, "x=100;2x50".  A dynamic
 * output gets the shapes of the first dynamic input, as foreach operators
 * have them.  Appends {name, shapes} to cases.
 */
static int parse_flag_case(const char *spec, const struct opdef *def, json_t *cases, char *err,
                           size_t size)
{
        const char *colon = strchr(spec, ':'), *body = colon ? colon + 1 : spec;
        json_t *shapes = json_object(), *first_list = NULL;
        char name[129];

        if (colon && (colon == spec || colon - spec > 128)) {
                json_decref(shapes);
                return init_error(err, size, "--case %s: a case name is 1 to 128 characters", spec);
        }
        if (colon)
                snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
        else
                snprintf(name, sizeof(name), "case%zu", json_array_size(cases) + 1);
        if (!strchr(body, '=')) {
                for (size_t i = 0; i < def->n_inputs; i++) {
                        json_t *shape = parse_shape(body, strlen(body), &def->inputs[i]);
                        if (!shape)
                                goto bad;
                        json_object_set_new(shapes, def->inputs[i].name, shape);
                }
        } else {
                const char *p = body;
                while (*p) {
                        size_t item = strcspn(p, ","), key = strcspn(p, "=");
                        const struct param *input;
                        json_t *shape;
                        char tensor[128];
                        if (key >= item || key == 0 || key >= sizeof(tensor))
                                goto bad;
                        snprintf(tensor, sizeof(tensor), "%.*s", (int)key, p);
                        input = find_input(def, tensor);
                        for (size_t k = 0; !input && k < def->n_outputs; k++)
                                if (strcmp(def->outputs[k].name, tensor) == 0)
                                        input = &def->outputs[k]; /* an output's shape */
                        if (!input) {
                                char names[512];
                                size_t len = 0;
                                names[0] = '\0';
                                for (size_t k = 0;
                                     k < def->n_inputs + def->n_outputs && len + 1 < sizeof(names);
                                     k++)
                                        len += (size_t)snprintf(
                                            names + len, sizeof(names) - len, "%s%s", k ? ", " : "",
                                            k < def->n_inputs
                                                ? def->inputs[k].name
                                                : def->outputs[k - def->n_inputs].name);
                                json_decref(shapes);
                                return init_error(err, size,
                                                  "--case %s: %s has no input or output \"%s\" "
                                                  "(its inputs, then outputs: %s)",
                                                  spec, def->type, tensor, names);
                        }
                        shape = parse_shape(p + key + 1, item - key - 1, input);
                        if (!shape)
                                goto bad;
                        json_object_set_new(shapes, tensor, shape);
                        p += item + (p[item] == ',');
                }
        }
        for (size_t i = 0; i < def->n_inputs && !first_list; i++)
                if (def->inputs[i].type == PARAM_DYNAMIC)
                        first_list = json_object_get(shapes, def->inputs[i].name);
        for (size_t i = 0; i < def->n_outputs && first_list; i++)
                if (def->outputs[i].type == PARAM_DYNAMIC)
                        json_object_set_new(shapes, def->outputs[i].name,
                                            json_deep_copy(first_list));
        json_array_append_new(cases, json_pack("{s:s, s:o}", "name", name, "shapes", shapes));
        return 0;
bad:
        json_decref(shapes);
        return init_error(err, size,
                          "--case %s: give shapes as [NAME:]x=8x2048,y=8x2048 or [NAME:]8x2048, "
                          "a dynamic input as x=100;2x50 (dimensions > 0, at most %d)",
                          spec, NPU_MAX_DIMS);
}

/* A name the manifest takes (1 to 128 characters), unique among cases. */
static void case_name(const char *wanted, const json_t *cases, char *buf, size_t size)
{
        char base[120];
        bool taken;
        size_t i, k = 1;
        json_t *c;

        snprintf(base, sizeof(base), "%s", wanted && *wanted ? wanted : "case");
        snprintf(buf, size, "%s", base);
        do {
                taken = false;
                json_array_foreach(cases, i, c) taken |=
                    strcmp(json_string_value(json_object_get(c, "name")), buf) == 0;
                if (taken)
                        snprintf(buf, size, "%s_%zu", base, ++k);
        } while (taken);
}

/* The first dtype an msOpSt "type" names ("float16" or ["float16", "float"]). */
static const char *st_type(const json_t *type)
{
        const json_t *first = json_is_array(type) ? json_array_get(type, 0) : type;

        return json_is_string(first) ? manifest_dtype(json_string_value(first)) : NULL;
}

/* [lo, hi] from msOpSt's value_range, [[lo, hi]] or [lo, hi]. */
static json_t *st_range(const json_t *range)
{
        const json_t *pair =
            json_is_array(json_array_get(range, 0)) ? json_array_get(range, 0) : range;

        if (json_array_size(pair) != 2 || !json_is_number(json_array_get(pair, 0)) ||
            !json_is_number(json_array_get(pair, 1)))
                return NULL;
        return json_pack("[f, f]", json_number_value(json_array_get(pair, 0)),
                         json_number_value(json_array_get(pair, 1)));
}

struct st_state {
        json_t *cases;                        /* manifest cases */
        json_t *ranges;                       /* input_ranges */
        json_t *attrs;                        /* values of attributes the cases give, first seen */
        char dtypes[NPU_MAX_TENSORS][32];     /* per input, from the first case with types */
        char out_dtypes[NPU_MAX_TENSORS][32]; /* per output, the same */
        bool have_dtypes;
        const char *dtypes_from; /* "the msOpSt cases", "main.cpp" */
        size_t files, skipped, goldens;
        char skip_reason[512]; /* the first case left out, and why */
        struct sim_session *sim;
        const char *opdir;
};

static void st_skip(struct st_state *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void st_skip(struct st_state *st, const char *fmt, ...)
{
        va_list ap;

        if (st->skipped++ == 0) {
                va_start(ap, fmt);
                vsnprintf(st->skip_reason, sizeof(st->skip_reason), fmt, ap);
                va_end(ap);
        }
}

/* Names compared as msOpSt and OpDefs spell them: dstType, dst_type and DstType alike. */
static bool same_name(const char *a, const char *b)
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

/* A type msOpSt uses for an input that is left out (an absent optional input). */
static bool st_absent(const json_t *desc)
{
        const json_t *type = json_object_get(desc, "type"),
                     *format = json_object_get(desc, "format");
        const json_t *t = json_is_array(type) ? json_array_get(type, 0) : type;
        const json_t *f = json_is_array(format) ? json_array_get(format, 0) : format;

        return (json_is_string(t) && strcmp(json_string_value(t), "UNDEFINED") == 0) ||
               (json_is_string(f) && strcmp(json_string_value(f), "RESERVED") == 0);
}

struct fuzz_wait {
        json_t *answer;
};

static void on_fuzz_done(json_t *answer, void *userdata)
{
        ((struct fuzz_wait *)userdata)->answer = answer;
}

/*
 * Runs an msOpSt case's fuzz_impl ("fuzz.py:fuzz_branch_001", relative to
 * tests/st) in the sandbox: msOpSt takes every field written "fuzz" (a
 * shape, a value, an attribute) from what it returns.  NULL and why when
 * it cannot be run.
 */
static json_t *run_fuzz(struct st_state *st, const char *impl, char *why, size_t why_size)
{
        const char *colon = strrchr(impl, ':');
        char file[PATH_MAX], dir[PATH_MAX];
        const char *tmp = getenv("TMPDIR");
        struct fuzz_wait w = { 0 };
        json_t *job, *drawn = NULL;
        int r;

        if (!colon ||
            format_path(file, sizeof(file), "%s/tests/st/%.*s", st->opdir, (int)(colon - impl),
                        impl) < 0 ||
            access(file, R_OK) < 0) {
                snprintf(why, why_size, "its fuzz_impl %s is not there", impl);
                return NULL;
        }
        if (format_path(dir, sizeof(dir), "%s/ascendopt-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp") <
                0 ||
            !mkdtemp(dir)) {
                snprintf(why, why_size, "cannot make a scratch directory");
                return NULL;
        }
        job = json_pack("{s:s, s:s, s:s}", "mode", "fuzz", "file", file, "function", colon + 1);
        r = npu_golden_run_job(st->sim->runner, st->opdir, dir, job, true, 120, on_fuzz_done, &w);
        json_decref(job);
        while (r == 0 && !w.answer)
                event_base_loop(st->sim->base, EVLOOP_ONCE);
        if (r < 0)
                snprintf(why, why_size, "cannot run its fuzz_impl: %s", child_strerror(r));
        else if (strcmp(json_string_value(json_object_get(w.answer, "status")) ?: "", "ok") != 0)
                snprintf(why, why_size, "its fuzz_impl %s: %s", impl,
                         json_string_value(json_object_get(w.answer, "why")) ?: "failed");
        else
                drawn = json_incref(json_object_get(w.answer, "drawn"));
        json_decref(w.answer);
        rm_rf(dir);
        return drawn;
}

/* "./test_x.py:calc_expect_func" (relative to tests/st) as the manifest's golden path. */
static int st_golden(const struct st_state *st, const json_t *c, char *buf, size_t size)
{
        const char *f = json_string_value(json_object_get(c, "calc_expect_func_file"));
        char path[PATH_MAX];

        if (!f)
                return -ENOENT;
        while (strncmp(f, "./", 2) == 0)
                f += 2;
        if (!strchr(f, ':') || strstr(f, "..") || f[0] == '/')
                return -EINVAL;
        if (format_path(buf, size, "tests/st/%s", f) < 0 ||
            format_path(path, sizeof(path), "%s/%.*s", st->opdir, (int)(strrchr(buf, ':') - buf),
                        buf) < 0 ||
            access(path, R_OK) < 0)
                return -ENOENT;
        return 0;
}

/* One msOpSt case: its input shapes, types, ranges, attributes and golden. */
static int read_st_case(const json_t *c, const char *file, const struct opdef *def,
                        struct st_state *st, char *err, size_t size)
{
        const json_t *inputs = json_object_get(c, "input_desc"), *desc,
                     *op = json_object_get(c, "op");
        const char *cname = json_string_value(json_object_get(c, "case_name")) ?: "?";
        json_t *shapes = json_object(), *attrs = json_object(), *names = json_object(), *a;
        json_t *drawn = NULL, *present = json_array(), *place = json_array();
        json_t *case_ranges = json_object();
        char name[129], why[600];
        size_t i;
        bool full;

        (void)err;
        (void)size;
        if (op && json_is_string(op) && strcmp(json_string_value(op), def->type) != 0) {
                st_skip(st, "%s: case %s is of operator %s", file, cname, json_string_value(op));
                goto out;
        }
        /*
         * An input msOpSt gives as UNDEFINED is left out: with every input
         * listed, it is the OpDef's input at its place (or of its name),
         * which must be optional, and the case gives it null (absent).
         */
        full = json_is_array(inputs) && json_array_size(inputs) == def->n_inputs;
        json_array_foreach(inputs, i, desc)
        {
                const char *given = json_string_value(json_object_get(desc, "name"));
                const struct param *p = full ? &def->inputs[i] : NULL;
                if (!st_absent(desc)) {
                        json_array_append(present, (json_t *)desc);
                        json_array_append_new(
                            place, json_integer(full ? (json_int_t)i
                                                     : (json_int_t)json_array_size(present) - 1));
                        continue;
                }
                for (size_t k = 0; full && given && k < def->n_inputs; k++)
                        if (same_name(def->inputs[k].name, given))
                                p = &def->inputs[k];
                if (p && p->type != PARAM_OPTIONAL) {
                        st_skip(st,
                                "%s: case %s leaves input %s out (UNDEFINED), which the OpDef "
                                "of %s requires",
                                file, cname, p->name, def->type);
                        goto out;
                }
                if (p)
                        json_object_set_new(shapes, p->name, json_null());
        }
        if (!json_is_array(inputs) || (!full && json_array_size(present) != def->n_inputs)) {
                st_skip(st,
                        "%s: case %s gives %zu inputs (%zu left out as UNDEFINED); the OpDef of "
                        "%s has %zu",
                        file, cname, json_array_size(present),
                        json_array_size(inputs) - json_array_size(present), def->type,
                        def->n_inputs);
                goto out;
        }
        json_array_foreach(present, i, desc)
        {
                if (json_is_string(json_object_get(desc, "shape")) && !drawn) {
                        const char *impl = json_string_value(json_object_get(c, "fuzz_impl"));
                        drawn = impl ? run_fuzz(st, impl, why, sizeof(why)) : NULL;
                        if (!drawn) {
                                st_skip(st, "%s: case %s: input_desc[%zu].shape is \"%s\" and %s",
                                        file, cname, i,
                                        json_string_value(json_object_get(desc, "shape")),
                                        impl ? why : "the case names no fuzz_impl to draw it");
                                goto out;
                        }
                }
        }
        json_array_foreach(present, i, desc)
        {
                const char *given = json_string_value(json_object_get(desc, "name"));
                const struct param *p = &def->inputs[json_integer_value(json_array_get(place, i))];
                const json_t *shape = json_object_get(desc, "shape");
                json_t *range;
                for (size_t k = 0; given && k < def->n_inputs; k++)
                        if (same_name(def->inputs[k].name, given))
                                p = &def->inputs[k];
                if (json_is_string(shape))
                        shape = json_object_get(
                            json_object_get(json_object_get(drawn, "input_desc"), given ?: ""),
                            "shape");
                /* msOpSt's [] is a scalar (rank 0); [[..], [..]] lists shapes to take in turn */
                if (json_is_array(json_array_get(shape, 0)))
                        shape = json_array_get(shape, 0);
                if (!json_is_array(shape)) {
                        st_skip(st, "%s: case %s: input_desc[%zu] gives no shape", file, cname, i);
                        goto out;
                }
                /* a manifest has one dtype per tensor: the first case's */
                if (st->have_dtypes && st->dtypes[p - def->inputs][0] &&
                    st_type(json_object_get(desc, "type")) &&
                    strcmp(st_type(json_object_get(desc, "type")), st->dtypes[p - def->inputs]) !=
                        0) {
                        st_skip(st,
                                "%s: case %s gives input %s as %s, where an earlier case has %s "
                                "(a manifest has one dtype per tensor)",
                                file, cname, p->name, st_type(json_object_get(desc, "type")),
                                st->dtypes[p - def->inputs]);
                        goto out;
                }
                json_object_set(shapes, p->name, (json_t *)shape);
                if (given && strcmp(given, p->name) != 0)
                        json_object_set_new(names, p->name, json_string(given));
                if (!st->have_dtypes && st_type(json_object_get(desc, "type")))
                        snprintf(st->dtypes[p - def->inputs], sizeof(st->dtypes[0]), "%s",
                                 st_type(json_object_get(desc, "type")));
                range = st_range(json_object_get(desc, "value_range"));
                /* the first case's range is the manifest's; a case with another has its own */
                if (range && !json_object_get(st->ranges, p->name))
                        json_object_set(st->ranges, p->name, range);
                else if (range && !json_equal(range, json_object_get(st->ranges, p->name)))
                        json_object_set(case_ranges, p->name, range);
                json_decref(range);
        }
        json_array_foreach(json_object_get(c, "output_desc"), i, desc)
        {
                const char *given = json_string_value(json_object_get(desc, "name"));
                size_t k = i;
                for (size_t o = 0; given && o < def->n_outputs; o++)
                        if (same_name(def->outputs[o].name, given))
                                k = o;
                /* a ref output's name is its input's, whose msOpSt name the golden gets */
                if (k < def->n_outputs && given && strcmp(given, def->outputs[k].name) != 0 &&
                    !def->outputs[k].ref)
                        json_object_set_new(names, def->outputs[k].name, json_string(given));
                if (!st->have_dtypes && k < def->n_outputs &&
                    st_type(json_object_get(desc, "type")))
                        snprintf(st->out_dtypes[k], sizeof(st->out_dtypes[0]), "%s",
                                 st_type(json_object_get(desc, "type")));
                /*
                 * msOpSt allocates the output with the shape it gives: so does
                 * the case (InferShape would decide otherwise, and an operator
                 * whose InferShape reads what the simulator's host side lacks
                 * gets it wrong).
                 */
                if (k < def->n_outputs && !def->outputs[k].ref &&
                    def->outputs[k].type != PARAM_DYNAMIC) {
                        const json_t *shape = json_object_get(desc, "shape");
                        if (json_is_string(shape))
                                shape = json_object_get(
                                    json_object_get(json_object_get(drawn, "output_desc"),
                                                    given ?: ""),
                                    "shape");
                        if (json_is_array(json_array_get(shape, 0)))
                                shape = json_array_get(shape, 0);
                        if (json_is_array(shape))
                                json_object_set(shapes, def->outputs[k].name, (json_t *)shape);
                }
        }
        for (size_t k = 0; k < def->n_inputs; k++)
                st->have_dtypes |= st->dtypes[k][0] != '\0';
        if (st->have_dtypes)
                st->dtypes_from = "the msOpSt cases";
        json_array_foreach(json_object_get(c, "attr"), i, a)
        {
                const char *given = json_string_value(json_object_get(a, "name"));
                const char *attr_name = given;
                json_t *value = json_object_get(a, "value");
                if (!given || !value)
                        continue;
                if (json_is_string(value) && strcmp(json_string_value(value), "fuzz") == 0)
                        value = json_object_get(json_object_get(drawn, "attr"), given);
                for (size_t k = 0; k < def->n_attrs; k++)
                        if (same_name(def->attrs[k].name, given))
                                attr_name = def->attrs[k].name;
                if (!value)
                        continue;
                if (strcmp(attr_name, given) != 0)
                        json_object_set_new(names, attr_name, json_string(given));
                json_object_set(attrs, attr_name, value);
                if (!json_object_get(st->attrs, attr_name))
                        json_object_set(st->attrs, attr_name, value);
        }
        case_name(cname, st->cases, name, sizeof(name));
        /* in the OpDef's order, an absent input at its place */
        for (size_t k = 0; k < def->n_inputs + def->n_outputs; k++) {
                const char *key =
                    k < def->n_inputs ? def->inputs[k].name : def->outputs[k - def->n_inputs].name;
                json_t *v = json_object_get(shapes, key);
                if (v) {
                        json_incref(v);
                        json_object_del(shapes, key);
                        json_object_set_new(shapes, key, v);
                }
        }
        json_t *entry = json_pack("{s:s, s:O}", "name", name, "shapes", shapes);
        if (json_object_size(attrs))
                json_object_set(entry, "attrs", attrs);
        if (json_object_size(case_ranges))
                json_object_set(entry, "input_ranges", case_ranges);
        {
                char golden[PATH_MAX];
                if (st_golden(st, c, golden, sizeof(golden)) == 0) {
                        json_t *g = json_pack("{s:s}", "function", golden);
                        if (json_object_size(names))
                                json_object_set(g, "names", names);
                        json_object_set_new(entry, "golden", g);
                        st->goldens++;
                }
        }
        json_array_append_new(st->cases, entry);
out:
        json_decref(shapes);
        json_decref(attrs);
        json_decref(names);
        json_decref(drawn);
        json_decref(present);
        json_decref(place);
        json_decref(case_ranges);
        return 0;
}

/* Every msOpSt case in the JSON files of tests/st, in file order. */
static int read_st_cases(const char *opdir, const struct opdef *def, struct st_state *st, char *err,
                         size_t size)
{
        static const char *const suffixes[] = { ".json", NULL };
        char dir[PATH_MAX], *files[MAX_SOURCES];
        size_t n_files;
        int r = 0;

        format_path(dir, sizeof(dir), "%s/tests/st", opdir);
        n_files = list_files(dir, suffixes, files, MAX_SOURCES);
        for (size_t f = 0; f < n_files && r == 0; f++) {
                char path[PATH_MAX], rel[PATH_MAX], *text = NULL;
                json_t *doc = NULL, *c;
                size_t len = 0, i;
                snprintf(rel, sizeof(rel), "tests/st/%s", files[f]);
                format_path(path, sizeof(path), "%s/%s", opdir, rel);
                r = read_text_file(path, SOURCE_MAX_BYTES, &text, &len);
                if (r < 0) {
                        snprintf(err, size, "%.1024s: cannot read: %s", path, strerror(-r));
                        break;
                }
                r = json_parse_text(text, len, path, &doc, err, size);
                free(text);
                if (r < 0)
                        break;
                if (json_is_object(doc)) /* one case on its own */
                        doc = json_pack("[o]", doc);
                st->files++;
                json_array_foreach(doc, i, c)
                {
                        if (json_array_size(st->cases) == NPU_MAX_CASES) {
                                st_skip(st, "%s: more than %d cases", rel, NPU_MAX_CASES);
                                continue;
                        }
                        r = read_st_case(c, rel, def, st, err, size);
                        if (r < 0)
                                break;
                }
                json_decref(doc);
        }
        free_names(files, n_files);
        return r;
}

/* Elements of all the inputs a case's shapes give. */
static double shapes_elements(const json_t *shapes)
{
        const json_t *dims;
        const char *key;
        double total = 0;

        json_object_foreach((json_t *)shapes, key, dims)
        {
                /* a dynamic list's shape is a list of dims */
                bool is_list = json_is_array(json_array_get(dims, 0));
                size_t n_items = is_list ? json_array_size(dims) : 1;
                for (size_t k = 0; k < n_items; k++) {
                        const json_t *item = is_list ? json_array_get(dims, k) : dims, *d;
                        double n = 1;
                        size_t i;
                        json_array_foreach(item, i, d) n *=
                            json_is_integer(d) ? (double)json_integer_value(d) : 1;
                        total += n;
                }
        }
        return total;
}

static double case_elements(const json_t *c)
{
        return shapes_elements(json_object_get(c, "shapes"));
}

/* ------------------------------------------------------------ the draft */

/* "--attr name=value": value as JSON (1e-6, true, [1, 2]), else as a string. */
static json_t *flag_attr_value(const char *text)
{
        json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);

        return v ? v : json_string(text);
}

static int draft_attrs(const struct init_options *o, const struct opdef *def,
                       const json_t *st_attrs, json_t **ret, struct notes *notes, char *err,
                       size_t size)
{
        json_t *attrs = json_object();

        for (size_t f = 0; f < o->n_flag_attrs; f++) {
                const char *eq = strchr(o->flag_attrs[f], '=');
                char name[128];
                bool known = false;
                if (!eq || eq == o->flag_attrs[f] || eq - o->flag_attrs[f] >= (long)sizeof(name)) {
                        json_decref(attrs);
                        return init_error(err, size, "--attr %s: give it as NAME=VALUE",
                                          o->flag_attrs[f]);
                }
                snprintf(name, sizeof(name), "%.*s", (int)(eq - o->flag_attrs[f]),
                         o->flag_attrs[f]);
                for (size_t i = 0; i < def->n_attrs; i++)
                        known |= strcmp(def->attrs[i].name, name) == 0;
                if (!known) {
                        json_decref(attrs);
                        return init_error(err, size,
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
                        return init_error(err, size,
                                          "%s: .attrs.%s: the OpDef's attribute %s is REQUIRED "
                                          "and has no default; give it with --attr %s=VALUE",
                                          o->opdir, a->name, a->name, a->name);
                } else
                        note(notes, "attribute %s has no default and is left out", a->name);
        }
        *ret = attrs;
        return 0;
}

static json_t *tensor_list(const struct param *params, size_t n, size_t variant,
                           const char (*st_dtypes)[32])
{
        json_t *list = json_array();

        for (size_t i = 0; i < n; i++) {
                const char *dtype =
                    st_dtypes && st_dtypes[i][0] ? st_dtypes[i] : param_dtype(&params[i], variant);
                json_t *t = json_pack("{s:s, s:s}", "name", params[i].name, "dtype",
                                      dtype ? dtype : "float32");
                if (params[i].type == PARAM_DYNAMIC)
                        json_object_set_new(t, "list", json_true());
                if (params[i].ref)
                        json_object_set_new(t, "ref", json_true());
                json_array_append_new(list, t);
        }
        return list;
}

/* Whether the operator's CMakeLists turns auto-sync off (as cann-ops builds may). */
static bool auto_sync_off(const char *opdir)
{
        char path[PATH_MAX], *text = NULL;
        size_t len = 0;
        bool off;

        format_path(path, sizeof(path), "%s/CMakeLists.txt", opdir);
        if (read_text_file(path, SOURCE_MAX_BYTES, &text, &len) < 0)
                return false;
        off = strstr(text, "--cce-auto-sync=off") != NULL;
        free(text);
        return off;
}

/*
 * The OpDef's dtype column: the one whose inputs have the msOpSt cases'
 * types, else --variant, else the first the simulator has.
 */
static int choose_variant(const struct init_options *o, const struct opdef *def,
                          const struct st_state *st, size_t *ret_variant, struct notes *notes,
                          char *err, size_t size)
{
        size_t n_variants = variant_count(def), variant = 0;

        if (o->variant >= 0) {
                if ((size_t)o->variant >= n_variants || !variant_supported(def, (size_t)o->variant))
                        return init_error(err, size,
                                          "--variant %ld: the OpDef lists %zu dtype combination%s "
                                          "(0 to %zu)%s",
                                          o->variant, n_variants, n_variants == 1 ? "" : "s",
                                          n_variants - 1,
                                          (size_t)o->variant < n_variants
                                              ? " and this one has a dtype the simulator lacks"
                                              : "");
                variant = (size_t)o->variant;
        } else {
                while (variant < n_variants && !variant_supported(def, variant))
                        variant++;
                if (variant == n_variants)
                        return init_error(err, size,
                                          "%s: .inputs: no dtype combination of the OpDef is one "
                                          "the simulator has (float16, float32, bfloat16, "
                                          "float64, complex64, the integers up to 64 bits, bool)",
                                          o->opdir);
        }
        if (st->have_dtypes) {
                for (size_t v = 0; v < n_variants; v++) {
                        bool same = true;
                        for (size_t k = 0; k < def->n_inputs; k++) {
                                const char *dtype = param_dtype(&def->inputs[k], v);
                                same &= !st->dtypes[k][0] ||
                                        (dtype && strcmp(dtype, st->dtypes[k]) == 0);
                        }
                        if (same) {
                                variant = v;
                                break;
                        }
                }
                note(notes, "dtypes from %s", st->dtypes_from ? st->dtypes_from : "the cases");
        } else if (n_variants > 1) {
                note(notes,
                     "dtypes: combination %zu of the %zu the OpDef lists (--variant picks "
                     "another)",
                     variant, n_variants);
        }
        *ret_variant = variant;
        return 0;
}

/* Marks the largest case (by input elements) as the timed one. */
static void mark_bench_case(json_t *cases, struct notes *notes)
{
        size_t bench = 0;

        for (size_t i = 1; i < json_array_size(cases); i++)
                if (case_elements(json_array_get(cases, i)) >
                    case_elements(json_array_get(cases, bench)))
                        bench = i;
        for (size_t i = 0; i < json_array_size(cases); i++)
                json_object_set_new(json_array_get(cases, i), "bench", json_boolean(i == bench));
        note(notes, "case %s is timed (the largest); the others check correctness",
             json_string_value(json_object_get(json_array_get(cases, bench), "name")));
}

/* The default tolerance of every floating dtype among the tensors of doc, written out. */
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
                        json_object_set_new(tolerance, name,
                                            json_pack("{s:f, s:f, s:f}", "atol", tol->atol, "rtol",
                                                      tol->rtol, "max_mismatch_fraction",
                                                      tol->max_mismatch_fraction));
                }
        }
        return tolerance;
}

/* ------------------------------------------------------------ example cases */

struct example_wait {
        json_t *answer;
};

static void on_example_done(json_t *answer, void *userdata)
{
        ((struct example_wait *)userdata)->answer = answer;
}

/* "float16" of a main.cpp tensor argument, or NULL. */
static const char *arg_dtype(const json_t *arg)
{
        if (json_is_string(json_object_get(arg, "kind")) &&
            strcmp(json_string_value(json_object_get(arg, "kind")), "list") == 0)
                arg = json_array_get(json_object_get(arg, "items"), 0);
        return json_string_value(json_object_get(arg, "dtype"));
}

static bool arg_is(const json_t *arg, const char *kind)
{
        return strcmp(json_string_value(json_object_get(arg, "kind")) ?: "", kind) == 0;
}

/* The shape of a tensor argument, or of each element of a list; NULL when unknown. */
static json_t *arg_shape(const json_t *arg)
{
        json_t *items, *t, *list;
        size_t i;

        if (arg_is(arg, "tensor"))
                return json_incref(json_object_get(arg, "shape"));
        if (!arg_is(arg, "list"))
                return NULL;
        items = json_object_get(arg, "items");
        list = json_array();
        json_array_foreach(items, i, t)
        {
                if (!json_object_get(t, "shape")) {
                        json_decref(list);
                        return NULL;
                }
                json_array_append(list, json_object_get(t, "shape"));
        }
        return list;
}

/*
 * The data of one input for the example's golden: {"file"}, {"files"} or
 * {"values"}; NULL (why) when main.cpp does not say.
 */
static json_t *arg_data(const json_t *arg, const json_t *written, char *why, size_t why_size)
{
        json_t *items = arg_is(arg, "list") ? json_object_get(arg, "items") : NULL, *t;
        json_t *files = json_array();
        size_t i;

        if (arg_is(arg, "value")) {
                /* a scalar or array main.cpp passes where the OpDef has an input tensor */
                const json_t *v = json_object_get(arg, "value");
                json_decref(files);
                if (json_is_number(v) || json_is_boolean(v))
                        return json_pack("{s:[O]}", "values", v);
                return json_pack("{s:O}", "values", v);
        }
        if (!items) {
                const char *f = json_string_value(json_object_get(arg, "file"));
                json_decref(files);
                if (f && json_object_get(written, f))
                        return json_pack("{s:s}", "file", f);
                if (f) {
                        snprintf(why, why_size,
                                 "main.cpp reads %s, which gen_data.py did not write", f);
                        return NULL;
                }
                if (json_object_get(arg, "values"))
                        return json_pack("{s:O}", "values", json_object_get(arg, "values"));
                snprintf(why, why_size, "main.cpp gives no data for %s",
                         json_string_value(json_object_get(arg, "expr")) ?: "an input");
                return NULL;
        }
        json_array_foreach(items, i, t)
        {
                const char *f = json_string_value(json_object_get(t, "file"));
                if (!f || !json_object_get(written, f)) {
                        snprintf(why, why_size, "main.cpp reads no file gen_data.py wrote for %s",
                                 json_string_value(json_object_get(t, "var")) ?: "a list element");
                        json_decref(files);
                        return NULL;
                }
                json_array_append_new(files, json_string(f));
        }
        return json_pack("{s:o}", "files", files);
}

/*
 * The golden files gen_data.py wrote for the outputs: under output/, with
 * "golden" in the name; one output takes the only one, several take the one
 * naming them, else the files in order.  NULL when they cannot be told.
 */
static json_t *golden_outputs(const struct opdef *def, const json_t *out_args,
                              const json_t *written, char *why, size_t why_size)
{
        const char *path;
        json_t *size, *golden = json_array(), *map = json_object();
        size_t wanted = 0, used = 0;

        json_object_foreach((json_t *)written, path, size)
        {
                if (strncmp(path, "output/", 7) == 0 && strstr(path, "golden"))
                        json_array_append_new(golden, json_string(path));
        }
        /* sorted: golden_out1.bin before golden_out2.bin */
        for (size_t i = 1; i < json_array_size(golden); i++)
                for (size_t j = i;
                     j > 0 && strcmp(json_string_value(json_array_get(golden, j - 1)),
                                     json_string_value(json_array_get(golden, j))) > 0;
                     j--) {
                        json_t *t = json_incref(json_array_get(golden, j));
                        json_array_set(golden, j, json_array_get(golden, j - 1));
                        json_array_set_new(golden, j - 1, t);
                }
        for (size_t k = 0; k < def->n_outputs; k++) {
                const json_t *a = json_array_get(out_args, k);
                if (arg_is(a, "null"))
                        continue; /* an output the call asks nothing of */
                wanted += arg_is(a, "list") ? json_array_size(json_object_get(a, "items")) : 1;
        }
        if (json_array_size(golden) == 0) {
                snprintf(why, why_size, "gen_data.py wrote no output/*golden*.bin");
                goto fail;
        }
        /* by name first: golden_<output>.bin */
        for (size_t k = 0; k < def->n_outputs && def->n_outputs > 1; k++) {
                for (size_t g = 0; g < json_array_size(golden); g++) {
                        const char *f = json_string_value(json_array_get(golden, g));
                        const char *base = strrchr(f, '/') + 1;
                        char want[200];
                        snprintf(want, sizeof(want), "golden_%s.bin", def->outputs[k].name);
                        if (strcmp(base, want) == 0) {
                                json_object_set_new(map, def->outputs[k].name, json_string(f));
                                used++;
                        }
                }
        }
        if (used == 0 && json_array_size(golden) == wanted) {
                size_t g = 0;
                for (size_t k = 0; k < def->n_outputs; k++) {
                        const json_t *a = json_array_get(out_args, k);
                        if (arg_is(a, "null"))
                                continue;
                        if (arg_is(a, "list")) {
                                json_t *files = json_array();
                                for (size_t e = 0; e < json_array_size(json_object_get(a, "items"));
                                     e++)
                                        json_array_append(files, json_array_get(golden, g++));
                                json_object_set_new(map, def->outputs[k].name, files);
                        } else {
                                json_object_set(map, def->outputs[k].name,
                                                json_array_get(golden, g++));
                        }
                }
        } else if (used == 0 && def->n_outputs >= 1 && json_array_size(golden) == 1 &&
                   !arg_is(json_array_get(out_args, 0), "list")) {
                /* one golden file: the first output's (the others unchecked) */
                json_object_set(map, def->outputs[0].name, json_array_get(golden, 0));
        } else if (used == 0) {
                snprintf(why, why_size,
                         "gen_data.py wrote %zu golden files for %zu output tensors; which is "
                         "which cannot be told",
                         json_array_size(golden), wanted);
                goto fail;
        }
        json_decref(golden);
        return map;
fail:
        json_decref(golden);
        json_decref(map);
        return NULL;
}

/*
 * The files gen_data.py writes ({path: bytes}), run in the sandbox; NULL and
 * why otherwise.  read ({path: dtype}, or NULL) asks for the values of small
 * files too, into *ret_contents ({path: [values]}).
 */
static json_t *run_gen_data(struct st_state *st, const char *example, const json_t *read,
                            json_t **ret_contents, char *why, size_t why_size)
{
        const char *tmp = getenv("TMPDIR");
        struct example_wait w = { 0 };
        char dir[PATH_MAX], abs[PATH_MAX];
        json_t *job, *files = NULL;
        int r;

        if (format_path(dir, sizeof(dir), "%s/ascendopt-example.XXXXXX",
                        tmp && *tmp ? tmp : "/tmp") < 0 ||
            !mkdtemp(dir) || format_path(abs, sizeof(abs), "%s/%s", st->opdir, example) < 0) {
                snprintf(why, why_size, "cannot make a scratch directory");
                return NULL;
        }
        job = json_pack("{s:s, s:s, s:{}, s:o}", "mode", "example", "example", abs, "values",
                        "read", read ? json_incref((json_t *)read) : json_object());
        r = npu_golden_run_job(st->sim->runner, st->opdir, dir, job, true, 300, on_example_done,
                               &w);
        json_decref(job);
        while (r == 0 && !w.answer)
                event_base_loop(st->sim->base, EVLOOP_ONCE);
        if (r < 0)
                snprintf(why, why_size, "cannot run gen_data.py: %s", child_strerror(r));
        else if (strcmp(json_string_value(json_object_get(w.answer, "status")) ?: "", "ok") != 0)
                snprintf(why, why_size, "%s",
                         json_string_value(json_object_get(w.answer, "why"))
                             ?: "gen_data.py failed");
        else {
                files = json_incref(json_object_get(w.answer, "files"));
                if (ret_contents)
                        *ret_contents = json_incref(json_object_get(w.answer, "contents"));
        }
        json_decref(w.answer);
        rm_rf(dir);
        return files;
}

/* ------------------------------------------------------------ example arguments */

/*
 * Whether the values gen_data.py's file held (as the sandboxed child read
 * them: nothing it answers is trusted) are numbers, and for a shape
 * dimensions: integers from 0, at least one.
 */
static bool file_values_plain(const json_t *v, bool shape)
{
        const json_t *e;
        size_t i;

        if (!json_is_array(v) || (shape && !json_array_size(v)))
                return false;
        json_array_foreach(v, i, e)
        {
                if (shape ? !json_is_integer(e) || json_integer_value(e) < 0
                          : !json_is_number(e) && !json_is_boolean(e))
                        return false;
        }
        return true;
}

/*
 * Values main.cpp reads from files gen_data.py writes (an attribute, an
 * aclIntArray, a tensor's shape): gen_data.py runs first and they are put
 * in place, "value" for a value, "shape" for a tensor.  0 when there were
 * none or all are in place (*written then holds gen_data.py's files, or
 * NULL when it did not run); -ENOENT and why otherwise.
 */
static int example_file_values(struct st_state *st, const char *example, json_t *args,
                               json_t **written, char *why, size_t why_size)
{
        json_t *read = json_object(), *contents = NULL, *arg, *v;
        char run_why[600] = "";
        size_t i;
        int r = 0;

        json_array_foreach(args, i, arg)
        {
                const char *f = json_string_value(json_object_get(arg, "file"));
                if (arg_is(arg, "value") && f && json_object_get(arg, "elem"))
                        json_object_set(read, f, json_object_get(arg, "elem"));
                if (json_object_get(arg, "shape_file"))
                        json_object_set_new(
                            read, json_string_value(json_object_get(arg, "shape_file")),
                            json_string(json_string_value(json_object_get(arg, "shape_elem"))
                                            ?: "int64"));
        }
        if (!json_object_size(read)) {
                json_decref(read);
                return 0;
        }
        *written = run_gen_data(st, example, read, &contents, run_why, sizeof(run_why));
        json_array_foreach(args, i, arg)
        {
                const char *f = json_string_value(json_object_get(arg, "file"));
                const char *sf = json_string_value(json_object_get(arg, "shape_file"));
                if (r < 0 || (!(arg_is(arg, "value") && f && json_object_get(arg, "elem")) && !sf))
                        continue;
                v = json_object_get(contents, sf ? sf : f);
                if (!file_values_plain(v, sf != NULL)) {
                        snprintf(
                            why, why_size, "%.200s/main.cpp reads %s (argument %s) from %s, %s",
                            example, sf ? "the shape" : "the value",
                            json_string_value(json_object_get(arg, "expr")) ?: "?", sf ? sf : f,
                            !*written ? run_why
                            : json_object_get(contents, sf ? sf : f)
                                ? (sf ? "which holds no dimensions" : "which holds no numbers")
                            : json_object_get(*written, sf ? sf : f)
                                ? "which is too large to be a value"
                                : "which gen_data.py did not write");
                        r = -ENOENT;
                } else if (sf) {
                        json_object_set(arg, "shape", v);
                } else {
                        json_object_set(arg, "value",
                                        json_is_true(json_object_get(arg, "scalar")) &&
                                                json_array_size(v) == 1
                                            ? json_array_get(v, 0)
                                            : v);
                        json_object_del(arg, "file");
                }
        }
        json_decref(read);
        json_decref(contents);
        return r;
}

/*
 * Where each OpDef input, output and attribute comes from in main.cpp's
 * call: an argument index, -1, or EXAMPLE_ABSENT for an optional input the
 * call does not pass.
 */
#define EXAMPLE_ABSENT (-2)
struct example_binding {
        int input[NPU_MAX_TENSORS], output[NPU_MAX_TENSORS], attr[MAX_ATTRS];
        size_t values_left;     /* non-tensor arguments bound to nothing */
        size_t dropped, absent; /* tensors the kernel does not take; inputs left out */
        char dropped_names[256];
};

/* name lowered, without underscores, into buf */
static void plain_name(const char *name, char *buf, size_t size)
{
        size_t j = 0;

        for (; *name && j + 1 < size; name++)
                if (*name != '_')
                        buf[j++] = (char)tolower((unsigned char)*name);
        buf[j] = '\0';
}

/*
 * Whether main.cpp's variable var stands for the OpDef's name: the same
 * words whatever the case style, with an input/output prefix or a Ref
 * suffix (inputX1, outputY, varRef), or a torch-style name aclnn examples
 * use for it (dim for axis, index for indices).
 */
static bool example_name_matches(const char *var, const char *name)
{
        static const char *const synonyms[][2] = { { "dim", "axis" }, { "index", "indices" } };
        static const char *const prefixes[] = { "input", "output", "" };
        static const char *const suffixes[] = { "ref", "tensor", "array", "list", "" };
        char v[128], n[128];

        plain_name(var, v, sizeof(v));
        plain_name(name, n, sizeof(n));
        if (!v[0] || !n[0])
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(synonyms); i++)
                if (strcmp(v, synonyms[i][0]) == 0 && strcmp(n, synonyms[i][1]) == 0)
                        return true;
        /* one plural, the other not: scalars and scalarList */
        if (n[strlen(n) - 1] == 's')
                n[strlen(n) - 1] = '\0';
        if (v[strlen(v) - 1] == 's')
                v[strlen(v) - 1] = '\0';
        if (!v[0] || !n[0])
                return false;
        for (size_t p = 0; p < ARRAY_SIZE(prefixes); p++)
                for (size_t q = 0; q < ARRAY_SIZE(suffixes); q++) {
                        size_t lp = strlen(prefixes[p]), lq = strlen(suffixes[q]), lv = strlen(v);
                        if (lv == lp + strlen(n) + lq && strncmp(v, prefixes[p], lp) == 0 &&
                            strncmp(v + lp, n, strlen(n)) == 0 &&
                            strcmp(v + lp + strlen(n), suffixes[q]) == 0)
                                return true;
                }
        return false;
}

/* A number or a list of numbers: what an aclScalar or aclIntArray argument holds. */
static bool numeric_value(const json_t *arg)
{
        const json_t *v = json_object_get(arg, "value");

        if (!arg_is(arg, "value"))
                return false;
        if (json_is_number(v))
                return true;
        if (!json_is_array(v) || !json_array_size(v))
                return false;
        for (size_t i = 0; i < json_array_size(v); i++)
                if (!json_is_number(json_array_get(v, i)))
                        return false;
        return true;
}

static bool tensor_like(const json_t *arg)
{
        return arg_is(arg, "tensor") || arg_is(arg, "list") || arg_is(arg, "null");
}

/* The variable an argument names (its expression when that is one identifier). */
static const char *arg_var(const json_t *arg)
{
        const char *e = json_string_value(json_object_get(arg, "expr"));

        if (!e || !*e || isdigit((unsigned char)*e))
                return NULL;
        for (const char *p = e; *p; p++)
                if (!isalnum((unsigned char)*p) && *p != '_')
                        return NULL;
        return e;
}

/*
 * Whether main.cpp's variable var is an abbreviation of the attribute's
 * name or the other way round, the way aclnn and OpDef names differ: a
 * prefix (eps for epsilon, padding for pads), a flag's "is" or "use"
 * (training for is_training), or the letters of one in order in the other
 * with the same first and last letters (kernelSize for ksize).  Only for names of
 * three letters or more, and only where name matching left both unbound.
 */
static bool abbreviation_matches(const char *var, const char *name)
{
        static const char *const flags[] = { "is", "use", "has", "enable", "with" };
        char v[128], n[128];
        const char *shorter, *longer;

        plain_name(var, v, sizeof(v));
        plain_name(name, n, sizeof(n));
        if (strlen(v) > 3 && v[strlen(v) - 1] == 's')
                v[strlen(v) - 1] = '\0';
        if (strlen(n) > 3 && n[strlen(n) - 1] == 's')
                n[strlen(n) - 1] = '\0';
        shorter = strlen(v) <= strlen(n) ? v : n;
        longer = shorter == v ? n : v;
        if (strlen(shorter) < 3 || strcmp(v, n) == 0)
                return strlen(shorter) >= 3;
        if (strncmp(longer, shorter, strlen(shorter)) == 0)
                return true;
        for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
                if (strncmp(longer, flags[i], strlen(flags[i])) == 0 &&
                    strcmp(longer + strlen(flags[i]), shorter) == 0)
                        return true;
        /*
         * the letters in order: from the first to the last, and at least half
         * of the longer name's (top is not transpose_output, dim not
         * dilation_mode)
         */
        if (shorter[0] != longer[0] || shorter[strlen(shorter) - 1] != longer[strlen(longer) - 1] ||
            2 * strlen(shorter) < strlen(longer))
                return false;
        for (const char *p = shorter, *q = longer; *q; q++)
                if (*q == *p && !*++p)
                        return true;
        return false;
}

/* Whether value v is of the kind attribute a takes (0 and 1 do for a bool). */
static bool attr_fits(const struct attr *a, const json_t *v)
{
        const char *t = a->type;
        const json_t *e;
        size_t i;

        if (!t[0] || strcmp(t, "any") == 0)
                return true; /* an older runtime does not say */
        if (strcmp(t, "bool") == 0)
                return json_is_boolean(v) ||
                       (json_is_integer(v) && (json_integer_value(v) & ~(json_int_t)1) == 0);
        if (strcmp(t, "int") == 0)
                return json_is_integer(v) ||
                       (json_is_real(v) &&
                        json_real_value(v) == (double)(json_int_t)json_real_value(v));
        if (strcmp(t, "float") == 0)
                return json_is_number(v);
        if (strcmp(t, "string") == 0)
                return json_is_string(v);
        if (strncmp(t, "list_", 5) != 0 || !json_is_array(v))
                return false;
        json_array_foreach(v, i, e)
        {
                if (strcmp(t, "list_int") == 0 && !json_is_integer(e))
                        return false;
                if (strcmp(t, "list_float") == 0 && !json_is_number(e))
                        return false;
                if (strcmp(t, "list_bool") == 0 && !json_is_boolean(e) &&
                    !(json_is_integer(e) && (json_integer_value(e) & ~(json_int_t)1) == 0))
                        return false;
                if (strcmp(t, "list_list_int") == 0 && !json_is_array(e))
                        return false;
        }
        return true;
}

static bool value_fits(const struct attr *a, const json_t *arg)
{
        return arg_is(arg, "value") && attr_fits(a, json_object_get(arg, "value"));
}

/*
 * Binds main.cpp's arguments to the OpDef.  Values go to attributes by
 * name, then by abbreviation, then the ones left in order to the
 * attributes left they fit (a list to a list attribute, 0 or false to a
 * bool).  Tensors go by name (unless by_name is false: the names misled),
 * then the others in order: to the inputs and then the outputs left (a ref
 * output takes its input when the call passes it once).  Where the call
 * passes more tensors than the kernel takes (aclnn takes a tensor only to
 * check or to size another), the last go to the outputs and the extra ones
 * before them are dropped; where it passes fewer, the trailing optional
 * inputs are left out.  -EINVAL and why when the tensors do not add up.
 */
static int bind_example(const struct opdef *def, const json_t *args, bool by_name,
                        struct example_binding *b, char *why, size_t why_size)
{
        size_t n = json_array_size(args), tensors = 0, free_in = 0, free_out = 0, free_ref = 0;
        size_t values = 0, numeric = 0, slots, drop = 0, absent = 0, trailing_optional = 0;
        bool used[64] = { false }, with_values = false, skip_refs = false;

        memset(b, 0, sizeof(*b));
        for (size_t i = 0; i < NPU_MAX_TENSORS; i++)
                b->input[i] = b->output[i] = -1;
        for (size_t i = 0; i < MAX_ATTRS; i++)
                b->attr[i] = -1;
        if (n > ARRAY_SIZE(used))
                n = ARRAY_SIZE(used);
        for (size_t a = 0; a < n; a++) {
                const json_t *arg = json_array_get(args, a);
                const char *var = arg_var(arg);
                bool tensor = tensor_like(arg);
                if (!var)
                        continue;
                for (size_t k = 0; k < def->n_inputs && !used[a] && (by_name || !tensor); k++)
                        if (b->input[k] < 0 && example_name_matches(var, def->inputs[k].name) &&
                            (tensor ||
                             (arg_is(arg, "value") && def->inputs[k].type != PARAM_DYNAMIC &&
                              !json_is_string(json_object_get(arg, "value"))))) {
                                b->input[k] = (int)a;
                                used[a] = true;
                        }
                for (size_t k = 0; k < def->n_outputs && !used[a] && tensor && by_name; k++)
                        if (b->output[k] < 0 && !def->outputs[k].undeclared &&
                            example_name_matches(var, def->outputs[k].name)) {
                                b->output[k] = (int)a;
                                used[a] = true;
                        }
                for (size_t k = 0; k < def->n_attrs && !used[a] && !tensor; k++)
                        if (b->attr[k] < 0 && example_name_matches(var, def->attrs[k].name)) {
                                b->attr[k] = (int)a;
                                used[a] = true;
                        }
        }
        /* values by abbreviation: one attribute for one variable, of its kind */
        for (size_t a = 0; a < n; a++) {
                const json_t *arg = json_array_get(args, a);
                const char *var = arg_var(arg);
                size_t found = 0, pick = 0;
                if (used[a] || !var || tensor_like(arg))
                        continue;
                for (size_t k = 0; k < def->n_attrs; k++)
                        if (b->attr[k] < 0 && abbreviation_matches(var, def->attrs[k].name) &&
                            value_fits(&def->attrs[k], arg)) {
                                found++;
                                pick = k;
                        }
                if (found != 1)
                        continue;
                for (size_t o = 0; o < n; o++) /* and no other value abbreviates it */
                        found += o != a && !used[o] && arg_var(json_array_get(args, o)) &&
                                 !tensor_like(json_array_get(args, o)) &&
                                 abbreviation_matches(arg_var(json_array_get(args, o)),
                                                      def->attrs[pick].name);
                if (found == 1) {
                        b->attr[pick] = (int)a;
                        used[a] = true;
                }
        }
        for (size_t a = 0; a < n; a++) {
                const json_t *arg = json_array_get(args, a);
                if (used[a])
                        continue;
                if (tensor_like(arg))
                        tensors++;
                else
                        values++;
        }
        for (size_t k = 0; k < def->n_inputs; k++)
                free_in += b->input[k] < 0;

        for (size_t k = 0; k < def->n_outputs; k++) {
                if (b->output[k] >= 0 || def->outputs[k].undeclared)
                        continue;
                free_out++;
                free_ref += def->outputs[k].ref;
        }
        /*
         * When the tensors fall short, the numbers and number lists the call
         * passes stand for inputs too (an aclScalar, aclScalarList or
         * aclIntArray where the OpDef has a tensor), in their places.
         */
        for (size_t a = 0; a < n; a++)
                numeric += !used[a] && numeric_value(json_array_get(args, a));
        /* but not where the call leaves out trailing optional inputs: those are absent */
        for (size_t k = def->n_inputs; k-- > 0;) {
                if (b->input[k] >= 0)
                        continue;
                if (def->inputs[k].type != PARAM_OPTIONAL)
                        break;
                trailing_optional++;
        }
        if (tensors < free_in + free_out - free_ref &&
            free_in + free_out - free_ref - tensors <= trailing_optional)
                numeric = 0;
        if (tensors != free_in + free_out && tensors != free_in + free_out - free_ref &&
            (tensors + numeric == free_in + free_out ||
             tensors + numeric == free_in + free_out - free_ref)) {
                with_values = true;
                tensors += numeric;
                values -= numeric;
        }
        slots = free_in + free_out;
        if (tensors == slots - free_ref && free_ref)
                skip_refs = true;
        else if (tensors > slots && tensors > free_in + free_out - free_ref && free_out) {
                /* the call passes the ref tensors once: the outputs are the last tensors */
                skip_refs = free_ref > 0;
                drop = tensors - (slots - (skip_refs ? free_ref : 0));
        } else if (tensors < slots - free_ref) {
                /* trailing optional inputs the call does not pass */
                size_t short_by = slots - free_ref - tensors;
                skip_refs = free_ref > 0;
                for (size_t k = def->n_inputs; k-- > 0 && absent < short_by;) {
                        if (b->input[k] >= 0)
                                continue;
                        if (def->inputs[k].type != PARAM_OPTIONAL)
                                break;
                        absent++;
                }
                if (absent < short_by)
                        absent = 0;
        }
        if (tensors + absent != slots - (skip_refs ? free_ref : 0) + drop) {
                char left[256] = "";
                size_t len = 0;
                for (size_t k = 0; k < def->n_inputs + def->n_outputs && len + 1 < sizeof(left);
                     k++) {
                        bool input = k < def->n_inputs;
                        const struct param *p =
                            input ? &def->inputs[k] : &def->outputs[k - def->n_inputs];
                        if ((input ? b->input[k] : b->output[k - def->n_inputs]) >= 0 ||
                            p->undeclared)
                                continue;
                        len += (size_t)snprintf(left + len, sizeof(left) - len, "%s%s",
                                                len ? ", " : "", p->name);
                }
                snprintf(why, why_size,
                         "it passes %zu tensors for the %zu inputs and outputs of %s no argument "
                         "is named after (%s)%s",
                         tensors, slots, def->type, left,
                         tensors < slots ? ", and the ones it leaves out are not optional inputs"
                                         : "");
                return -EINVAL;
        }
        /* the absent inputs: the last free optional ones */
        for (size_t k = def->n_inputs, left = absent; k-- > 0 && left;)
                if (b->input[k] < 0) {
                        b->input[k] = EXAMPLE_ABSENT;
                        left--;
                }
        b->absent = absent;
        /* the tensors in order, the dropped ones between the inputs and the outputs */
        {
                size_t in_slots = 0, seen = 0;
                for (size_t k = 0; k < def->n_inputs; k++)
                        in_slots += b->input[k] == -1;
                for (size_t a = 0, k = 0; a < n; a++) {
                        const json_t *arg = json_array_get(args, a);
                        if (used[a] || (!tensor_like(arg) && !(with_values && numeric_value(arg))))
                                continue;
                        if (seen++ >= in_slots && drop && b->dropped < drop) {
                                size_t len = strlen(b->dropped_names);
                                snprintf(b->dropped_names + len, sizeof(b->dropped_names) - len,
                                         "%s%s", len ? ", " : "",
                                         json_string_value(json_object_get(arg, "expr")) ?: "?");
                                b->dropped++;
                                used[a] = true;
                                continue;
                        }
                        for (; k < def->n_inputs + def->n_outputs; k++) {
                                bool input = k < def->n_inputs;
                                const struct param *p =
                                    input ? &def->inputs[k] : &def->outputs[k - def->n_inputs];
                                int *slot = input ? &b->input[k] : &b->output[k - def->n_inputs];
                                if (*slot >= 0 || *slot == EXAMPLE_ABSENT || p->undeclared ||
                                    (skip_refs && !input && p->ref))
                                        continue;
                                *slot = (int)a;
                                used[a] = true;
                                k++;
                                break;
                        }
                }
        }
        /*
         * The values left, in order, to the attributes left: only where there
         * is one way of placing them in the OpDef's order with each of the
         * kind of its attribute (an argument init cannot read takes a place
         * of any kind, and binds nothing).  Where there are several ways (the
         * call leaves out attributes of the same kind) none is bound: an
         * attribute's default is better than a guess, and a note says so.
         */
        {
                size_t order[64], m = 0, free_k[MAX_ATTRS], nf = 0;
                unsigned char ways[65][MAX_ATTRS + 1]; /* 0, 1, or 2 for "more than one" */

                for (size_t a = 0; a < n; a++)
                        if (!used[a] && !tensor_like(json_array_get(args, a)))
                                order[m++] = a;
                for (size_t k = 0; k < def->n_attrs && nf < MAX_ATTRS; k++)
                        if (b->attr[k] < 0)
                                free_k[nf++] = k;
                for (size_t j = 0; j <= nf; j++)
                        ways[0][j] = 1;
                for (size_t i = 1; i <= m; i++) {
                        const json_t *arg = json_array_get(args, order[i - 1]);
                        ways[i][0] = 0;
                        for (size_t j = 1; j <= nf; j++) {
                                unsigned w = ways[i][j - 1];
                                if (!arg_is(arg, "value") ||
                                    value_fits(&def->attrs[free_k[j - 1]], arg))
                                        w += ways[i - 1][j - 1];
                                ways[i][j] = (unsigned char)(w > 2 ? 2 : w);
                        }
                }
                if (m <= nf && ways[m][nf] == 1) {
                        for (size_t i = m, j = nf; i > 0; j--) {
                                const json_t *arg = json_array_get(args, order[i - 1]);
                                if (ways[i][j - 1])
                                        continue; /* the i-th value is placed before j */
                                if (arg_is(arg, "value"))
                                        b->attr[free_k[j - 1]] = (int)order[i - 1];
                                i--;
                        }
                } else
                        b->values_left = values;
        }
        return 0;
}

/* The shape of a scalar (1) or an int array (its length) an input is given as. */
static json_t *value_shape(const json_t *v)
{
        if (json_is_number(v) || json_is_boolean(v))
                return json_pack("[i]", 1);
        if (json_is_array(v) && json_array_size(v))
                return json_pack("[I]", (json_int_t)json_array_size(v));
        return NULL;
}

/* A value main.cpp passes as the attribute's type says: 0/1 for a bool, 2 for a float. */
static json_t *attr_value(const struct attr *a, const json_t *v)
{
        const char *type = a->type;

        if (!type[0] && a->default_value) /* an older runtime: the default says */
                type = json_is_boolean(a->default_value) ? "bool"
                       : json_is_real(a->default_value)  ? "float"
                                                         : "";
        if (strcmp(type, "bool") == 0 && json_is_integer(v))
                return json_boolean(json_integer_value(v) != 0);
        if (strcmp(type, "float") == 0 && json_is_integer(v))
                return json_real((double)json_integer_value(v));
        if (strcmp(type, "int") == 0 && json_is_real(v) &&
            json_real_value(v) == (double)(json_int_t)json_real_value(v))
                return json_integer((json_int_t)json_real_value(v));
        if (strcmp(type, "list_float") == 0 && json_is_array(v)) {
                json_t *out = json_array(), *e;
                size_t i;
                json_array_foreach(v, i, e)
                    json_array_append_new(out, json_real(json_number_value(e)));
                return out;
        }
        if ((strncmp(type, "list_", 5) == 0 && !json_is_array(v)) ||
            (strcmp(type, "string") == 0 && !json_is_string(v)))
                return NULL; /* not what the attribute takes: its default stays */
        return json_deep_copy(v);
}

/*
 * Whether every tensor bound to an input has a dtype of the kind the input
 * takes (an integer tensor for an integer input, a float one for a float).
 */
static bool binding_kinds_agree(const struct opdef *def, const json_t *args,
                                const struct example_binding *b)
{
        for (size_t k = 0; k < def->n_inputs; k++) {
                const json_t *arg =
                    b->input[k] >= 0 ? json_array_get(args, (size_t)b->input[k]) : NULL;
                const char *dtype = arg ? arg_dtype(arg) : NULL;
                if (dtype && def->inputs[k].n_dtypes && !param_lists(&def->inputs[k], dtype) &&
                    !same_kind(&def->inputs[k], dtype))
                        return false;
        }
        return true;
}

/*
 * Binds main.cpp's arguments by the order of the aclnn call CANN generates
 * for an OpDef: every input, then every attribute, then every output (a
 * ref output, which shares its input's tensor, only once), each in the
 * OpDef's order, nullptr for an optional input left out.  Only where the
 * count is exactly that and every argument is of its place's kind: a
 * tensor (or a number standing for one) at an input, nullptr only at an
 * optional one; a value the attribute can take, or one init cannot read,
 * at an attribute; a tensor at an output.  A hand-written aclnn wrapper
 * with another order seldom fits all of that, and then names bind instead.
 * -ENOENT when it does not fit.
 */
static int bind_signature(const struct opdef *def, const json_t *args, struct example_binding *b)
{
        size_t n = json_array_size(args), outs = 0, a = 0;
        bool skip_refs;

        for (size_t k = 0; k < def->n_outputs; k++)
                outs += !def->outputs[k].undeclared;
        if (n == def->n_inputs + def->n_attrs + outs)
                skip_refs = false;
        else if (n == def->n_inputs + def->n_attrs + def->n_outputs_declared &&
                 def->n_outputs_declared < outs)
                skip_refs = true;
        else
                return -ENOENT;
        memset(b, 0, sizeof(*b));
        for (size_t i = 0; i < NPU_MAX_TENSORS; i++)
                b->input[i] = b->output[i] = -1;
        for (size_t i = 0; i < MAX_ATTRS; i++)
                b->attr[i] = -1;
        for (size_t k = 0; k < def->n_inputs; k++, a++) {
                const json_t *arg = json_array_get(args, a);
                if (arg_is(arg, "null")) {
                        if (def->inputs[k].type != PARAM_OPTIONAL)
                                return -ENOENT;
                        b->input[k] = EXAMPLE_ABSENT;
                        b->absent++;
                } else if (arg_is(arg, "tensor") || arg_is(arg, "list") ||
                           (numeric_value(arg) && def->inputs[k].type != PARAM_DYNAMIC)) {
                        b->input[k] = (int)a;
                } else
                        return -ENOENT;
        }
        for (size_t k = 0; k < def->n_attrs; k++, a++) {
                const json_t *arg = json_array_get(args, a);
                if (tensor_like(arg))
                        return -ENOENT;
                if (arg_is(arg, "value") && !value_fits(&def->attrs[k], arg))
                        return -ENOENT;
                if (arg_is(arg, "value"))
                        b->attr[k] = (int)a;
        }
        for (size_t k = 0; k < def->n_outputs; k++) {
                const json_t *arg;
                if (def->outputs[k].undeclared || (skip_refs && def->outputs[k].ref))
                        continue;
                arg = json_array_get(args, a++);
                if (!arg_is(arg, "tensor") && !arg_is(arg, "list"))
                        return -ENOENT;
                b->output[k] = (int)a - 1;
        }
        return binding_kinds_agree(def, args, b) ? 0 : -ENOENT;
}

/* Where name is among the first n of the aclnn declaration's parameters, once: its index, else -1. */
static int launch_param(const json_t *params, const json_t *name, size_t n)
{
        int at = -1;

        if (!json_is_string(name))
                return -1;
        for (size_t i = 0; i < n; i++)
                if (json_equal(json_array_get(params, i), name)) {
                        if (at >= 0)
                                return -1;
                        at = (int)i;
                }
        return at;
}

/*
 * Binds main.cpp's arguments through a hand-written aclnn wrapper (launch,
 * from init_read_launcher): the call's arguments are the declaration's
 * parameters in order, and a parameter the level-0 launch hands the kernel
 * under its own name is the OpDef input, output or attribute at its place
 * in OP_INPUT, OP_OUTPUT or OP_ATTR.  Every input the launch passes must be
 * such a parameter (one the wrapper computes -- sorted indices, a shape
 * tensor -- cannot be read from the example), OP_INPUT must have as many
 * tensors as the OpDef has inputs, OP_OUTPUT as many as its outputs (or its
 * outputs that are not refs), and no parameter may stand for two places.
 * An attribute the launch converts (an expression) or whose value does not
 * fit keeps the OpDef's default.  The shapes are the example's: a wrapper
 * that reshapes a tensor and passes it on under the same name is not
 * followed.  -ENOENT and why when it does not fit.
 */
static int bind_launcher(const struct opdef *def, const json_t *args, const json_t *launch,
                         struct example_binding *b, char *why, size_t why_size)
{
        const json_t *params = json_object_get(launch, "params");
        const json_t *inputs = json_object_get(launch, "inputs");
        const json_t *outputs = json_object_get(launch, "outputs");
        const json_t *attrs = json_object_get(launch, "attrs");
        const char *launcher = json_string_value(json_object_get(launch, "launcher"));
        size_t n = json_array_size(args), outs = 0, plain = 0, m = json_array_size(outputs);
        bool used[64] = { false }, all_outputs;

        if (json_array_size(params) != n + 2 || n > ARRAY_SIZE(used))
                return snprintf(why, why_size,
                                "%s declares %zu parameters besides the workspace size and "
                                "executor, the call passes %zu",
                                json_string_value(json_object_get(launch, "header")),
                                json_array_size(params) >= 2 ? json_array_size(params) - 2 : 0, n),
                       -ENOENT;
        if (json_array_size(inputs) != def->n_inputs)
                return snprintf(why, why_size,
                                "%s launches %s with %zu input tensors where the OpDef has %zu",
                                launcher, def->type, json_array_size(inputs), def->n_inputs),
                       -ENOENT;
        for (size_t k = 0; k < def->n_outputs; k++) {
                outs += !def->outputs[k].undeclared;
                plain += !def->outputs[k].undeclared && !def->outputs[k].ref;
        }
        if (m != outs && m != plain)
                return snprintf(why, why_size,
                                "%s launches %s with %zu output tensors where the OpDef has %zu",
                                launcher, def->type, m, outs),
                       -ENOENT;
        all_outputs = m == outs;
        memset(b, 0, sizeof(*b));
        for (size_t i = 0; i < NPU_MAX_TENSORS; i++)
                b->input[i] = b->output[i] = -1;
        for (size_t i = 0; i < MAX_ATTRS; i++)
                b->attr[i] = -1;
        for (size_t k = 0; k < def->n_inputs; k++) {
                const json_t *name = json_array_get(inputs, k);
                int at = launch_param(params, name, n);
                const json_t *arg = at >= 0 ? json_array_get(args, (size_t)at) : NULL;
                if (at < 0 || used[at])
                        return snprintf(why, why_size,
                                        "%s passes %s as the OpDef's input %s, which is no "
                                        "parameter of %s by that name: the wrapper computes or "
                                        "renames it",
                                        launcher,
                                        json_is_string(name) ? json_string_value(name)
                                                             : "an expression",
                                        def->inputs[k].name,
                                        json_string_value(json_object_get(launch, "header"))),
                               -ENOENT;
                used[at] = true;
                if (arg_is(arg, "null") && def->inputs[k].type == PARAM_OPTIONAL) {
                        b->input[k] = EXAMPLE_ABSENT;
                        b->absent++;
                } else if (arg_is(arg, "tensor") || arg_is(arg, "list") ||
                           (numeric_value(arg) && def->inputs[k].type != PARAM_DYNAMIC))
                        b->input[k] = at;
                else
                        return snprintf(why, why_size,
                                        "%s passes the call's %s as the OpDef's input %s, but the "
                                        "example gives no tensor there",
                                        launcher, json_string_value(name), def->inputs[k].name),
                               -ENOENT;
        }
        for (size_t k = 0, o = 0; k < def->n_outputs; k++) {
                const json_t *name, *arg;
                int at;
                if (def->outputs[k].undeclared || (!all_outputs && def->outputs[k].ref))
                        continue;
                name = json_array_get(outputs, o++);
                at = launch_param(params, name, n);
                arg = at >= 0 ? json_array_get(args, (size_t)at) : NULL;
                if (at < 0 || used[at] ||
                    !(arg_is(arg, "tensor") || arg_is(arg, "list") || arg_is(arg, "null")))
                        return snprintf(why, why_size,
                                        "%s passes %s as the OpDef's output %s, which is no "
                                        "tensor the aclnn call is given",
                                        launcher,
                                        json_is_string(name) ? json_string_value(name)
                                                             : "an expression",
                                        def->outputs[k].name),
                               -ENOENT;
                used[at] = true;
                b->output[k] = at;
        }
        for (size_t k = 0; json_array_size(attrs) == def->n_attrs && k < def->n_attrs; k++) {
                int at = launch_param(params, json_array_get(attrs, k), n);
                if (at < 0 || used[at] || !arg_is(json_array_get(args, (size_t)at), "value") ||
                    !value_fits(&def->attrs[k], json_array_get(args, (size_t)at)))
                        continue;
                used[at] = true;
                b->attr[k] = at;
        }
        for (size_t i = 0; i < n; i++) {
                const json_t *arg = json_array_get(args, i);
                if (used[i])
                        continue;
                if (arg_is(arg, "value"))
                        b->values_left++;
                else if (arg_is(arg, "tensor") || arg_is(arg, "list")) {
                        size_t len = strlen(b->dropped_names);
                        snprintf(b->dropped_names + len, sizeof(b->dropped_names) - len, "%s%s",
                                 b->dropped ? ", " : "",
                                 json_string_value(json_array_get(params, i)) ?: "?");
                        b->dropped++;
                }
        }
        if (!binding_kinds_agree(def, args, b))
                return snprintf(why, why_size,
                                "bound through %s, the example's tensors have dtypes of another "
                                "kind than the OpDef's inputs",
                                launcher),
                       -ENOENT;
        return 0;
}

/*
 * One example (examples/DIR with main.cpp and gen_data.py) as a case:
 * shapes, dtypes and attribute values from main.cpp's aclnn call, whose
 * tensors are the OpDef's inputs then its outputs in order (attributes
 * between them); the golden from what gen_data.py writes.  0 with the case
 * appended, or -ENOENT and why when the example cannot be read.
 */
static int read_example(const struct opdef *def, const char *example, struct st_state *st,
                        struct notes *notes, char *why, size_t why_size)
{
        char path[PATH_MAX], golden_why[600] = "", name[129];
        json_t *call = NULL, *args, *arg;
        json_t *shapes = json_object(), *attrs = json_object(), *data = json_object();
        json_t *written = NULL, *outs = NULL;
        json_t *casted = json_array(), *v; /* tensors whose dtype aclnn casts */
        json_t *launch = NULL;             /* a hand-written wrapper's level-0 launch */
        struct example_binding b;
        char detail[400] = "", launch_why[400] = "";
        size_t i;
        int r = -ENOENT;

        format_path(path, sizeof(path), "%s/%s/main.cpp", st->opdir, example);
        if (init_read_example(path, &call, why, why_size) < 0)
                goto out;
        args = json_object_get(call, "args");
        if (example_file_values(st, example, args, &written, why, why_size) < 0)
                goto out;
        if (init_read_launcher(st->opdir, def->type,
                               json_string_value(json_object_get(call, "call")), &launch,
                               launch_why, sizeof(launch_why)) == 0 &&
            bind_launcher(def, args, launch, &b, launch_why, sizeof(launch_why)) == 0) {
                /* the wrapper's own launch says where each parameter goes */
                note(notes,
                     "%s/main.cpp: %s bound to the OpDef by the names %s passes to %s's "
                     "launch in %s",
                     example, json_string_value(json_object_get(call, "call")),
                     json_string_value(json_object_get(launch, "header")), def->type,
                     json_string_value(json_object_get(launch, "launcher")));
        } else if (bind_signature(def, args, &b) == 0) {
                /* the generated aclnn order: no names needed */
        } else if (bind_example(def, args, true, &b, detail, sizeof(detail)) < 0 ||
                   !binding_kinds_agree(def, args, &b)) {
                /* names that mislead (input_2 for the OpDef's second input, input1): by position */
                struct example_binding by_position;
                char position_detail[400];
                bool named = !detail[0];
                if (bind_example(def, args, false, &by_position, position_detail,
                                 sizeof(position_detail)) == 0 &&
                    binding_kinds_agree(def, args, &by_position)) {
                        b = by_position;
                        note(
                            notes,
                            "%s/main.cpp: the tensors are bound to the OpDef by position, as their "
                            "names bind them to inputs of other dtypes",
                            example);
                } else if (!named) {
                        snprintf(why, why_size, "%.200s/main.cpp: %s: %s", example,
                                 json_string_value(json_object_get(call, "call")), detail);
                        goto out;
                }
        }
        if (b.dropped)
                note(notes,
                     "%s/main.cpp: %s passes %zu more tensor%s than the kernel takes (%s, which "
                     "aclnn uses for checks or sizes): left out, the last tensors are the outputs",
                     example, json_string_value(json_object_get(call, "call")), b.dropped,
                     b.dropped == 1 ? "" : "s", b.dropped_names);
        if (b.absent)
                note(notes,
                     "%s/main.cpp: %s passes no tensor for the last %zu optional input%s: left out",
                     example, json_string_value(json_object_get(call, "call")), b.absent,
                     b.absent == 1 ? "" : "s");
        for (size_t k = 0; k < def->n_inputs + def->n_outputs; k++) {
                bool input = k < def->n_inputs;
                const struct param *p = input ? &def->inputs[k] : &def->outputs[k - def->n_inputs];
                int at = input ? b.input[k] : b.output[k - def->n_inputs];
                json_t *shape;
                if (!input && (p->ref || at < 0))
                        continue; /* the input's; or InferShape's */
                if (at == EXAMPLE_ABSENT) {
                        json_object_set_new(shapes, p->name, json_null());
                        continue;
                }
                if (at < 0) {
                        snprintf(why, why_size,
                                 "%.200s/main.cpp: %s passes nothing for input %s; the OpDef of %s "
                                 "has %zu inputs and %zu outputs",
                                 example, json_string_value(json_object_get(call, "call")), p->name,
                                 def->type, def->n_inputs, def->n_outputs_declared);
                        goto out;
                }
                arg = json_array_get(args, (size_t)at);
                if (arg_is(arg, "null") && !input && def->has_infer_shape) {
                        note(notes,
                             "%s/main.cpp: %s asks for no output %s (nullptr): its shape is "
                             "InferShape's and it is not checked against a golden",
                             example, json_string_value(json_object_get(call, "call")), p->name);
                        continue;
                }
                if (arg_is(arg, "null")) {
                        if (!input || p->type != PARAM_OPTIONAL) {
                                snprintf(why, why_size,
                                         "%.200s/main.cpp: %s passes a null tensor for %s %s, "
                                         "which the OpDef requires",
                                         example, json_string_value(json_object_get(call, "call")),
                                         input ? "input" : "output", p->name);
                                goto out;
                        }
                        json_object_set_new(shapes, p->name, json_null());
                        continue;
                }
                shape = arg_is(arg, "value") ? value_shape(json_object_get(arg, "value"))
                                             : arg_shape(arg);
                if (!shape || (p->type == PARAM_DYNAMIC) != arg_is(arg, "list")) {
                        snprintf(
                            why, why_size,
                            "%.200s/main.cpp: cannot tell the shape of %s %s (argument %.100s of "
                            "%s)",
                            example, input ? "input" : "output", p->name,
                            json_string_value(json_object_get(arg, "expr")) ?: "?",
                            json_string_value(json_object_get(call, "call")));
                        json_decref(shape);
                        goto out;
                }
                /*
                 * A dtype the OpDef does not list: aclnn casts between the
                 * example's tensor and the kernel's (an output computed as
                 * int32 and handed back as float32) -- the shape holds, the
                 * data does not.  An integer tensor where the OpDef wants a
                 * float input (or the reverse) is an argument bound wrongly.
                 */
                if (arg_dtype(arg) && p->n_dtypes && !param_lists(p, arg_dtype(arg))) {
                        if (input && !same_kind(p, arg_dtype(arg))) {
                                snprintf(why, why_size,
                                         "%.200s/main.cpp: %s passes %s (%s) where the OpDef's "
                                         "input %s takes none of that kind of dtype: the aclnn "
                                         "call does not map onto the OpDef",
                                         example, json_string_value(json_object_get(call, "call")),
                                         json_string_value(json_object_get(arg, "expr"))
                                             ?: "a tensor",
                                         arg_dtype(arg), p->name);
                                json_decref(shape);
                                goto out;
                        }
                        json_array_append_new(casted, json_string(p->name));
                        if (input && !golden_why[0])
                                snprintf(golden_why, sizeof(golden_why),
                                         "main.cpp's %s is %s, which the kernel's input %s is "
                                         "not (aclnn casts it), so the example's data cannot be "
                                         "fed to it",
                                         json_string_value(json_object_get(arg, "expr"))
                                             ?: "tensor",
                                         arg_dtype(arg), p->name);
                        note(notes,
                             "%s: main.cpp's %s is %s where the OpDef's %s %s takes other dtypes "
                             "(aclnn casts): its shape is kept, its dtype is the OpDef's",
                             example, json_string_value(json_object_get(arg, "expr")) ?: "tensor",
                             arg_dtype(arg), input ? "input" : "output", p->name);
                        json_object_set_new(shapes, p->name, shape);
                        continue;
                }
                json_object_set_new(shapes, p->name, shape);
                if (arg_dtype(arg) && input)
                        snprintf(st->dtypes[k], sizeof(st->dtypes[0]), "%s", arg_dtype(arg));
                else if (arg_dtype(arg))
                        snprintf(st->out_dtypes[k - def->n_inputs], sizeof(st->out_dtypes[0]), "%s",
                                 arg_dtype(arg));
        }
        st->have_dtypes = true;
        st->dtypes_from = "main.cpp";
        /* the attributes main.cpp passes, by name or in the OpDef's order */
        for (size_t a = 0; a < def->n_attrs; a++) {
                json_t *v;
                if (b.attr[a] < 0 || !arg_is(json_array_get(args, (size_t)b.attr[a]), "value"))
                        continue;
                v = attr_value(&def->attrs[a],
                               json_object_get(json_array_get(args, (size_t)b.attr[a]), "value"));
                if (v)
                        json_object_set_new(attrs, def->attrs[a].name, v);
        }
        if (b.values_left)
                note(notes,
                     "%s/main.cpp passes %zu non-tensor arguments that match no attribute of the "
                     "OpDef by name, nor by position in one way only: not taken",
                     example, b.values_left);
        /* the golden: gen_data.py's inputs and golden files */
        if (!golden_why[0] && !written)
                written = run_gen_data(st, example, NULL, NULL, golden_why, sizeof(golden_why));
        for (size_t k = 0; written && k < def->n_inputs && !golden_why[0]; k++) {
                json_t *d;
                if (json_is_null(json_object_get(shapes, def->inputs[k].name)))
                        continue;
                d = arg_data(json_array_get(args, (size_t)b.input[k]), written, golden_why,
                             sizeof(golden_why));
                if (d)
                        json_object_set_new(data, def->inputs[k].name, d);
        }
        if (written && !golden_why[0]) {
                json_t *out_args = json_array();
                for (size_t k = 0; k < def->n_outputs; k++) {
                        int at = b.output[k];
                        const struct param *in = find_input(def, def->outputs[k].name);
                        if (at < 0 && def->outputs[k].ref && in)
                                at = b.input[in - def->inputs];
                        json_array_append(out_args,
                                          at >= 0 ? json_array_get(args, (size_t)at) : json_null());
                }
                outs = golden_outputs(def, out_args, written, golden_why, sizeof(golden_why));
                json_decref(out_args);
                /* an output aclnn casts is not the kernel's: its golden does not apply */
                json_array_foreach(casted, i, v) json_object_del(outs, json_string_value(v));
                if (outs && !json_object_size(outs)) {
                        snprintf(golden_why, sizeof(golden_why),
                                 "the golden files are of outputs aclnn casts from the kernel's "
                                 "dtype");
                        json_decref(outs);
                        outs = NULL;
                }
        }
        case_name(strrchr(example, '/') ? strrchr(example, '/') + 1 : example, st->cases, name,
                  sizeof(name));
        json_t *entry = json_pack("{s:s, s:O}", "name", name, "shapes", shapes);
        if (json_object_size(attrs))
                json_object_set(entry, "attrs", attrs);
        if (outs) {
                json_object_set_new(entry, "golden",
                                    json_pack("{s:s, s:O, s:O}", "example", example, "inputs", data,
                                              "outputs", outs));
                st->goldens++;
                note(notes,
                     "case %s from %s: shapes, dtypes%s from main.cpp (%s), inputs and golden "
                     "from what gen_data.py writes",
                     name, example, json_object_size(attrs) ? " and attributes" : "",
                     json_string_value(json_object_get(call, "call")));
        } else {
                note(notes, "case %s from %s: shapes, dtypes%s from main.cpp (%s); no golden: %s",
                     name, example, json_object_size(attrs) ? " and attributes" : "",
                     json_string_value(json_object_get(call, "call")), golden_why);
        }
        json_array_append_new(st->cases, entry);
        if (!json_object_size(st->attrs))
                json_object_update(st->attrs, attrs);
        r = 0;
out:
        /* a wrapper whose launch was read but did not bind says why, for --case */
        if (r < 0 && launch && launch_why[0]) {
                size_t len = strlen(why);
                snprintf(why + len, why_size - len, " (and %s)", launch_why);
        }
        json_decref(launch);
        json_decref(casted);
        json_decref(call);
        json_decref(shapes);
        json_decref(attrs);
        json_decref(data);
        json_decref(written);
        json_decref(outs);
        return r;
}

/* Cases from examples/ (each subdirectory with main.cpp and gen_data.py). */
static int read_examples(const struct opdef *def, struct st_state *st, struct notes *notes,
                         char *why, size_t why_size)
{
        char dir[PATH_MAX], *names[MAX_SOURCES];
        size_t n = 0, taken = 0;
        struct dirent *e;
        DIR *d;

        format_path(dir, sizeof(dir), "%s/examples", st->opdir);
        d = opendir(dir);
        while (d && (e = readdir(d)) && n < MAX_SOURCES) {
                char probe[PATH_MAX];
                if (e->d_name[0] == '.' ||
                    format_path(probe, sizeof(probe), "%s/%s/gen_data.py", dir, e->d_name) < 0 ||
                    access(probe, R_OK) < 0 ||
                    format_path(probe, sizeof(probe), "%s/%s/main.cpp", dir, e->d_name) < 0 ||
                    access(probe, R_OK) < 0)
                        continue;
                names[n] = strdup(e->d_name);
                n += names[n] != NULL;
        }
        if (d)
                closedir(d);
        qsort(names, n, sizeof(*names), compare_names);
        why[0] = '\0';
        for (size_t i = 0; i < n; i++) {
                char example[PATH_MAX], one[1024];
                snprintf(example, sizeof(example), "examples/%s", names[i]);
                if (read_example(def, example, st, notes, one, sizeof(one)) == 0)
                        taken++;
                else if (!why[0])
                        snprintf(why, why_size, "%s", one);
        }
        free_names(names, n);
        return taken ? 0 : -ENOENT;
}

/* "x=4096x4096,y=4096x4096": every input of the OpDef, for a hint. */
static void case_hint(const struct opdef *def, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < def->n_inputs && len + 1 < size; i++)
                len += (size_t)snprintf(
                    buf + len, size - len, "%s%s=%s", i ? "," : "", def->inputs[i].name,
                    def->inputs[i].type == PARAM_DYNAMIC ? "4096x4096;4096x4096" : "4096x4096");
}

/* ------------------------------------------------------------ the bench case */

#define BENCH_MIN_ELEMENTS (8ull << 20)

/* Elements of one shape (a list of dims, or for a list input the largest element). */
static double max_item_elements(const json_t *shape)
{
        bool is_list = json_is_array(json_array_get(shape, 0));
        double best = 0;

        for (size_t k = 0; k < (is_list ? json_array_size(shape) : 1); k++) {
                const json_t *dims = is_list ? json_array_get(shape, k) : shape;
                double n = 1;
                for (size_t d = 0; d < json_array_size(dims); d++)
                        n *= (double)json_integer_value(json_array_get(dims, d));
                best = n > best ? n : best;
        }
        return best;
}

/*
 * Whether the operator works row by row along the last axis (norms,
 * softmax, reductions): by its name, an attribute naming the last axis, or
 * a lower-rank input that matches the trailing dimensions of the largest
 * (a gamma or beta).
 */
static bool row_wise(const struct opdef *def, const json_t *shapes, const json_t *attrs,
                     const char *largest)
{
        static const char *const words[] = { "norm",   "softmax", "reduce", "mean",      "topk",
                                             "argmax", "argmin",  "cumsum", "logsumexp", NULL };
        const json_t *big = json_object_get(shapes, largest), *v;
        char lower[128];
        const char *key;
        size_t i;

        for (i = 0; def->type[i] && i + 1 < sizeof(lower); i++)
                lower[i] = (char)tolower((unsigned char)def->type[i]);
        lower[i] = '\0';
        for (const char *const *w = words; *w; w++)
                if (strstr(lower, *w))
                        return true;
        json_object_foreach((json_t *)attrs, key, v)
        {
                if ((same_name(key, "dim") || same_name(key, "axis") || same_name(key, "axes")) &&
                    ((json_is_integer(v) && json_integer_value(v) == -1) ||
                     (json_is_array(v) && json_array_size(v) == 1 &&
                      json_integer_value(json_array_get(v, 0)) == -1)))
                        return true;
        }
        json_object_foreach((json_t *)shapes, key, v)
        {
                size_t rank = json_array_size(v), big_rank = json_array_size(big);
                bool suffix = rank >= 1 && rank < big_rank && !json_is_array(json_array_get(v, 0));
                for (size_t d = 0; suffix && d < rank; d++)
                        suffix = json_integer_value(json_array_get(v, d)) ==
                                 json_integer_value(json_array_get(big, big_rank - rank + d));
                if (suffix && max_item_elements(v) > 1)
                        return true;
        }
        return false;
}

/* dims with the axis (0 or last) multiplied by factor; a list input, every element. */
static json_t *grow_shape(const json_t *shape, bool last, json_int_t factor, json_int_t match)
{
        bool is_list = json_is_array(json_array_get(shape, 0));
        json_t *out = json_deep_copy(shape);

        for (size_t k = 0; k < (is_list ? json_array_size(out) : 1); k++) {
                json_t *dims = is_list ? json_array_get(out, k) : out;
                size_t rank = json_array_size(dims);
                size_t axis = last ? rank - 1 : 0;
                if (!rank)
                        continue;
                /* a broadcast operand (gamma) grows only where it shares the axis;
                 * every entry of a list grows alike */
                if (match && !is_list && json_integer_value(json_array_get(dims, axis)) != match)
                        continue;
                json_array_set_new(
                    dims, axis,
                    json_integer(json_integer_value(json_array_get(dims, axis)) * factor));
        }
        return out;
}

/* Whether an attribute's name says it holds a size: n, num_rows, length, batch_shape... */
static bool size_like(const char *name)
{
        static const char *const words[] = { "num",  "len",  "size",  "count", "shape",
                                             "rows", "cols", "batch", NULL };
        char n[128];

        plain_name(name, n, sizeof(n));
        if (strcmp(n, "n") == 0 || strcmp(n, "m") == 0)
                return true;
        for (const char *const *w = words; *w; w++)
                if (strstr(n, *w))
                        return true;
        return false;
}

/*
 * The attributes of a grown case: those that restate the grown axis grow
 * with it, so that the case stays one operation (an element count n, a
 * batch_shape the leading dimensions repeat).  An attribute named as a
 * size that is an integer equal to the axis's old length or to the
 * tensor's element count, or a list equal to the tensor's leading or
 * trailing dimensions, is scaled by factor.  NULL when none is; the names
 * scaled go to ret_names.
 */
static json_t *grow_attrs(const json_t *attrs, const json_t *dims, bool last, json_int_t factor,
                          double elements, char *ret_names)
{
        size_t rank = json_array_size(dims), axis = last ? rank - 1 : 0;
        json_int_t old = rank ? json_integer_value(json_array_get(dims, axis)) : 0;
        json_t *out = json_deep_copy(attrs), *v;
        const char *key;
        bool changed = false;
        size_t len = 0;

        if (!out || !rank)
                goto none;
        json_object_foreach(out, key, v)
        {
                bool scaled = false;
                if (!size_like(key))
                        continue;
                if (json_is_integer(v) &&
                    ((old > 1 && json_integer_value(v) == old) ||
                     (elements > 1 && (double)json_integer_value(v) == elements))) {
                        json_object_set_new(out, key, json_integer(json_integer_value(v) * factor));
                        scaled = true;
                } else if (json_is_array(v) && json_array_size(v) && json_array_size(v) <= rank &&
                           old > 1) {
                        size_t n = json_array_size(v), at;
                        bool lead = true, trail = true;
                        for (size_t k = 0; k < n; k++) {
                                json_int_t e = json_integer_value(json_array_get(v, k));
                                lead &= json_is_integer(json_array_get(v, k)) &&
                                        e == json_integer_value(json_array_get(dims, k));
                                trail &=
                                    json_is_integer(json_array_get(v, k)) &&
                                    e == json_integer_value(json_array_get(dims, rank - n + k));
                        }
                        at = lead && axis < n            ? axis
                             : trail && axis >= rank - n ? axis - (rank - n)
                                                         : n;
                        if (at < n) {
                                json_array_set_new(
                                    v, at,
                                    json_integer(json_integer_value(json_array_get(v, at)) *
                                                 factor));
                                scaled = true;
                        }
                }
                changed |= scaled;
                if (scaled && len < 255)
                        len += (size_t)snprintf(ret_names + len, 256 - len, "%s%s", len ? ", " : "",
                                                key);
        }
        if (changed)
                return out;
none:
        json_decref(out);
        return NULL;
}

/*
 * When every case is small (its largest input under 8M elements), a bench
 * case at a realistic size from the largest: every input grown along the
 * first axis, or the last for a row-wise operator, until the largest input
 * has at least 8M elements; list inputs grow every element alike.  Output
 * shapes are dropped (InferShape gives them) unless they can be grown alike.
 */
static json_t *bench_case(const struct opdef *def, const json_t *cases, const json_t *attrs,
                          int axis, bool *ret_last, char *ret_grown_attrs)
{
        const json_t *base = NULL, *c, *v;
        const char *key, *largest = NULL;
        double best = 0, elements = 0;
        json_t *shapes, *out;
        size_t i;
        bool last;
        json_int_t factor, match_first = 0, match_last = 0;

        json_array_foreach(cases, i, c)
        {
                if (case_elements(c) > best) {
                        best = case_elements(c);
                        base = c;
                }
        }
        json_object_foreach(json_object_get(base, "shapes"), key, v)
        {
                if (max_item_elements(v) > elements) {
                        elements = max_item_elements(v);
                        largest = key;
                }
        }
        if (!base || !largest || elements >= (double)BENCH_MIN_ELEMENTS)
                return NULL;
        last = axis >= 0 ? axis == 1
                         : row_wise(def, json_object_get(base, "shapes"),
                                    json_object_get(base, "attrs") ?: attrs, largest);
        factor = (json_int_t)((double)BENCH_MIN_ELEMENTS / elements);
        factor += (double)factor * elements < (double)BENCH_MIN_ELEMENTS;
        {
                const json_t *big = json_object_get(json_object_get(base, "shapes"), largest);
                if (json_is_array(json_array_get(big, 0)))
                        big = json_array_get(big, 0);
                if (!json_array_size(big))
                        return NULL; /* a scalar does not grow */
                match_first = json_integer_value(json_array_get(big, 0));
                match_last = json_integer_value(json_array_get(big, json_array_size(big) - 1));
        }
        shapes = json_object();
        json_object_foreach(json_object_get(base, "shapes"), key, v)
        {
                bool is_input = find_input(def, key) != NULL;
                if (json_is_null(v)) {
                        json_object_set_new(shapes, key, json_null()); /* absent stays absent */
                        continue;
                }
                size_t rank =
                    json_array_size(json_is_array(json_array_get(v, 0)) ? json_array_get(v, 0) : v);
                size_t big_rank = json_array_size(
                    json_is_array(json_array_get(
                        json_object_get(json_object_get(base, "shapes"), largest), 0))
                        ? json_array_get(json_object_get(json_object_get(base, "shapes"), largest),
                                         0)
                        : json_object_get(json_object_get(base, "shapes"), largest));
                if (!is_input)
                        continue; /* below, once the inputs have grown */
                if (!last && rank < big_rank) {
                        json_object_set(shapes, key, (json_t *)v); /* a broadcast operand */
                        continue;
                }
                json_object_set_new(shapes, key,
                                    grow_shape(v, last, factor, last ? match_last : match_first));
        }
        /*
         * An output of an input's shape keeps it.  Another one may be
         * reduced along the last axis: InferShape decides, when there is
         * one; otherwise it grows as the inputs do.
         */
        json_object_foreach(json_object_get(base, "shapes"), key, v)
        {
                const char *in_key;
                const json_t *in_v;
                bool done = false;
                if (find_input(def, key) || json_is_null(v))
                        continue;
                json_object_foreach(json_object_get(base, "shapes"), in_key, in_v)
                {
                        if (!done && find_input(def, in_key) && json_equal(in_v, v) &&
                            json_object_get(shapes, in_key)) {
                                json_object_set(shapes, key, json_object_get(shapes, in_key));
                                done = true;
                        }
                }
                if (!done && (!last || !def->has_infer_shape))
                        json_object_set_new(
                            shapes, key,
                            grow_shape(v, last, factor, last ? match_last : match_first));
        }
        out = json_pack("{s:s, s:o}", "name", "bench", "shapes", shapes);
        {
                const json_t *big = json_object_get(json_object_get(base, "shapes"), largest);
                json_t *grown =
                    grow_attrs(json_object_get(base, "attrs") ?: attrs,
                               json_is_array(json_array_get(big, 0)) ? json_array_get(big, 0) : big,
                               last, factor, elements, ret_grown_attrs);
                if (grown)
                        json_object_set_new(out, "attrs", grown);
                else if (json_object_get(base, "attrs"))
                        json_object_set(out, "attrs", json_object_get(base, "attrs"));
        }
        *ret_last = last;
        return out;
}

/* The cases: msOpSt's, else the examples', then --case's; a bench case when they are small. */
static int draft_cases(const struct init_options *o, const struct opdef *def, struct st_state *st,
                       struct notes *notes, char *err, size_t size)
{
        char hint[512], why[1024] = "";
        int r = read_st_cases(o->opdir, def, st, err, size);

        if (r < 0)
                return r;
        case_hint(def, hint, sizeof(hint));
        if (st->files)
                note(notes,
                     "%zu case%s from %zu msOpSt file%s in tests/st/ (shapes and dtypes "
                     "from input_desc), %zu with a golden (calc_expect_func_file)",
                     json_array_size(st->cases), json_array_size(st->cases) == 1 ? "" : "s",
                     st->files, st->files == 1 ? "" : "s", st->goldens);
        if (st->skipped)
                note(notes, "%zu msOpSt case%s left out; the first: %s", st->skipped,
                     st->skipped == 1 ? "" : "s", st->skip_reason);
        if (json_array_size(st->cases) == 0 && o->n_flag_cases == 0)
                read_examples(def, st, notes, why, sizeof(why));
        for (size_t f = 0; f < o->n_flag_cases; f++) {
                r = parse_flag_case(o->flag_cases[f], def, st->cases, err, size);
                if (r < 0)
                        return r;
        }
        if (json_array_size(st->cases) == 0)
                return init_error(err, size,
                                  "%s: .cases: %s%s%s%s; give one with --case, e.g. --case %s",
                                  o->opdir,
                                  st->skipped ? "no msOpSt case fits: "
                                              : "no msOpSt case in tests/st/ to take shapes from",
                                  st->skipped ? st->skip_reason : "",
                                  why[0] ? "; and the example does not say: " : "", why, hint);
        if (json_array_size(st->cases) > NPU_MAX_CASES)
                return init_error(err, size, "%s: .cases: more than %d cases", o->opdir,
                                  NPU_MAX_CASES);
        if (o->bench_shape) {
                char name[129];
                json_t *b;
                case_name("bench", st->cases, name, sizeof(name));
                r = parse_flag_case(o->bench_shape, def, st->cases, err, size);
                if (r < 0)
                        return r;
                b = json_array_get(st->cases, json_array_size(st->cases) - 1);
                if (!strchr(o->bench_shape, ':'))
                        json_object_set_new(b, "name", json_string(name));
                snprintf(name, sizeof(name), "%s", json_string_value(json_object_get(b, "name")));
                for (size_t i = 0; i < json_array_size(st->cases); i++)
                        json_object_set_new(json_array_get(st->cases, i), "bench",
                                            json_boolean(i + 1 == json_array_size(st->cases)));
                note(notes, "case %s (--bench-shape) is timed; the others check correctness", name);
                return 0;
        }
        bool last = false, alt_last = false;
        char grown_attrs[256] = "", alt_attrs[256] = "";
        json_t *bench = json_array_size(st->cases) < NPU_MAX_CASES
                            ? bench_case(def, st->cases, st->attrs, -1, &last, grown_attrs)
                            : NULL;
        /* the other axis, should the kernel not take this one (check_bench) */
        notes->alt_bench =
            bench ? bench_case(def, st->cases, st->attrs, !last, &alt_last, alt_attrs) : NULL;
        if (notes->alt_bench && json_equal(json_object_get(notes->alt_bench, "shapes"),
                                           json_object_get(bench, "shapes"))) {
                json_decref(notes->alt_bench); /* one axis: no other to try */
                notes->alt_bench = NULL;
        }
        if (bench) {
                char name[129];
                case_name("bench", st->cases, name, sizeof(name));
                json_object_set_new(bench, "name", json_string(name));
                if (notes->alt_bench) {
                        json_object_set_new(notes->alt_bench, "name", json_string(name));
                        json_object_set_new(notes->alt_bench, "bench", json_true());
                }
                json_array_append_new(st->cases, bench);
                snprintf(notes->grown_bench, sizeof(notes->grown_bench), "%s", name);
                for (size_t i = 0; i < json_array_size(st->cases); i++)
                        json_object_set_new(json_array_get(st->cases, i), "bench",
                                            json_boolean(i + 1 == json_array_size(st->cases)));
                note(notes,
                     "case %s is timed: the largest case grown along the %s axis (%s) to at "
                     "least 8M elements (--bench-shape gives another); the others check "
                     "correctness",
                     name, last ? "last" : "first",
                     last ? "the operator works row by row" : "elementwise");
                if (grown_attrs[0])
                        note(notes,
                             "case %s: attributes that restate the grown axis grow with it (%s)",
                             name, grown_attrs);
                return 0;
        }
        mark_bench_case(st->cases, notes);
        return 0;
}

/* Whether an input's name says it holds indices (indices, sorted_index, idx). */
static bool index_like(const char *name)
{
        char n[128];

        plain_name(name, n, sizeof(n));
        return strstr(n, "indic") || strstr(n, "index") || strstr(n, "idx");
}

/*
 * Seeded integers default to [-100, 100], which sends an index input out
 * of bounds.  An integer input named as an index that no msOpSt
 * value_range covers gets [0, n - 1], n the smallest dimension of the
 * first other input that is not an index, in any case: an index valid
 * along every axis of the tensor it most likely indexes.
 */
static void draft_index_ranges(const struct opdef *def, struct st_state *st, size_t variant,
                               struct notes *notes)
{
        for (size_t k = 0; k < def->n_inputs; k++) {
                const char *dtype = st->have_dtypes && st->dtypes[k][0]
                                        ? st->dtypes[k]
                                        : param_dtype(&def->inputs[k], variant);
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
                json_object_set_new(st->ranges, def->inputs[k].name,
                                    json_pack("[i, I]", 0, smallest - 1));
                note(notes,
                     "input_ranges.%s [0, %lld]: an index input, kept inside every axis of %s "
                     "(seeded integers are in [-100, 100]); check it",
                     def->inputs[k].name, (long long)(smallest - 1), data);
        }
}

static int draft(const struct init_options *o, struct sim_session *s, json_t **ret_doc,
                 struct notes *notes, char *err, size_t size)
{
        struct opdef *def = calloc(1, sizeof(*def));
        char abs_dir[PATH_MAX];
        /* the sandbox binds the operator by an absolute path */
        struct st_state st = { .cases = json_array(),
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
                r = find_opdef(o, s, def, err, size);
        if (r < 0)
                goto out;
        note(notes,
             "name %s, %zu inputs, %zu outputs and %zu attributes from the OpDef op_host "
             "registers",
             def->type, def->n_inputs, def->n_outputs, def->n_attrs);
        r = choose_kernel(o, def, kernel, sizeof(kernel), notes, err, size);
        if (r == 0)
                r = draft_cases(o, def, &st, notes, err, size);
        if (r == 0)
                r = choose_variant(o, def, &st, &variant, notes, err, size);
        if (r == 0)
                draft_index_ranges(def, &st, variant, notes);
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
        json_object_set_new(doc, "inputs",
                            tensor_list(def->inputs, def->n_inputs, variant,
                                        st.have_dtypes ? (const char(*)[32])st.dtypes : NULL));
        json_object_set_new(doc, "outputs",
                            tensor_list(def->outputs, def->n_outputs, variant,
                                        st.have_dtypes ? (const char(*)[32])st.out_dtypes : NULL));
        /* a ref output is its input: the same dtype */
        for (size_t k = 0; k < def->n_outputs; k++) {
                const struct param *in = find_input(def, def->outputs[k].name);
                if (def->outputs[k].ref && in)
                        json_object_set(
                            json_array_get(json_object_get(doc, "outputs"), k), "dtype",
                            json_object_get(json_array_get(json_object_get(doc, "inputs"),
                                                           (size_t)(in - def->inputs)),
                                            "dtype"));
        }
        if (def->n_outputs_declared == 0)
                note(notes,
                     "the OpDef declares no outputs: the kernel updates its inputs in place, so "
                     "every input is read back after the run as a ref output");
        if (json_object_size(attrs))
                json_object_set(doc, "attrs", attrs);
        json_object_set(doc, "cases", st.cases);
        if (json_object_size(st.ranges))
                json_object_set(doc, "input_ranges", st.ranges);
        json_t *tolerance = draft_tolerance(doc);
        if (json_object_size(tolerance))
                json_object_set(doc, "tolerance", tolerance);
        json_decref(tolerance);
        json_object_set_new(doc, "level", json_integer(o->level));
        json_object_set_new(doc, "auto_sync", json_boolean(!sync_off));
        if (sync_off)
                note(notes, "auto_sync false: CMakeLists.txt builds with --cce-auto-sync=off");
        *ret_doc = doc;
        doc = NULL;
out:
        json_decref(doc);
        json_decref(attrs);
        json_decref(st.cases);
        json_decref(st.ranges);
        json_decref(st.attrs);
        opdef_free(def);
        return r;
}

/* ------------------------------------------------------------ the check */

static void on_check_done(json_t *result, void *userdata)
{
        *(json_t **)userdata = result;
}

static void on_check_golden_done(void *userdata)
{
        *(bool *)userdata = true;
}

/*
 * Runs the draft's smallest case on the simulator: the harness refuses a
 * manifest whose tensors or attributes the OpDef does not declare.  A case
 * drafted from an example runs on the example's inputs (what gen_data.py
 * writes), as eval will run it, and its golden is checked.
 */
static int check_draft(struct sim_session *s, const struct npu_manifest *m, int only_case,
                       char *err, size_t size, char *summary, size_t summary_size)
{
        struct npu_sim_run_options options = { .seed = 1,
                                            .only_case = only_case < 0 ? 0 : only_case,
                                            .sandbox = true };
        struct npu_golden *golden = NULL;
        json_t *result = NULL;
        const char *status, *verdict;
        char work[PATH_MAX] = "";
        bool done = false;
        int r;

        for (size_t i = 1; only_case < 0 && i < m->n_cases; i++)
                if (shapes_elements(m->cases[i].shapes) <
                    shapes_elements(m->cases[options.only_case].shapes))
                        options.only_case = (int)i;
        if (m->cases[options.only_case].golden) {
                const char *tmp = getenv("TMPDIR");
                struct npu_golden_options golden_options = { .only_case = options.only_case,
                                                             .sandbox = true };
                if (format_path(work, sizeof(work), "%s/ascendopt-check-XXXXXX",
                                tmp && *tmp ? tmp : "/tmp") < 0 ||
                    !mkdtemp(work)) {
                        snprintf(err, size, "cannot make a work directory: %s", strerror(errno));
                        return -errno;
                }
                golden_options.work_dir = work;
                options.work_dir = work;
                options.keep_work_dir = true;
                r = npu_golden_new(s->runner, m, &golden_options, &golden);
                if (r < 0) {
                        snprintf(err, size, "cannot prepare the golden: %s", strerror(-r));
                        rm_rf(work);
                        return r;
                }
                npu_golden_prepare(golden, on_check_golden_done, &done);
                while (!done)
                        event_base_loop(s->base, EVLOOP_ONCE);
                options.input_files = npu_golden_input_files(golden);
        }
        r = npu_sim_run_start(s->runner, &s->paths, m, &options, on_check_done, &result, NULL);
        if (r < 0) {
                snprintf(err, size, "cannot start the check: %s", child_strerror(r));
                npu_golden_free(golden);
                if (work[0])
                        rm_rf(work);
                return r;
        }
        while (!result)
                event_base_loop(s->base, EVLOOP_ONCE);
        status = json_string_value(json_object_get(result, "status"));
        if (golden && status && strcmp(status, "ok") == 0) {
                done = false;
                npu_golden_check(golden, result, on_check_golden_done, &done);
                while (!done)
                        event_base_loop(s->base, EVLOOP_ONCE);
        }
        if (!status || strcmp(status, "ok") != 0) {
                const json_t *e = json_object_get(result, "error");
                const char *kind = json_string_value(json_object_get(e, "kind"));
                const char *message = json_string_value(json_object_get(e, "message")) ?: "";
                int lines = 0, len = 0;
                /* whole lines only, the first few: the first error says most */
                for (const char *p = message; *p && lines < 6; lines++) {
                        const char *eol = strchr(p, '\n');
                        int n = eol ? (int)(eol - p + 1) : (int)strlen(p);
                        if (len + n > (int)size / 2)
                                break;
                        len += n;
                        p += n;
                }
                r = init_error(
                    err, size, "the draft does not run on the simulator: case %s: %s%s%s%s:\n%.*s",
                    m->cases[options.only_case].name, status ? status : "?",
                    kind && status && strcmp(kind, status) != 0 ? " (" : "",
                    kind && status && strcmp(kind, status) != 0 ? kind : "",
                    kind && status && strcmp(kind, status) != 0 ? ")" : "", len, message);
        } else {
                verdict = json_string_value(
                    json_object_get(json_object_get(result, "golden"), "verdict"));
                snprintf(
                    summary, summary_size, "case %s ran on the simulator: ok, %.2f us%s%s%s%s",
                    m->cases[options.only_case].name,
                    json_number_value(json_object_get(result, "latency_us")),
                    verdict ? "; golden " : "", verdict ? verdict : "",
                    json_object_get(json_object_get(result, "golden"), "why") ? ": " : "",
                    json_string_value(json_object_get(json_object_get(result, "golden"), "why"))
                        ?: "");
        }
        json_decref(result);
        npu_golden_free(golden);
        if (work[0])
                rm_rf(work);
        return r;
}

/*
 * Runs the bench case init grew.  One that does not run (a kernel that
 * keeps a grown axis in UB, a shape the tiling does not split) is dropped,
 * and the largest of the operator's own cases is timed instead.
 */
static int check_bench(struct sim_session *s, const struct init_options *o, json_t *doc,
                       struct npu_manifest **m, struct notes *notes, char *err, size_t size)
{
        json_t *cases = json_object_get(doc, "cases");
        char why[1024], summary[768];
        size_t bench = (size_t)-1;
        json_t *c;
        size_t i;

        json_array_foreach(cases, i, c) if (strcmp(json_string_value(json_object_get(c, "name")),
                                                   notes->grown_bench) == 0) bench = i;
        if (bench == (size_t)-1 ||
            check_draft(s, *m, (int)bench, why, sizeof(why), summary, sizeof(summary)) == 0)
                return 0;
        for (char *p = why; *p; p++)
                *p = *p == '\n' ? ' ' : *p;
        if (notes->alt_bench) {
                struct npu_manifest *alt = NULL;
                char ignored[1024];
                json_array_set(cases, bench, notes->alt_bench);
                if (npu_manifest_from_json(o->opdir, doc, "ascendopt.json (draft)", &alt, ignored,
                                           sizeof(ignored)) == 0 &&
                    check_draft(s, alt, (int)bench, ignored, sizeof(ignored), summary,
                                sizeof(summary)) == 0) {
                        note(notes,
                             "the grown case %s did not run (%.300s); grown along the other "
                             "axis instead, it runs",
                             notes->grown_bench,
                             strstr(why, ": runtime_error") ? strstr(why, ": runtime_error") + 2
                                                            : why);
                        npu_manifest_free(*m);
                        *m = alt;
                        return 0;
                }
                npu_manifest_free(alt);
        }
        json_array_remove(cases, bench);
        /* "the draft does not run on the simulator: case bench: " says nothing new */
        note(notes,
             "the grown case %s did not run (%.300s), nor along the other axis: left out, the "
             "largest case is timed instead (--bench-shape gives one)",
             notes->grown_bench,
             strstr(why, ": runtime_error") ? strstr(why, ": runtime_error") + 2 : why);
        mark_bench_case(cases, notes);
        *m = npu_manifest_free(*m);
        return npu_manifest_from_json(o->opdir, doc, "ascendopt.json (draft)", m, err, size);
}

/* ------------------------------------------------------------ the command */

#define LINE_WIDTH 100
#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(9))

/*
 * Writes v as the corpus manifests are laid out: a value that fits on one
 * line stays on one ({"name": "x", "dtype": "float16"}), others are broken
 * one member per line.  Every piece is encoded by jansson.
 */
static int dump_laid_out(FILE *f, const json_t *v, int indent, size_t column)
{
        char *one = json_dumps(v, DUMP_FLAGS);
        bool is_object = json_is_object(v);
        const char *key;
        json_t *member;
        size_t i = 0;

        if (!one)
                return -ENOMEM;
        if ((!is_object && !json_is_array(v)) || column + strlen(one) <= LINE_WIDTH ||
            (is_object ? json_object_size(v) : json_array_size(v)) == 0) {
                fputs(one, f);
                free(one);
                return 0;
        }
        free(one);
        fputs(is_object ? "{\n" : "[\n", f);
        if (is_object) {
                json_object_foreach((json_t *)v, key, member)
                {
                        json_t *name = json_string(key);
                        char *encoded = name ? json_dumps(name, DUMP_FLAGS) : NULL;
                        json_decref(name);
                        if (!encoded)
                                return -ENOMEM;
                        fprintf(f, "%s%*s%s: ", i++ ? ",\n" : "", indent + 2, "", encoded);
                        size_t at = (size_t)indent + 4 + strlen(encoded);
                        free(encoded);
                        if (dump_laid_out(f, member, indent + 2, at) < 0)
                                return -ENOMEM;
                }
        } else {
                json_array_foreach(v, i, member)
                {
                        fprintf(f, "%s%*s", i ? ",\n" : "", indent + 2, "");
                        if (dump_laid_out(f, member, indent + 2, (size_t)indent + 2) < 0)
                                return -ENOMEM;
                }
        }
        fprintf(f, "\n%*s%c", indent, "", is_object ? '}' : ']');
        return 0;
}

/* The draft as text; a new string, or NULL without memory. */
static char *laid_out_text(const json_t *doc)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        int r;

        if (!f)
                return NULL;
        r = dump_laid_out(f, doc, 0, 0);
        if (fclose(f) != 0 || r < 0) {
                free(text);
                return NULL;
        }
        return text;
}

/* Writes text to path through a temporary file and a rename: never half a manifest. */
static int write_atomically(const char *path, const char *text)
{
        char tmp[PATH_MAX];
        FILE *f;
        int r = 0;

        if (format_path(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid()) < 0)
                return -ENAMETOOLONG;
        f = fopen(tmp, "wxe");
        if (!f)
                return -errno;
        if (fputs(text, f) < 0 || fputc('\n', f) < 0)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}

static void init_usage(FILE *f)
{
        fprintf(f,
                "Usage: ascendopt init OPDIR [options]\n"
                "       ascendopt init --all REPO [--force] [--no-check] [--level N]\n"
                "\n"
                "Drafts OPDIR/ascendopt.json from the operator's own files: the OpDef in\n"
                "op_host/ (name, inputs, outputs, dtypes, attributes), the kernel entry in\n"
                "op_kernel/, and the cases:\n"
                "  - msOpSt cases (OPDIR/tests/st/*.json), with their calc_expect_func_file\n"
                "    as the case's golden; a \"fuzz\" shape comes from the case's fuzz_impl;\n"
                "  - else each example (OPDIR/examples/*/ with main.cpp and gen_data.py):\n"
                "    shapes, dtypes and attributes from main.cpp's aclnn call, and gen_data.py,\n"
                "    run in the sandbox, gives the inputs and golden.bin as the golden;\n"
                "  - else --case, naming every input.\n"
                "'ascendopt eval' checks the goldens.  When every case is small, a bench case\n"
                "of at least 8M elements per input is added and timed (grown along the last\n"
                "axis for row-wise operators, the first otherwise).  The draft runs its\n"
                "smallest case on the simulator before it is written.  --all drafts every\n"
                "operator below REPO and prints one line each: ok, or the reason.\n"
                "\n"
                "  --case [NAME:]SHAPES  a case: x=8x2048,y=8x2048, or 8x2048 for every input;\n"
                "                        an output's shape too (y=8x2048) where the operator\n"
                "                        has no InferShape (repeatable)\n"
                "  --bench-shape SHAPES  the timed case, in --case's form, instead of the\n"
                "                        grown one\n"
                "  --attr NAME=VALUE     an attribute's value (JSON, else a string); needed for\n"
                "                        a REQUIRED attribute with no default (repeatable)\n"
                "  --variant N           the OpDef's Nth dtype combination (default: the first\n"
                "                        the simulator has; msOpSt or main.cpp types win)\n"
                "  --kernel ENTRY        the kernel entry, e.g. my_kernel<1> for a template\n"
                "  --op TYPE             which OpDef, when op_host/ registers several\n"
                "  --level N             the manifest's level, 1 to 3 (default 1)\n"
                "  --stdout              print the draft instead of writing it\n"
                "  --force               replace an existing ascendopt.json\n"
                "  --no-check            do not run the draft on the simulator\n"
                "  --all                 OPDIR is a repository: draft every operator in it\n");
}

/*
 * Drafts, checks and writes one operator's manifest.  quiet (--all): no
 * notes, and *line gets "ok, ..." or the reason; else everything is
 * printed.  Returns the exit status.
 */
static int init_one(const struct init_options *o, struct sim_session *sim, bool quiet, char *line,
                    size_t line_size)
{
        struct npu_manifest *m = NULL;
        struct notes notes = { 0 };
        json_t *doc = NULL;
        char err[4096], path[PATH_MAX], summary[768] = "";
        char *text = NULL;
        struct stat st;
        int ret = EX_OK, r;

        line[0] = '\0';
        if (stat(o->opdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                snprintf(line, line_size, "%s: not a directory", o->opdir);
                if (!quiet)
                        fprintf(stderr, "ascendopt init: %s\n", line);
                return EX_NOINPUT;
        }
        if (format_path(path, sizeof(path), "%s/ascendopt.json", o->opdir) < 0)
                return cli_usage_error("init", "OPDIR is too long");
        if (!o->to_stdout && !o->force && access(path, F_OK) == 0) {
                snprintf(line, line_size, "ascendopt.json exists (--force replaces it)");
                if (!quiet)
                        fprintf(stderr,
                                "ascendopt init: %s exists; --force replaces it, --stdout prints "
                                "the draft\n",
                                path);
                return EX_CANTCREAT;
        }
        r = draft(o, sim, &doc, &notes, err, sizeof(err));
        if (r < 0) {
                snprintf(line, line_size, "%s", r == -ENOMEM ? "out of memory" : err);
                if (!quiet)
                        fprintf(stderr, "ascendopt init: %s\n", line);
                ret = r == -ENOMEM ? EX_OSERR : EX_DATAERR;
                goto out;
        }
        /* the same checks as any manifest, before anything is written */
        r = npu_manifest_from_json(o->opdir, doc, "ascendopt.json (draft)", &m, err, sizeof(err));
        if (r == 0 && o->check)
                r = check_draft(sim, m, -1, err, sizeof(err), summary, sizeof(summary));
        if (r == 0 && o->check && notes.grown_bench[0])
                r = check_bench(sim, o, doc, &m, &notes, err, sizeof(err));
        if (r < 0) {
                snprintf(line, line_size, "%.3000s (--no-check writes the draft unchecked)", err);
                if (!quiet) {
                        fprintf(stderr, "ascendopt init: %s\n", err);
                        fprintf(stderr, "ascendopt init: nothing was written; --stdout shows the "
                                        "draft, --no-check writes it unchecked\n");
                }
                ret = EX_DATAERR;
                if (!o->to_stdout)
                        goto out;
        }
        text = laid_out_text(doc);
        if (!text) {
                ret = EX_OSERR;
                goto out;
        }
        if (o->to_stdout) {
                printf("%s\n", text);
                goto out;
        }
        r = write_atomically(path, text);
        if (r < 0) {
                snprintf(line, line_size, "cannot write %.2048s: %s", path, strerror(-r));
                if (!quiet)
                        fprintf(stderr, "ascendopt init: %s\n", line);
                ret = EX_CANTCREAT;
                goto out;
        }
        {
                size_t goldens = 0, n = json_array_size(json_object_get(doc, "cases"));
                json_t *c;
                size_t i;
                json_array_foreach(json_object_get(doc, "cases"), i, c) goldens +=
                    json_object_get(c, "golden") != NULL;
                snprintf(line, line_size, "ok, %zu case%s, %zu with a golden%s%s", n,
                         n == 1 ? "" : "s", goldens, summary[0] ? "; " : " (not checked)", summary);
        }
        if (quiet)
                goto out;
        printf("wrote %s\n", path);
        for (size_t i = 0; i < notes.n; i++)
                printf("  %s\n", notes.lines[i]);
        if (summary[0])
                printf("  checked: %s\n", summary);
        else
                printf("  not checked (--no-check): run 'ascendopt eval %s'\n", o->opdir);
out:
        free(text);
        json_decref(doc);
        json_decref(notes.alt_bench);
        npu_manifest_free(m);
        return ret;
}

/* Operator directories (holding op_host/ and op_kernel/) below root, up to depth levels. */
static void find_operator_dirs(const char *root, int depth, char **dirs, size_t *n, size_t max)
{
        char probe[PATH_MAX], *names[1024];
        size_t count = 0;
        struct dirent *e;
        DIR *d;

        if (format_path(probe, sizeof(probe), "%s/op_host", root) == 0 &&
            access(probe, X_OK) == 0 &&
            format_path(probe, sizeof(probe), "%s/op_kernel", root) == 0 &&
            access(probe, X_OK) == 0) {
                if (*n < max && (dirs[*n] = strdup(root)))
                        (*n)++;
                return;
        }
        if (depth == 0 || !(d = opendir(root)))
                return;
        while ((e = readdir(d)) && count < ARRAY_SIZE(names)) {
                struct stat st;
                if (e->d_name[0] == '.' ||
                    format_path(probe, sizeof(probe), "%s/%s", root, e->d_name) < 0 ||
                    stat(probe, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                names[count] = strdup(e->d_name);
                count += names[count] != NULL;
        }
        closedir(d);
        qsort(names, count, sizeof(*names), compare_names);
        for (size_t i = 0; i < count; i++) {
                if (format_path(probe, sizeof(probe), "%s/%s", root, names[i]) == 0)
                        find_operator_dirs(probe, depth - 1, dirs, n, max);
                free(names[i]);
        }
}

/* --all REPO: every operator, one line each. */
static int init_all(const struct init_options *base, const char *repo, struct sim_session *sim)
{
        char *dirs[4096], line[4096];
        size_t n = 0, ok = 0;

        find_operator_dirs(repo, 5, dirs, &n, ARRAY_SIZE(dirs));
        if (n == 0) {
                fprintf(stderr,
                        "ascendopt init: %s holds no operator (a directory with op_host/ "
                        "and op_kernel/)\n",
                        repo);
                return EX_NOINPUT;
        }
        for (size_t i = 0; i < n; i++) {
                struct init_options o = *base;
                const char *rel = dirs[i] + strlen(repo);
                size_t skip;
                int r;
                while (*rel == '/')
                        rel++;
                o.opdir = dirs[i];
                r = init_one(&o, sim, true, line, sizeof(line));
                ok += r == EX_OK;
                /* the reason names the operator directory already: once is enough */
                skip = strncmp(line, dirs[i], strlen(dirs[i])) == 0 ? strlen(dirs[i]) : 0;
                while (line[skip] == ':' || line[skip] == ' ')
                        skip++;
                /* one line: a compiler's message keeps its first line */
                line[skip + strcspn(line + skip, "\n")] = '\0';
                printf("%s: %s\n", *rel ? rel : ".", line + skip);
                fflush(stdout);
                free(dirs[i]);
        }
        printf("%zu of %zu operators drafted\n", ok, n);
        return ok == n ? EX_OK : EX_DATAERR;
}

int cmd_init(int argc, char **argv)
{
        static const struct option options[] = {
                { "case", required_argument, NULL, 'c' },
                { "bench-shape", required_argument, NULL, 'b' },
                { "all", no_argument, NULL, 'A' },
                { "attr", required_argument, NULL, 'a' },
                { "variant", required_argument, NULL, 'v' },
                { "kernel", required_argument, NULL, 'k' },
                { "op", required_argument, NULL, 'o' },
                { "level", required_argument, NULL, 'l' },
                { "stdout", no_argument, NULL, 's' },
                { "force", no_argument, NULL, 'f' },
                { "no-check", no_argument, NULL, 'n' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        struct init_options o = { .variant = -1, .level = 1, .check = true };
        struct sim_session sim = { 0 };
        char line[4096];
        bool all = false;
        int opt, ret = EX_OK, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'c':
                        if (o.n_flag_cases == MAX_FLAG_CASES)
                                return cli_usage_error("init", "too many --case");
                        o.flag_cases[o.n_flag_cases++] = optarg;
                        break;
                case 'a':
                        if (o.n_flag_attrs == MAX_FLAG_ATTRS)
                                return cli_usage_error("init", "too many --attr");
                        o.flag_attrs[o.n_flag_attrs++] = optarg;
                        break;
                case 'v': {
                        uint64_t v;
                        if (cli_parse_u64(optarg, &v) < 0 || v >= MAX_VARIANTS)
                                return cli_usage_error("init", "--variant wants 0, 1, ...");
                        o.variant = (long)v;
                        break;
                }
                case 'k':
                        o.kernel = optarg;
                        break;
                case 'b':
                        o.bench_shape = optarg;
                        break;
                case 'A':
                        all = true;
                        break;
                case 'o':
                        o.op_type = optarg;
                        break;
                case 'l':
                        if (strlen(optarg) != 1 || optarg[0] < '1' || optarg[0] > '3')
                                return cli_usage_error("init", "--level wants 1, 2 or 3");
                        o.level = optarg[0] - '0';
                        break;
                case 's':
                        o.to_stdout = true;
                        break;
                case 'f':
                        o.force = true;
                        break;
                case 'n':
                        o.check = false;
                        break;
                case 'h':
                        init_usage(stdout);
                        return EX_OK;
                default:
                        init_usage(stderr);
                        return EX_USAGE;
                }
        }
        if (optind + 1 != argc) {
                init_usage(stderr);
                return EX_USAGE;
        }
        if (all && (o.n_flag_cases || o.n_flag_attrs || o.kernel || o.op_type || o.variant >= 0 ||
                    o.bench_shape || o.to_stdout))
                return cli_usage_error("init", "--all takes no per-operator flags (--case, "
                                               "--attr, --kernel, --op, --variant, "
                                               "--bench-shape, --stdout)");
        r = sim_session_open(&sim, line, sizeof(line));
        if (r < 0) {
                fprintf(stderr, "ascendopt init: %s\n", line);
                return EX_UNAVAILABLE;
        }
        if (all) {
                ret = init_all(&o, argv[optind], &sim);
        } else {
                o.opdir = argv[optind];
                ret = init_one(&o, &sim, false, line, sizeof(line));
        }
        sim_session_close(&sim);
        return ret;
}
