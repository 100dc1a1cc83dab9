/* SPDX-License-Identifier: MIT */
/*
 * The operator manifest, ascendopt.json: its schema (docs/manifest.md, "The operator
 * manifest"), the defaults derived from the operator's own files, and the
 * checks that tie the two together, each error naming the file and field.
 */
#include "manifest.h"

#include "common/common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST_MAX_BYTES (1u << 20)

static const struct schema name_string = { .kinds = SCHEMA_STRING,
                                           .non_empty = true,
                                           .max_length = 128 };
static const struct schema dtype_string = {
        .kinds = SCHEMA_STRING,
        .choices = (const char *const[]){ "float16", "float32", "bfloat16", "int8", "int16",
                                          "int32", "int64", "uint8", "uint16", "uint32", "bool",
                                          "uint64", "float64", "complex64", NULL },
};
static const struct schema boolean = { .kinds = SCHEMA_BOOL };
static const struct schema tensor = {
        .kinds = SCHEMA_OBJECT,
        .fields = (const struct schema_field[]){ { "name", &name_string, true },
                                                 { "dtype", &dtype_string, true },
                                                 /* a dynamic input: a list of tensors */
                                                 { "list", &boolean, false },
                                                 /* an output: the input of its name, in place */
                                                 { "ref", &boolean, false },
                                                 { NULL, NULL, false } },
};
static const struct schema tensor_list = {
        .kinds = SCHEMA_ARRAY, .items = &tensor, .min_items = 1, .max_items = NPU_MAX_TENSORS
};
static const struct schema attr_value = { .kinds = SCHEMA_NUMBER | SCHEMA_BOOL | SCHEMA_STRING |
                                                   SCHEMA_ARRAY };
static const struct schema attrs = { .kinds = SCHEMA_OBJECT,
                                     .values = &attr_value,
                                     .max_items = 64 };
/* null: an optional input the case leaves out (the kernel gets a null address) */
static const struct schema shape_value = { .kinds = SCHEMA_ARRAY | SCHEMA_NULL,
                                           .expected = "a list of dimensions, or null",
                                           .max_items = NPU_MAX_LIST_ITEMS };
static const struct schema shapes = { .kinds = SCHEMA_OBJECT,
                                      .values = &shape_value,
                                      .max_items = 2 * NPU_MAX_TENSORS };
/* A path relative to the operator directory (checked to stay inside it below). */
static const struct schema relative_path = { .kinds = SCHEMA_STRING,
                                             .non_empty = true,
                                             .max_length = 512 };
static const struct schema path_list = { .kinds = SCHEMA_ARRAY,
                                         .items = &relative_path,
                                         .min_items = 1,
                                         .max_items = NPU_MAX_LIST_ITEMS };
/* Where an example input's data comes from: a file gen_data.py writes (one per
 * list element), or values main.cpp gives inline. */
static const struct schema example_input = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "file", &relative_path, false },
                { "files", &path_list, false },
                { "values",
                  &(const struct schema){
                      .kinds = SCHEMA_ARRAY,
                      .items = &(const struct schema){ .kinds = SCHEMA_NUMBER | SCHEMA_BOOL },
                      .min_items = 1,
                      .max_items = 1 << 16 },
                  false },
                { NULL, NULL, false } },
};
static const struct schema example_output = { .kinds = SCHEMA_STRING | SCHEMA_ARRAY,
                                              .expected = "a file or a list of files",
                                              .items = &relative_path,
                                              .non_empty = true,
                                              .max_length = 512,
                                              .max_items = NPU_MAX_LIST_ITEMS };
/*
 * The case's golden (npu/golden.h): an msOpSt expectation function
 * ("function": "tests/st/test_x.py:calc_expect_func", called on the
 * simulator's inputs, "names" mapping tensors to the names the msOpSt file
 * gives them), or an example ("example": "examples/AclNNInvocationNaive",
 * whose gen_data.py writes the inputs the simulator reads and the expected
 * outputs).
 */
static const struct schema golden_schema = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "function", &relative_path, false },
                { "names",
                  &(const struct schema){ .kinds = SCHEMA_OBJECT,
                                          .values = &name_string,
                                          .max_items = 2 * NPU_MAX_TENSORS },
                  false },
                { "example", &relative_path, false },
                { "inputs",
                  &(const struct schema){ .kinds = SCHEMA_OBJECT,
                                          .values = &example_input,
                                          .max_items = NPU_MAX_TENSORS },
                  false },
                { "outputs",
                  &(const struct schema){ .kinds = SCHEMA_OBJECT,
                                          .values = &example_output,
                                          .max_items = NPU_MAX_TENSORS },
                  false },
                { NULL, NULL, false } },
};
static const struct schema finite_number = { .kinds = SCHEMA_NUMBER };
static const struct schema range = { .kinds = SCHEMA_ARRAY,
                                     .expected = "[lo, hi]",
                                     .items = &finite_number,
                                     .min_items = 2,
                                     .max_items = 2 };
static const struct schema input_ranges_schema = { .kinds = SCHEMA_OBJECT,
                                                   .values = &range,
                                                   .max_items = NPU_MAX_TENSORS };
static const struct schema case_schema = {
        .kinds = SCHEMA_OBJECT,
        .fields = (const struct schema_field[]){ { "name", &name_string, true },
                                                 { "shapes", &shapes, true },
                                                 { "attrs", &attrs, false },
                                                 { "bench", &boolean, false },
                                                 { "golden", &golden_schema, false },
                                                 /* msOpSt's value_range differs per case */
                                                 { "input_ranges", &input_ranges_schema, false },
                                                 { NULL, NULL, false } },
};
static const struct schema unit_fraction = {
        .kinds = SCHEMA_NUMBER, .has_min = true, .min = 0, .has_max = true, .max = 1
};
static const struct schema non_negative = { .kinds = SCHEMA_NUMBER, .has_min = true, .min = 0 };
static const struct schema tolerance = {
        .kinds = SCHEMA_OBJECT,
        .fields = (const struct schema_field[]){ { "atol", &non_negative, false },
                                                 { "rtol", &non_negative, false },
                                                 { "max_mismatch_fraction", &unit_fraction, false },
                                                 { NULL, NULL, false } },
};
static const struct schema string_list = { .kinds = SCHEMA_ARRAY,
                                           .items = &name_string,
                                           .max_items = 32 };
static const struct schema manifest_schema = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "name", &name_string, true },
                { "kernel",
                  &(const struct schema){
                      .kinds = SCHEMA_STRING, .non_empty = true, .max_length = 256 },
                  false },
                { "description", &(const struct schema){ .kinds = SCHEMA_STRING }, false },
                { "inputs", &tensor_list, true },
                { "outputs", &tensor_list, true },
                { "attrs", &attrs, false },
                { "cases",
                  &(const struct schema){ .kinds = SCHEMA_ARRAY,
                                          .items = &case_schema,
                                          .min_items = 1,
                                          .max_items = NPU_MAX_CASES },
                  true },
                { "input_ranges", &input_ranges_schema, false },
                { "tolerance",
                  &(const struct schema){
                      .kinds = SCHEMA_OBJECT, .values = &tolerance, .max_items = NPU_DTYPE_COUNT },
                  false },
                { "level",
                  &(const struct schema){ .kinds = SCHEMA_INTEGER,
                                          .has_min = true,
                                          .min = 1,
                                          .has_max = true,
                                          .max = 3 },
                  false },
                { "tags", &string_list, false },
                { "auto_sync", &boolean, false },
                { "platforms", &string_list, false },
                /* instructions a core may issue before the run counts as hung */
                { "max_instructions",
                  &(const struct schema){ .kinds = SCHEMA_INTEGER,
                                          .has_min = true,
                                          .min = 1000,
                                          .has_max = true,
                                          .max = 1e12 },
                  false },
                { NULL, NULL, false },
            },
};

/* Tolerances when the manifest gives none: a few ulps of the dtype. */
static const struct npu_tolerance default_tolerance[NPU_DTYPE_COUNT] = {
        [NPU_FLOAT16] = { 1e-3, 1e-3, 0 },  [NPU_FLOAT32] = { 1e-5, 1e-5, 0 },
        [NPU_BFLOAT16] = { 8e-3, 8e-3, 0 }, [NPU_INT8] = { 0, 0, 0 },
        [NPU_INT16] = { 0, 0, 0 },          [NPU_INT32] = { 0, 0, 0 },
        [NPU_INT64] = { 0, 0, 0 },          [NPU_UINT8] = { 0, 0, 0 },
        [NPU_UINT16] = { 0, 0, 0 },         [NPU_UINT32] = { 0, 0, 0 },
        [NPU_BOOL] = { 0, 0, 0 },           [NPU_UINT64] = { 0, 0, 0 },
        [NPU_FLOAT64] = { 1e-9, 1e-9, 0 },  [NPU_COMPLEX64] = { 1e-5, 1e-5, 0 },
};

char *npu_snake_case(const char *name)
{
        size_t len = strlen(name);
        char *out = malloc(2 * len + 1);
        size_t j = 0;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)name[i];
                if (isupper(c)) {
                        if (i > 0 && (islower((unsigned char)name[i - 1]) ||
                                      isdigit((unsigned char)name[i - 1]) ||
                                      (i + 1 < len && islower((unsigned char)name[i + 1]))))
                                out[j++] = '_';
                        out[j++] = (char)tolower(c);
                } else {
                        out[j++] = (char)c;
                }
        }
        out[j] = '\0';
        return out;
}

static bool is_regular_file(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Picks op_kernel's source: <entry>.cpp (the entry without template
 * arguments), else <dir name>.cpp, else the only .cpp there is.
 */
static int find_kernel_source(struct npu_manifest *m, char *err, size_t size)
{
        char path[PATH_MAX], base[256];
        const char *dirname = strrchr(m->dir, '/') ? strrchr(m->dir, '/') + 1 : m->dir;
        const char *tries[2];
        char *only = NULL;
        size_t found = 0;
        struct dirent *e;
        DIR *d;

        snprintf(base, sizeof(base), "%.*s", (int)strcspn(m->kernel, "< "), m->kernel);
        /* a function's name never holds one; a path would pick a source outside op_kernel/ */
        if (strchr(base, '/'))
                return format_error(err, size, -EINVAL,
                                    "%s: %s: \"%s\" is not a kernel entry (a function name, "
                                    "with template arguments if any, such as is_finite<1, 2>)",
                                    m->source,
                                    json_object_get(m->doc, "kernel") ? ".kernel" : ".name",
                                    json_object_get(m->doc, "kernel") ? m->kernel : m->name);
        tries[0] = base;
        tries[1] = dirname;
        for (size_t i = 0; i < 2; i++) {
                snprintf(path, sizeof(path), "%s/op_kernel/%s.cpp", m->dir, tries[i]);
                if (is_regular_file(path)) {
                        if (asprintf(&m->kernel_source, "op_kernel/%s.cpp", tries[i]) < 0)
                                return -ENOMEM;
                        return 0;
                }
        }
        snprintf(path, sizeof(path), "%s/op_kernel", m->dir);
        d = opendir(path);
        if (!d)
                return format_error(err, size, -EINVAL,
                                    "%s: the operator has no op_kernel/ directory", m->dir);
        while ((e = readdir(d))) {
                size_t len = strlen(e->d_name);
                if (len > 4 && strcmp(e->d_name + len - 4, ".cpp") == 0) {
                        found++;
                        free(only);
                        only = strdup(e->d_name);
                }
        }
        closedir(d);
        if (found != 1) {
                free(only);
                return format_error(err, size, -EINVAL,
                                    "%s: .kernel: cannot tell the kernel source: no "
                                    "op_kernel/%s.cpp and %zu .cpp files in op_kernel/",
                                    m->source, base, found);
        }
        if (!only || asprintf(&m->kernel_source, "op_kernel/%s", only) < 0) {
                free(only);
                return -ENOMEM;
        }
        free(only);
        return 0;
}

static int load_tensors(const json_t *list, struct npu_tensor **ret, size_t *ret_n)
{
        size_t n = json_array_size(list);
        struct npu_tensor *t = calloc(n, sizeof(*t));

        if (!t)
                return -ENOMEM;
        *ret = t;
        *ret_n = n;
        for (size_t i = 0; i < n; i++) {
                const json_t *obj = json_array_get(list, i);
                t[i].name = strdup(json_string_value(json_object_get(obj, "name")));
                if (!t[i].name)
                        return -ENOMEM;
                npu_dtype_from_name(json_string_value(json_object_get(obj, "dtype")), &t[i].dtype);
                t[i].is_list = json_is_true(json_object_get(obj, "list"));
                t[i].ref = json_is_true(json_object_get(obj, "ref"));
        }
        return 0;
}

static const struct npu_tensor *find_input(const struct npu_manifest *m, const char *name)
{
        for (size_t i = 0; i < m->n_inputs; i++)
                if (strcmp(m->inputs[i].name, name) == 0)
                        return &m->inputs[i];
        return NULL;
}

static const struct npu_tensor *find_output(const struct npu_manifest *m, const char *name)
{
        for (size_t i = 0; i < m->n_outputs; i++)
                if (strcmp(m->outputs[i].name, name) == 0)
                        return &m->outputs[i];
        return NULL;
}

/*
 * Tensor names are unique, but for a ref output, which must name an input
 * of its dtype and kind (it is that input, updated in place).
 */
static int check_tensor_names(const struct npu_manifest *m, char *err, size_t size)
{
        for (size_t i = 0; i < m->n_inputs + m->n_outputs; i++) {
                bool output = i >= m->n_inputs;
                const struct npu_tensor *t = output ? &m->outputs[i - m->n_inputs] : &m->inputs[i];
                const struct npu_tensor *in = output ? find_input(m, t->name) : NULL;
                for (size_t j = 0; j < i; j++) {
                        const struct npu_tensor *o =
                            j < m->n_inputs ? &m->inputs[j] : &m->outputs[j - m->n_inputs];
                        if (strcmp(t->name, o->name) != 0 || (o == in && t->ref))
                                continue;
                        return format_error(
                            err, size, -EINVAL,
                            "%s: tensor name \"%s\" is used twice among inputs and outputs%s",
                            m->source, t->name,
                            o == in ? "; an output that is the input updated in place (CANN's "
                                      "ref tensor) says \"ref\": true"
                                    : "");
                }
                if (t->ref && !output)
                        return format_error(err, size, -EINVAL,
                                            "%s: .inputs[%zu].ref: only an output is a ref "
                                            "(the input of its name, updated in place)",
                                            m->source, i);
                if (t->ref && !in)
                        return format_error(err, size, -EINVAL,
                                            "%s: .outputs[%zu].ref: no input is named \"%s\"; a "
                                            "ref output is the input of its name, updated in "
                                            "place",
                                            m->source, i - m->n_inputs, t->name);
                if (t->ref && (in->dtype != t->dtype || in->is_list != t->is_list))
                        return format_error(err, size, -EINVAL,
                                            "%s: .outputs[%zu]: the ref output %s must have the "
                                            "dtype%s of input %s (%s%s)",
                                            m->source, i - m->n_inputs, t->name,
                                            in->is_list != t->is_list ? " and kind" : "", t->name,
                                            npu_dtype_name(in->dtype),
                                            in->is_list ? ", a list" : "");
        }
        return 0;
}

static const struct npu_tensor *find_tensor(const struct npu_manifest *m, const char *name)
{
        for (size_t i = 0; i < m->n_inputs; i++)
                if (strcmp(m->inputs[i].name, name) == 0)
                        return &m->inputs[i];
        for (size_t i = 0; i < m->n_outputs; i++)
                if (strcmp(m->outputs[i].name, name) == 0)
                        return &m->outputs[i];
        return NULL;
}

/* Checks one shape: dims, or for a dynamic list a list of dims; its elements in *ret_elements. */
static int check_shape(const struct npu_manifest *m, size_t ci, const char *tensor,
                       const json_t *shape, unsigned long long *ret_elements, char *err,
                       size_t size)
{
        bool is_list = json_array_size(shape) > 0 && json_is_array(json_array_get(shape, 0));
        size_t n_items = is_list ? json_array_size(shape) : 1;
        unsigned long long total = 0;

        for (size_t k = 0; k < n_items; k++) {
                const json_t *dims = is_list ? json_array_get(shape, k) : shape;
                unsigned long long elements = 1;
                size_t rank = json_array_size(dims);

                if (!json_is_array(dims) || rank > NPU_MAX_DIMS)
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].shapes.%s: expected a list of at "
                                            "most %d dimensions, or a list of such lists",
                                            m->source, ci, tensor, NPU_MAX_DIMS);
                for (size_t d = 0; d < rank; d++) {
                        const json_t *dim = json_array_get(dims, d);
                        if (!json_is_integer(dim) || json_integer_value(dim) < 1 ||
                            json_integer_value(dim) > (json_int_t)NPU_MAX_CASE_ELEMENTS)
                                return format_error(err, size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: dimension "
                                                    "%zu must be a positive integer",
                                                    m->source, ci, tensor, d);
                        elements *= (unsigned long long)json_integer_value(dim);
                        if (elements > NPU_MAX_CASE_ELEMENTS)
                                break;
                }
                total += elements;
        }
        if (total > NPU_MAX_CASE_ELEMENTS)
                return format_error(err, size, -EINVAL,
                                    "%s: .cases[%zu].shapes.%s: more than %llu elements", m->source,
                                    ci, tensor, NPU_MAX_CASE_ELEMENTS);
        *ret_elements = total;
        return 0;
}

/* Whether rel stays inside the operator directory (no "..", not absolute). */
static bool path_inside(const char *rel)
{
        if (rel[0] == '/')
                return false;
        for (const char *p = rel; *p;) {
                size_t len = strcspn(p, "/");
                if (len == 2 && p[0] == '.' && p[1] == '.')
                        return false;
                p += len + (p[len] == '/');
        }
        return true;
}

static int check_golden_path(const struct npu_manifest *m, size_t ci, const char *field,
                             const char *rel, bool must_exist, char *err, size_t size)
{
        char path[PATH_MAX];

        if (!path_inside(rel))
                return format_error(err, size, -EINVAL,
                                    "%s: .cases[%zu].golden.%s: \"%s\" must be a path inside "
                                    "the operator directory",
                                    m->source, ci, field, rel);
        if (must_exist &&
            (format_path(path, sizeof(path), "%s/%s", m->dir, rel) < 0 || access(path, R_OK) < 0))
                return format_error(err, size, -EINVAL,
                                    "%s: .cases[%zu].golden.%s: %s does not exist", m->source, ci,
                                    field, rel);
        return 0;
}

static int check_golden(const struct npu_manifest *m, size_t ci, const json_t *golden, char *err,
                        size_t size)
{
        const char *function = json_string_value(json_object_get(golden, "function"));
        const char *example = json_string_value(json_object_get(golden, "example"));
        const char *key;
        json_t *v;
        char file[PATH_MAX];
        int r = 0;

        if (!function == !example)
                return format_error(err, size, -EINVAL,
                                    "%s: .cases[%zu].golden: give either \"function\" (an "
                                    "msOpSt expectation function) or \"example\" (a "
                                    "directory with gen_data.py)",
                                    m->source, ci);
        if (function) {
                const char *colon = strrchr(function, ':');
                if (!colon || colon == function || !colon[1] ||
                    (size_t)(colon - function) >= sizeof(file))
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden.function: give it as "
                                            "FILE.py:FUNCTION",
                                            m->source, ci);
                snprintf(file, sizeof(file), "%.*s", (int)(colon - function), function);
                r = check_golden_path(m, ci, "function", file, true, err, size);
                if (r < 0)
                        return r;
                if (json_object_get(golden, "inputs") || json_object_get(golden, "outputs"))
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden: \"inputs\" and "
                                            "\"outputs\" belong to an \"example\" golden",
                                            m->source, ci);
        } else {
                if (format_path(file, sizeof(file), "%s/gen_data.py", example) < 0)
                        return -ENAMETOOLONG;
                r = check_golden_path(m, ci, "example", file, true, err, size);
                if (r < 0)
                        return r;
                if (json_object_get(golden, "names"))
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden.names belongs to a "
                                            "\"function\" golden",
                                            m->source, ci);
        }
        json_object_foreach(json_object_get(golden, "names"), key, v)
        {
                if (!find_tensor(m, key) && !json_object_get(m->cases[ci].attrs, key))
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden.names.%s: no input, "
                                            "output or attribute is named \"%s\"",
                                            m->source, ci, key, key);
        }
        json_object_foreach(json_object_get(golden, "inputs"), key, v)
        {
                const struct npu_tensor *t = find_input(m, key);
                size_t given = (json_object_get(v, "file") != NULL) +
                               (json_object_get(v, "files") != NULL) +
                               (json_object_get(v, "values") != NULL);
                size_t i;
                json_t *f;
                if (!t)
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden.inputs.%s: no input is "
                                            "named \"%s\"",
                                            m->source, ci, key, key);
                if (given != 1 || (json_object_get(v, "files") && !t->is_list))
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden.inputs.%s: give one of "
                                            "\"file\", \"files\" (a list input) or "
                                            "\"values\"",
                                            m->source, ci, key);
                if (json_object_get(v, "file") &&
                    (r = check_golden_path(m, ci, "inputs",
                                           json_string_value(json_object_get(v, "file")), false,
                                           err, size)) < 0)
                        return r;
                json_array_foreach(json_object_get(v, "files"), i, f)
                {
                        r = check_golden_path(m, ci, "inputs", json_string_value(f), false, err,
                                              size);
                        if (r < 0)
                                return r;
                }
        }
        json_object_foreach(json_object_get(golden, "outputs"), key, v)
        {
                const struct npu_tensor *t = find_output(m, key);
                size_t i;
                json_t *f;
                if (!t)
                        return format_error(err, size, -EINVAL,
                                            "%s: .cases[%zu].golden.outputs.%s: no output is "
                                            "named \"%s\"",
                                            m->source, ci, key, key);
                if (json_is_string(v))
                        r = check_golden_path(m, ci, "outputs", json_string_value(v), false, err,
                                              size);
                else
                        json_array_foreach(v, i, f)
                        {
                                r = check_golden_path(m, ci, "outputs", json_string_value(f), false,
                                                      err, size);
                                if (r < 0)
                                        break;
                        }
                if (r < 0)
                        return r;
        }
        /* "outputs": {} on purpose: the example gives the inputs, nothing is compared */
        if (example && !json_is_object(json_object_get(golden, "outputs")))
                return format_error(err, size, -EINVAL,
                                    "%s: .cases[%zu].golden.outputs: name the file gen_data.py "
                                    "writes for at least one output (or give {} to run on the "
                                    "example's inputs and compare nothing)",
                                    m->source, ci);
        return 0;
}

/* ranges: the manifest's (ci (size_t)-1) or case ci's. */
static int check_ranges(struct npu_manifest *m, const json_t *ranges, size_t ci, char *err,
                        size_t size)
{
        char where[64] = "";
        const char *key;
        json_t *value;

        if (ci != (size_t)-1)
                snprintf(where, sizeof(where), ".cases[%zu]", ci);
        json_object_foreach((json_t *)ranges, key, value)
        {
                bool known = false;
                for (size_t i = 0; i < m->n_inputs; i++)
                        known |= strcmp(m->inputs[i].name, key) == 0;
                if (!known)
                        return format_error(err, size, -EINVAL,
                                            "%s: %s.input_ranges.%s: no input is named \"%s\"",
                                            m->source, where, key, key);
                if (json_number_value(json_array_get(value, 0)) >
                    json_number_value(json_array_get(value, 1)))
                        return format_error(err, size, -EINVAL,
                                            "%s: %s.input_ranges.%s: lo is greater than hi",
                                            m->source, where, key);
        }
        return 0;
}

static int load_cases(struct npu_manifest *m, char *err, size_t size)
{
        const json_t *list = json_object_get(m->doc, "cases");
        const json_t *base_attrs = json_object_get(m->doc, "attrs");
        size_t n = json_array_size(list);

        m->cases = calloc(n, sizeof(*m->cases));
        if (!m->cases)
                return -ENOMEM;
        m->n_cases = n;
        for (size_t i = 0; i < n; i++) {
                const json_t *obj = json_array_get(list, i);
                const json_t *shp = json_object_get(obj, "shapes");
                struct npu_case *c = &m->cases[i];
                const char *key;
                json_t *value;
                int r;

                c->name = strdup(json_string_value(json_object_get(obj, "name")));
                c->bench = json_is_true(json_object_get(obj, "bench"));
                c->shapes = json_deep_copy(shp);
                c->attrs = base_attrs ? json_deep_copy(base_attrs) : json_object();
                if (!c->name || !c->shapes || !c->attrs)
                        return -ENOMEM;
                if (json_object_get(obj, "attrs") &&
                    json_object_update(c->attrs, json_object_get(obj, "attrs")) < 0)
                        return -ENOMEM;
                for (size_t j = 0; j < i; j++)
                        if (strcmp(m->cases[j].name, c->name) == 0)
                                return format_error(err, size, -EINVAL,
                                                    "%s: .cases[%zu].name: \"%s\" is already "
                                                    "the name of .cases[%zu]",
                                                    m->source, i, c->name, j);
                unsigned long long case_bytes = 0;
                json_object_foreach((json_t *)shp, key, value)
                {
                        const struct npu_tensor *out = find_output(m, key);
                        unsigned long long elements = 0;
                        if (!find_tensor(m, key))
                                return format_error(err, size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: no input or "
                                                    "output is named \"%s\"",
                                                    m->source, i, key, key);
                        if (json_is_null(value) && !find_input(m, key))
                                return format_error(err, size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: null (absent) is "
                                                    "for an optional input only",
                                                    m->source, i, key);
                        if (json_is_null(value) && out && out->ref)
                                return format_error(err, size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: an input the "
                                                    "operator updates in place (a ref output) "
                                                    "cannot be absent",
                                                    m->source, i, key);
                        if (json_is_null(value))
                                continue;
                        r = check_shape(m, i, key, value, &elements, err, size);
                        if (r < 0)
                                return r;
                        case_bytes += elements * npu_dtype_size(find_tensor(m, key)->dtype);
                        if (case_bytes > NPU_MAX_CASE_BYTES)
                                return format_error(
                                    err, size, -EINVAL,
                                    "%s: .cases[%zu].shapes: its tensors hold more than %llu GiB "
                                    "in all (the limit of one case; reached at %s)",
                                    m->source, i, NPU_MAX_CASE_BYTES >> 30, key);
                }
                for (size_t t = 0; t < m->n_inputs; t++)
                        if (!json_object_get(shp, m->inputs[t].name))
                                return format_error(err, size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: missing shape "
                                                    "for input \"%s\" (null if the case leaves "
                                                    "an optional input out)",
                                                    m->source, i, m->inputs[t].name,
                                                    m->inputs[t].name);
                c->input_ranges = json_deep_copy(m->input_ranges);
                if (!c->input_ranges ||
                    (json_object_get(obj, "input_ranges") &&
                     json_object_update(c->input_ranges, json_object_get(obj, "input_ranges")) < 0))
                        return -ENOMEM;
                r = check_ranges(m, json_object_get(obj, "input_ranges"), i, err, size);
                if (r < 0)
                        return r;
                c->golden = json_object_get(obj, "golden");
                if (c->golden) {
                        json_incref(c->golden);
                        r = check_golden(m, i, c->golden, err, size);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int load_tolerances(struct npu_manifest *m, char *err, size_t size)
{
        const json_t *tol = json_object_get(m->doc, "tolerance");
        const char *key;
        json_t *value;

        memcpy(m->tolerance, default_tolerance, sizeof(m->tolerance));
        json_object_foreach((json_t *)tol, key, value)
        {
                enum npu_dtype dtype;
                const json_t *v;

                if (npu_dtype_from_name(key, &dtype) < 0)
                        return format_error(err, size, -EINVAL,
                                            "%s: .tolerance.%s: not a dtype name such as "
                                            "float16 or float32",
                                            m->source, key);
                if ((v = json_object_get(value, "atol")))
                        m->tolerance[dtype].atol = json_number_value(v);
                if ((v = json_object_get(value, "rtol")))
                        m->tolerance[dtype].rtol = json_number_value(v);
                if ((v = json_object_get(value, "max_mismatch_fraction")))
                        m->tolerance[dtype].max_mismatch_fraction = json_number_value(v);
        }
        return 0;
}

static int read_manifest_text(const char *path, char **ret_text, size_t *ret_len, char *err,
                              size_t size)
{
        int r = read_text_file(path, MANIFEST_MAX_BYTES, ret_text, ret_len);

        if (r == -ENOENT)
                snprintf(err, size,
                         "%s: no manifest; draft one with 'ascendopt init' (docs/manifest.md)",
                         path);
        else if (r == -EFBIG)
                snprintf(err, size, "%s: not a manifest (larger than %u bytes)", path,
                         MANIFEST_MAX_BYTES);
        else if (r < 0)
                snprintf(err, size, "%s: cannot open: %s", path, strerror(-r));
        return r == -EFBIG ? -EINVAL : r;
}

/* Fills m from its parsed document m->doc and checks it against the operator's files. */
static int manifest_build(struct npu_manifest *m, char *err, size_t err_size)
{
        const char *path = m->source;
        const json_t *v;
        int r;

        r = schema_validate(m->doc, &manifest_schema, path, err, err_size);
        if (r < 0)
                return r;
        m->name = strdup(json_string_value(json_object_get(m->doc, "name")));
        v = json_object_get(m->doc, "kernel");
        m->kernel = v ? strdup(json_string_value(v)) : npu_snake_case(m->name);
        m->level = (int)json_integer_value(json_object_get(m->doc, "level"));
        m->max_instructions =
            (uint64_t)json_integer_value(json_object_get(m->doc, "max_instructions"));
        v = json_object_get(m->doc, "auto_sync");
        m->auto_sync = v ? json_is_true(v) : true;
        m->input_ranges = json_object_get(m->doc, "input_ranges");
        m->input_ranges = m->input_ranges ? json_incref(m->input_ranges) : json_object();
        if (!m->name || !m->kernel || !m->input_ranges)
                return -ENOMEM;
        r = load_tensors(json_object_get(m->doc, "inputs"), &m->inputs, &m->n_inputs);
        if (r == 0)
                r = load_tensors(json_object_get(m->doc, "outputs"), &m->outputs, &m->n_outputs);
        if (r < 0)
                return r;
        r = check_tensor_names(m, err, err_size);
        if (r < 0)
                return r;
        r = check_ranges(m, m->input_ranges, (size_t)-1, err, err_size);
        if (r == 0)
                r = load_tolerances(m, err, err_size);
        if (r == 0)
                r = load_cases(m, err, err_size);
        if (r == 0)
                r = find_kernel_source(m, err, err_size);
        if (r < 0)
                return r;
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s/op_host", m->dir);
        if (access(dir, R_OK | X_OK) < 0)
                return format_error(err, err_size, -EINVAL,
                                    "%s: the operator has no op_host/ directory", m->dir);
        return 0;
}

/* A manifest with its directory resolved and its source named; the document comes later. */
static int manifest_new(const char *opdir, const char *source_name, struct npu_manifest **ret,
                        char *err, size_t err_size)
{
        struct npu_manifest *m = calloc(1, sizeof(*m));
        char path[PATH_MAX];

        if (!m)
                return -ENOMEM;
        m->dir = realpath(opdir, NULL);
        if (!m->dir) {
                int r = -errno;
                snprintf(err, err_size, "%s: not an operator directory: %s", opdir,
                         strerror(errno));
                npu_manifest_free(m);
                return r;
        }
        snprintf(path, sizeof(path), "%s/%s", m->dir, source_name);
        m->source = strdup(path);
        if (!m->source) {
                npu_manifest_free(m);
                return -ENOMEM;
        }
        *ret = m;
        return 0;
}

int npu_manifest_load(const char *opdir, struct npu_manifest **ret_manifest, char *err,
                      size_t err_size)
{
        char *dir = realpath(opdir, NULL), path[PATH_MAX], *text = NULL;
        json_t *doc = NULL;
        size_t len = 0;
        int r;

        if (!dir) {
                r = -errno;
                snprintf(err, err_size, "%s: not an operator directory: %s", opdir, strerror(-r));
                return r;
        }
        r = format_path(path, sizeof(path), "%s/ascendopt.json", dir);
        free(dir);
        if (r == 0)
                r = read_manifest_text(path, &text, &len, err, err_size);
        if (r == 0)
                r = json_parse_text(text, len, path, &doc, err, err_size);
        /* the same checks as a draft that is not on disk yet */
        if (r == 0)
                r = npu_manifest_from_json(opdir, doc, "ascendopt.json", ret_manifest, err,
                                           err_size);
        else if (r == -ENOMEM || r == -ENAMETOOLONG)
                snprintf(err, err_size, "%s: %s", opdir, strerror(-r));
        free(text);
        json_decref(doc);
        return r;
}

int npu_manifest_from_json(const char *opdir, const json_t *doc, const char *source_name,
                           struct npu_manifest **ret_manifest, char *err, size_t err_size)
{
        struct npu_manifest *m = NULL;
        int r;

        r = manifest_new(opdir, source_name, &m, err, err_size);
        if (r < 0)
                goto out;
        m->doc = json_deep_copy(doc);
        if (!m->doc) {
                r = -ENOMEM;
                goto out;
        }
        r = manifest_build(m, err, err_size);
        if (r < 0)
                goto out;
        *ret_manifest = m;
        m = NULL;
out:
        if (r == -ENOMEM && err && err_size)
                snprintf(err, err_size, "%s: out of memory", opdir);
        npu_manifest_free(m);
        return r;
}

const struct npu_tolerance *npu_default_tolerance(enum npu_dtype dtype)
{
        return dtype < NPU_DTYPE_COUNT ? &default_tolerance[dtype] : NULL;
}

static void free_tensors(struct npu_tensor *t, size_t n)
{
        for (size_t i = 0; t && i < n; i++)
                free(t[i].name);
        free(t);
}

struct npu_manifest *npu_manifest_free(struct npu_manifest *m)
{
        if (!m)
                return NULL;
        for (size_t i = 0; m->cases && i < m->n_cases; i++) {
                free(m->cases[i].name);
                json_decref(m->cases[i].shapes);
                json_decref(m->cases[i].attrs);
                json_decref(m->cases[i].golden);
                json_decref(m->cases[i].input_ranges);
        }
        free(m->cases);
        free_tensors(m->inputs, m->n_inputs);
        free_tensors(m->outputs, m->n_outputs);
        json_decref(m->input_ranges);
        json_decref(m->doc);
        free(m->dir);
        free(m->source);
        free(m->name);
        free(m->kernel);
        free(m->kernel_source);
        free(m);
        return NULL;
}
