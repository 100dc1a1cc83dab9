/* SPDX-License-Identifier: MIT */
/*
 * The aclnn harness generator: from the manifest, a C++ main.cpp that runs
 * one shape case of the operator through aclnn<Op>GetWorkspaceSize and
 * aclnn<Op> on the inputs the evaluator wrote, and a CMakeLists.txt that
 * builds it against the toolkit and the candidate's installed package.
 * Written from the documented AscendCL/aclnn usage (docs/real-npus.md).
 * UNTESTED ON HARDWARE: the generated code has only been compiled against
 * our own stub declarations (tests/fixtures/ascend/stub-include), never
 * against CANN's headers, and never run on an NPU.
 */
#include "ascend-harness.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ATTRS     64
#define MAX_LIST_ATTR 64

char **ascend_strv_free(char **strv)
{
        for (char **s = strv; s && *s; s++)
                free(*s);
        free(strv);
        return NULL;
}

/* ------------------------------------------------------------ OpDef attrs */

static int strv_add_unique(char ***strv, size_t *n, const char *s, size_t len)
{
        char **grown;

        for (size_t i = 0; i < *n; i++)
                if (strlen((*strv)[i]) == len && strncmp((*strv)[i], s, len) == 0)
                        return 0;
        if (*n >= MAX_ATTRS)
                return -E2BIG;
        grown = realloc(*strv, (*n + 2) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        *strv = grown;
        grown[*n] = strndup(s, len);
        if (!grown[*n])
                return -ENOMEM;
        grown[++*n] = NULL;
        return 0;
}

static int compare_strings(const void *a, const void *b)
{
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ascend_opdef_attr_order(const struct npu_manifest *m, char ***ret_names)
{
        char dir[PATH_MAX], *files[64];
        char **names = calloc(1, sizeof(*names));
        size_t n_files = 0, n = 0;
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (!names)
                return -ENOMEM;
        r = format_path(dir, sizeof(dir), "%s/op_host", m->dir);
        d = r == 0 ? opendir(dir) : NULL;
        while (d && (e = readdir(d)) && n_files < ARRAY_SIZE(files)) {
                size_t len = strlen(e->d_name);
                if (len > 4 && strcmp(e->d_name + len - 4, ".cpp") == 0)
                        files[n_files++] = strdup(e->d_name);
        }
        if (d)
                closedir(d);
        for (size_t i = 0; i < n_files; i++)
                if (!files[i])
                        r = -ENOMEM;
        if (r == 0)
                qsort(files, n_files, sizeof(*files), compare_strings);
        for (size_t i = 0; r == 0 && i < n_files; i++) {
                char path[PATH_MAX], *text = NULL;
                size_t size = 0;
                FILE *f;

                r = format_path(path, sizeof(path), "%s/%s", dir, files[i]);
                if (r < 0)
                        break;
                f = fopen(path, "re");
                if (!f)
                        continue;
                text = malloc(1u << 20);
                if (text) {
                        size = fread(text, 1, (1u << 20) - 1, f);
                        text[size] = '\0';
                }
                fclose(f);
                if (!text) {
                        r = -ENOMEM;
                        break;
                }
                /* `Attr("name")` as in this->Attr("alpha").AttrType(OPTIONAL).Float(1.0) */
                for (const char *p = text; r == 0 && (p = strstr(p, "Attr(\"")); p += 6) {
                        const char *start = p + 6, *end = strchr(start, '"');
                        if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
                                continue; /* GetAttr(" and friends */
                        if (end && end > start && end - start < 128)
                                r = strv_add_unique(&names, &n, start, (size_t)(end - start));
                }
                free(text);
        }
        for (size_t i = 0; i < n_files; i++)
                free(files[i]);
        if (r < 0) {
                ascend_strv_free(names);
                return r;
        }
        *ret_names = names;
        return 0;
}

/* ------------------------------------------------------------ generation */

enum attr_kind {
        ATTR_INT,
        ATTR_FLOAT,
        ATTR_BOOL,
        ATTR_STRING,
        ATTR_INT_LIST,
        ATTR_FLOAT_LIST,
        ATTR_BOOL_LIST,
};

struct attr {
        const char *name;
        char ident[160]; /* a C++ identifier for it */
        enum attr_kind kind;
};

static const char *acl_dtype(enum npu_dtype dtype)
{
        static const char *const names[NPU_DTYPE_COUNT] = {
                [NPU_FLOAT16] = "ACL_FLOAT16", [NPU_FLOAT32] = "ACL_FLOAT",
                [NPU_BFLOAT16] = "ACL_BF16",   [NPU_INT8] = "ACL_INT8",
                [NPU_INT16] = "ACL_INT16",     [NPU_INT32] = "ACL_INT32",
                [NPU_INT64] = "ACL_INT64",     [NPU_UINT8] = "ACL_UINT8",
                [NPU_UINT16] = "ACL_UINT16",   [NPU_UINT32] = "ACL_UINT32",
                [NPU_BOOL] = "ACL_BOOL",       [NPU_UINT64] = "ACL_UINT64",
                [NPU_FLOAT64] = "ACL_DOUBLE",  [NPU_COMPLEX64] = "ACL_COMPLEX64",
        };

        return dtype < NPU_DTYPE_COUNT ? names[dtype] : "ACL_DT_UNDEFINED";
}

static void identifier(char *buf, size_t size, const char *prefix, const char *name)
{
        size_t j = (size_t)snprintf(buf, size, "%s", prefix);

        for (; *name && j + 1 < size; name++)
                buf[j++] = isalnum((unsigned char)*name) ? *name : '_';
        buf[j] = '\0';
}

static int attr_kind_of(const json_t *v, enum attr_kind *ret)
{
        if (json_is_boolean(v))
                *ret = ATTR_BOOL;
        else if (json_is_integer(v))
                *ret = ATTR_INT;
        else if (json_is_real(v))
                *ret = ATTR_FLOAT;
        else if (json_is_string(v))
                *ret = ATTR_STRING;
        else if (json_is_array(v)) {
                size_t i;
                const json_t *item;
                bool any_real = false, any_bool = false, any_int = false;
                if (json_array_size(v) > MAX_LIST_ATTR)
                        return -E2BIG;
                json_array_foreach(v, i, item)
                {
                        if (json_is_real(item))
                                any_real = true;
                        else if (json_is_integer(item))
                                any_int = true;
                        else if (json_is_boolean(item))
                                any_bool = true;
                        else
                                return -ENOTSUP; /* strings or nested lists */
                }
                if (any_bool && (any_real || any_int))
                        return -ENOTSUP;
                *ret = any_bool ? ATTR_BOOL_LIST : any_real ? ATTR_FLOAT_LIST : ATTR_INT_LIST;
        } else
                return -ENOTSUP;
        return 0;
}

/* A C++ string literal. */
static void put_string_literal(FILE *f, const char *s)
{
        fputc('"', f);
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '"' || c == '\\')
                        fprintf(f, "\\%c", c);
                else if (c < 0x20 || c >= 0x7f)
                        fprintf(f, "\\%03o", c);
                else
                        fputc(c, f);
        }
        fputc('"', f);
}

static void put_attr_value(FILE *f, const struct attr *a, const json_t *v)
{
        size_t i;
        const json_t *item;

        switch (a->kind) {
        case ATTR_INT:
                fprintf(f, "%" PRId64, (int64_t)json_integer_value(v));
                break;
        case ATTR_FLOAT:
                fprintf(f, "%.17g", json_number_value(v));
                break;
        case ATTR_BOOL:
                fputs(json_is_true(v) ? "true" : "false", f);
                break;
        case ATTR_STRING:
                put_string_literal(f, json_string_value(v));
                break;
        case ATTR_INT_LIST:
        case ATTR_FLOAT_LIST:
        case ATTR_BOOL_LIST:
                fputs("{", f);
                json_array_foreach(v, i, item)
                {
                        fputs(i ? ", " : "", f);
                        if (a->kind == ATTR_BOOL_LIST)
                                fputs(json_is_true(item) ? "true" : "false", f);
                        else if (a->kind == ATTR_INT_LIST)
                                fprintf(f, "%" PRId64, (int64_t)json_integer_value(item));
                        else
                                fprintf(f, "%.9gf", json_number_value(item));
                }
                fprintf(f, "}, %zu", json_array_size(v));
                break;
        }
}

/* How ascend_aclnn_declared names what the harness passes for an attribute. */
static const char *attr_kind_words(enum attr_kind kind)
{
        static const char *const words[] = {
                [ATTR_INT] = "an integer",
                [ATTR_FLOAT] = "a float",
                [ATTR_BOOL] = "a boolean",
                [ATTR_STRING] = "a string",
                [ATTR_INT_LIST] = "a list of integers",
                [ATTR_FLOAT_LIST] = "a list of floats",
                [ATTR_BOOL_LIST] = "a list of booleans",
        };

        return words[kind];
}

static const char *attr_field_type(enum attr_kind kind)
{
        switch (kind) {
        case ATTR_INT:
                return "int64_t";
        case ATTR_FLOAT:
                /* UNTESTED ON HARDWARE: generated aclnn headers take Float attrs as
                 * double or float; either converts from double implicitly */
                return "double";
        case ATTR_BOOL:
                return "bool";
        case ATTR_STRING:
                return "const char *";
        case ATTR_INT_LIST:
                return "int64_t";
        case ATTR_FLOAT_LIST:
                return "float";
        case ATTR_BOOL_LIST:
                return "bool";
        }
        return "int";
}

static bool is_list(enum attr_kind kind)
{
        return kind == ATTR_INT_LIST || kind == ATTR_FLOAT_LIST || kind == ATTR_BOOL_LIST;
}

/* The shape of tensor t in case c: its own, else (outputs) the first input's. */
static const json_t *tensor_shape(const struct npu_manifest *m, const struct npu_case *c, size_t t)
{
        const char *name = t < m->n_inputs ? m->inputs[t].name : m->outputs[t - m->n_inputs].name;
        const json_t *shape = json_object_get(c->shapes, name);

        return shape ? shape : json_object_get(c->shapes, m->inputs[0].name);
}

static int check_cases(const struct npu_manifest *m, char *err, size_t err_size)
{
        size_t n_tensors = m->n_inputs + m->n_outputs;

        /* aclnn passes a ref tensor once and the harness would have to restore it
         * before every timed launch; neither is generated yet */
        for (size_t t = 0; t < m->n_outputs; t++)
                if (m->outputs[t].ref)
                        return format_error(err, err_size, -ENOTSUP,
                                            "%s: .outputs[%zu]: %s is a ref output (the input "
                                            "updated in place); the ascend harness does not "
                                            "support these yet",
                                            m->source, t, m->outputs[t].name);
        for (size_t ci = 0; ci < m->n_cases; ci++)
                for (size_t t = 0; t < m->n_inputs; t++)
                        if (json_is_null(json_object_get(m->cases[ci].shapes, m->inputs[t].name)))
                                return format_error(err, err_size, -ENOTSUP,
                                                    "%s: .cases[%zu].shapes.%s: an absent "
                                                    "optional input; the ascend harness does not "
                                                    "support these yet",
                                                    m->source, ci, m->inputs[t].name);

        for (size_t ci = 0; ci < m->n_cases; ci++)
                for (size_t t = 0; t < n_tensors; t++) {
                        const json_t *shape = tensor_shape(m, &m->cases[ci], t);
                        const char *name =
                            t < m->n_inputs ? m->inputs[t].name : m->outputs[t - m->n_inputs].name;
                        if (!json_is_array(shape))
                                return format_error(err, err_size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: missing", m->source,
                                                    ci, name);
                        if (json_is_array(json_array_get(shape, 0)))
                                return format_error(err, err_size, -ENOTSUP,
                                                    "%s: .cases[%zu].shapes.%s: a dynamic list "
                                                    "(aclTensorList) input; the ascend harness "
                                                    "does not support these yet",
                                                    m->source, ci, name);
                        if (json_array_size(shape) > NPU_MAX_DIMS)
                                return format_error(err, err_size, -EINVAL,
                                                    "%s: .cases[%zu].shapes.%s: more than %d "
                                                    "dimensions",
                                                    m->source, ci, name, NPU_MAX_DIMS);
                }
        return 0;
}

/* Resolves the attribute list, its order and each one's kind across cases. */
static int resolve_attrs(const struct npu_manifest *m, const char *const *order, struct attr *attrs,
                         size_t *ret_n, char *err, size_t err_size)
{
        const json_t *base = json_object_get(m->doc, "attrs");
        const char *names[MAX_ATTRS];
        size_t n = 0;
        const char *key;
        json_t *value;

        if (order) {
                for (const char *const *o = order; *o; o++) {
                        if (n == MAX_ATTRS)
                                return format_error(err, err_size, -E2BIG,
                                                    "%s: more than %d attributes", m->source,
                                                    MAX_ATTRS);
                        names[n++] = *o;
                }
        } else {
                json_object_foreach((json_t *)base, key, value)
                {
                        if (n == MAX_ATTRS)
                                return format_error(err, err_size, -E2BIG,
                                                    "%s: more than %d attributes", m->source,
                                                    MAX_ATTRS);
                        names[n++] = key;
                }
                /* attrs only some cases set still belong to the call */
                for (size_t ci = 0; ci < m->n_cases; ci++)
                        json_object_foreach(m->cases[ci].attrs, key, value)
                        {
                                bool known = false;
                                for (size_t i = 0; i < n; i++)
                                        known |= strcmp(names[i], key) == 0;
                                if (!known && n < MAX_ATTRS)
                                        names[n++] = key;
                        }
        }
        for (size_t i = 0; i < n; i++) {
                struct attr *a = &attrs[i];
                a->name = names[i];
                identifier(a->ident, sizeof(a->ident), "attr_", names[i]);
                for (size_t ci = 0; ci < m->n_cases; ci++) {
                        const json_t *v = json_object_get(m->cases[ci].attrs, names[i]);
                        enum attr_kind kind;
                        int r;
                        if (!v)
                                return format_error(err, err_size, -EINVAL,
                                                    "%s: .cases[%zu]: no value for the OpDef "
                                                    "attribute \"%s\"; give it in .attrs",
                                                    m->source, ci, names[i]);
                        r = attr_kind_of(v, &kind);
                        if (r < 0)
                                return format_error(err, err_size, -ENOTSUP,
                                                    "%s: .cases[%zu].attrs.%s: the ascend "
                                                    "harness supports numbers, booleans, "
                                                    "strings and flat lists of up to %d numbers "
                                                    "or booleans",
                                                    m->source, ci, names[i], MAX_LIST_ATTR);
                        if (ci == 0) {
                                a->kind = kind;
                                continue;
                        }
                        /* 1 and 1.5 in different cases: a float attribute */
                        if ((a->kind == ATTR_INT && kind == ATTR_FLOAT) ||
                            (a->kind == ATTR_INT_LIST && kind == ATTR_FLOAT_LIST))
                                a->kind = kind;
                        else if ((a->kind == ATTR_FLOAT && kind == ATTR_INT) ||
                                 (a->kind == ATTR_FLOAT_LIST && kind == ATTR_INT_LIST))
                                ;
                        else if (kind != a->kind)
                                return format_error(err, err_size, -EINVAL,
                                                    "%s: .cases[%zu].attrs.%s: a different "
                                                    "type than in .cases[0]",
                                                    m->source, ci, names[i]);
                }
        }
        *ret_n = n;
        return 0;
}

static void put_prelude(FILE *f, const struct npu_manifest *m, const char *header, size_t n_attrs)
{
        fprintf(f,
                "// Generated by ascendopt for the operator %s: an aclnn harness.  Do not edit.\n"
                "// ascendopt-harness: op=%s inputs=%zu outputs=%zu cases=%zu attrs=%zu\n"
                "//\n"
                "// usage: harness DEVICE CASE LAUNCHES IN.bin... OUT.bin...\n"
                "// Runs case CASE (an index into the manifest's cases) LAUNCHES times on\n"
                "// device DEVICE (aclrtSetDevice; msprof does not support\n"
                "// ASCEND_RT_VISIBLE_DEVICES while profiling), zeroing the\n"
                "// outputs before each launch, and writes the outputs of the first launch\n"
                "// as raw little-endian files.  Exit 2: usage or I/O; exit 1: an acl or\n"
                "// aclnn call failed, named on stderr with its error code.\n"
                "#include <cstdint>\n"
                "#include <cstdio>\n"
                "#include <cstdlib>\n"
                "#include <cstring>\n"
                "#include <vector>\n"
                "\n"
                "#include \"acl/acl.h\"\n"
                "#include \"%s\"\n"
                "\n"
                "namespace {\n"
                "\n"
                "constexpr int kInputs = %zu;\n"
                "constexpr int kOutputs = %zu;\n"
                "constexpr int kTensors = kInputs + kOutputs;\n"
                "constexpr int kMaxDims = %d;\n"
                "\n"
                "// Every failure is fatal: the process exits and the runtime cleans up.\n"
                "#define CHECK(call)                                                           \\\n"
                "        do {                                                                  \\\n"
                "                auto status_ = (call);                                        \\\n"
                "                if (status_ != 0) {                                           \\\n"
                "                        const char *msg_ = aclGetRecentErrMsg();              \\\n"
                "                        std::fprintf(stderr, \"%%s failed: error %%d%%s%%s\\n\", "
                "#call, \\\n"
                "                                     static_cast<int>(status_), msg_ ? \": \" : "
                "\"\", \\\n"
                "                                     msg_ ? msg_ : \"\");                         "
                " \\\n"
                "                        std::exit(1);                                         \\\n"
                "                }                                                             \\\n"
                "        } while (0)\n"
                "\n",
                m->name, m->name, m->n_inputs, m->n_outputs, m->n_cases, n_attrs, header,
                m->n_inputs, m->n_outputs, NPU_MAX_DIMS);
}

static void put_tables(FILE *f, const struct npu_manifest *m, const struct attr *attrs,
                       size_t n_attrs)
{
        size_t n_tensors = m->n_inputs + m->n_outputs;

        fputs("struct TensorInfo {\n"
              "        const char *name;\n"
              "        aclDataType dtype;\n"
              "        size_t element_size;\n"
              "};\n\n"
              "const TensorInfo kTensorInfo[kTensors] = {\n",
              f);
        for (size_t t = 0; t < n_tensors; t++) {
                const struct npu_tensor *x =
                    t < m->n_inputs ? &m->inputs[t] : &m->outputs[t - m->n_inputs];
                fputs("        { ", f);
                put_string_literal(f, x->name);
                fprintf(f, ", %s, %zu },\n", acl_dtype(x->dtype), npu_dtype_size(x->dtype));
        }
        fputs("};\n\n"
              "struct CaseSpec {\n"
              "        const char *name;\n"
              "        uint64_t rank[kTensors];\n"
              "        int64_t dims[kTensors][kMaxDims];\n",
              f);
        for (size_t i = 0; i < n_attrs; i++) {
                if (is_list(attrs[i].kind))
                        fprintf(f, "        %s %s[%d];\n        uint64_t %s_count;\n",
                                attr_field_type(attrs[i].kind), attrs[i].ident, MAX_LIST_ATTR,
                                attrs[i].ident);
                else
                        fprintf(f, "        %s %s;\n", attr_field_type(attrs[i].kind),
                                attrs[i].ident);
        }
        fputs("};\n\nconst CaseSpec kCases[] = {\n", f);
        for (size_t ci = 0; ci < m->n_cases; ci++) {
                const struct npu_case *c = &m->cases[ci];
                fputs("        { ", f);
                put_string_literal(f, c->name);
                fputs(",\n          {", f);
                for (size_t t = 0; t < n_tensors; t++)
                        fprintf(f, "%s%zu", t ? ", " : " ", json_array_size(tensor_shape(m, c, t)));
                fputs(" },\n          {", f);
                for (size_t t = 0; t < n_tensors; t++) {
                        const json_t *shape = tensor_shape(m, c, t);
                        size_t d;
                        const json_t *dim;
                        fputs(t ? ", {" : " {", f);
                        json_array_foreach(shape, d, dim)
                        {
                                fprintf(f, "%s%" PRId64, d ? ", " : " ",
                                        (int64_t)json_integer_value(dim));
                        }
                        fputs(" }", f);
                }
                fputs(" }", f);
                for (size_t i = 0; i < n_attrs; i++) {
                        fputs(",\n          ", f);
                        put_attr_value(f, &attrs[i], json_object_get(c->attrs, attrs[i].name));
                }
                fprintf(f, " },\n");
        }
        fputs("};\n\n", f);
}

static void put_helpers(FILE *f)
{
        fputs("size_t Elements(const CaseSpec &c, int t)\n"
              "{\n"
              "        size_t n = 1;\n"
              "        for (uint64_t d = 0; d < c.rank[t]; d++)\n"
              "                n *= static_cast<size_t>(c.dims[t][d]);\n"
              "        return n;\n"
              "}\n"
              "\n"
              "bool ReadExactly(const char *path, std::vector<uint8_t> &buf)\n"
              "{\n"
              "        std::FILE *f = std::fopen(path, \"rb\");\n"
              "        if (!f) {\n"
              "                std::perror(path);\n"
              "                return false;\n"
              "        }\n"
              "        size_t got = buf.empty() ? 0 : std::fread(buf.data(), 1, buf.size(), f);\n"
              "        int extra = std::fgetc(f);\n"
              "        std::fclose(f);\n"
              "        if (got != buf.size() || extra != EOF) {\n"
              "                std::fprintf(stderr, \"%s: expected exactly %zu bytes\\n\", path, "
              "buf.size());\n"
              "                return false;\n"
              "        }\n"
              "        return true;\n"
              "}\n"
              "\n"
              "bool WriteAll(const char *path, const std::vector<uint8_t> &buf)\n"
              "{\n"
              "        std::FILE *f = std::fopen(path, \"wb\");\n"
              "        if (!f) {\n"
              "                std::perror(path);\n"
              "                return false;\n"
              "        }\n"
              "        size_t put = buf.empty() ? 0 : std::fwrite(buf.data(), 1, buf.size(), f);\n"
              "        bool ok = put == buf.size();\n"
              "        ok = std::fclose(f) == 0 && ok;\n"
              "        if (!ok)\n"
              "                std::fprintf(stderr, \"%s: write failed\\n\", path);\n"
              "        return ok;\n"
              "}\n"
              "\n"
              "} // namespace\n\n",
              f);
}

/* entry: the aclnn entry's name, "aclnnAddCustom" */
static void put_main(FILE *f, const struct npu_manifest *m, const char *entry,
                     const struct attr *attrs, size_t n_attrs)
{
        fputs(
            "int main(int argc, char **argv)\n"
            "{\n"
            "        if (argc != 4 + kTensors) {\n"
            "                std::fprintf(stderr, \"usage: %s DEVICE CASE LAUNCHES\", argv[0]);\n"
            "                for (int t = 0; t < kTensors; t++)\n"
            "                        std::fprintf(stderr, \" %s.bin\", kTensorInfo[t].name);\n"
            "                std::fputc('\\n', stderr);\n"
            "                return 2;\n"
            "        }\n"
            "        char *end = nullptr;\n"
            "        long device_id = std::strtol(argv[1], &end, 10);\n"
            "        if (*end || end == argv[1] || device_id < 0 || device_id > 1023) {\n"
            "                std::fprintf(stderr, \"DEVICE must be a device id\\n\");\n"
            "                return 2;\n"
            "        }\n"
            "        long case_index = std::strtol(argv[2], &end, 10);\n"
            "        const long n_cases = static_cast<long>(sizeof(kCases) / sizeof(kCases[0]));\n"
            "        if (*end || case_index < 0 || case_index >= n_cases) {\n"
            "                std::fprintf(stderr, \"CASE must be 0..%ld\\n\", n_cases - 1);\n"
            "                return 2;\n"
            "        }\n"
            "        long launches = std::strtol(argv[3], &end, 10);\n"
            "        if (*end || launches < 1 || launches > 1000) {\n"
            "                std::fprintf(stderr, \"LAUNCHES must be 1..1000\\n\");\n"
            "                return 2;\n"
            "        }\n"
            "        const CaseSpec &c = kCases[case_index];\n"
            "\n"
            "        std::vector<uint8_t> host[kTensors];\n"
            "        for (int t = 0; t < kTensors; t++) {\n"
            "                host[t].resize(Elements(c, t) * kTensorInfo[t].element_size);\n"
            "                if (t < kInputs && !ReadExactly(argv[4 + t], host[t]))\n"
            "                        return 2;\n"
            "        }\n"
            "\n"
            "        CHECK(aclInit(nullptr));\n"
            "        CHECK(aclrtSetDevice(static_cast<int32_t>(device_id)));\n"
            "        aclrtStream stream = nullptr;\n"
            "        CHECK(aclrtCreateStream(&stream));\n"
            "\n"
            "        void *device[kTensors] = {};\n"
            "        aclTensor *tensor[kTensors] = {};\n"
            "        for (int t = 0; t < kTensors; t++) {\n"
            "                size_t bytes = host[t].size();\n"
            "                CHECK(aclrtMalloc(&device[t], bytes ? bytes : 1, "
            "ACL_MEM_MALLOC_HUGE_FIRST));\n"
            "                if (t < kInputs && bytes)\n"
            "                        CHECK(aclrtMemcpy(device[t], bytes, host[t].data(), bytes,\n"
            "                                          ACL_MEMCPY_HOST_TO_DEVICE));\n"
            "                int64_t strides[kMaxDims] = {};\n"
            "                int64_t stride = 1;\n"
            "                for (int d = static_cast<int>(c.rank[t]) - 1; d >= 0; d--) {\n"
            "                        strides[d] = stride;\n"
            "                        stride *= c.dims[t][d];\n"
            "                }\n"
            "                tensor[t] = aclCreateTensor(c.dims[t], c.rank[t], "
            "kTensorInfo[t].dtype, strides, 0,\n"
            "                                            ACL_FORMAT_ND, c.dims[t], c.rank[t], "
            "device[t]);\n"
            "                if (!tensor[t]) {\n"
            "                        std::fprintf(stderr, \"aclCreateTensor(%s) failed\\n\", "
            "kTensorInfo[t].name);\n"
            "                        return 1;\n"
            "                }\n"
            "        }\n",
            f);
        for (size_t i = 0; i < n_attrs; i++) {
                const char *create = attrs[i].kind == ATTR_INT_LIST     ? "aclCreateIntArray"
                                     : attrs[i].kind == ATTR_FLOAT_LIST ? "aclCreateFloatArray"
                                                                        : "aclCreateBoolArray";
                const char *type = attrs[i].kind == ATTR_INT_LIST     ? "aclIntArray"
                                   : attrs[i].kind == ATTR_FLOAT_LIST ? "aclFloatArray"
                                                                      : "aclBoolArray";
                if (!is_list(attrs[i].kind))
                        continue;
                fprintf(f,
                        "        %s *%s = %s(c.%s, c.%s_count);\n"
                        "        if (!%s) {\n"
                        "                std::fprintf(stderr, \"%s(%s) failed\\n\");\n"
                        "                return 1;\n"
                        "        }\n",
                        type, attrs[i].ident, create, attrs[i].ident, attrs[i].ident,
                        attrs[i].ident, create, attrs[i].name);
        }
        fprintf(f,
                "\n"
                "        for (long launch = 0; launch < launches; launch++) {\n"
                "                for (int t = kInputs; t < kTensors; t++)\n"
                "                        if (!host[t].empty())\n"
                "                                CHECK(aclrtMemset(device[t], host[t].size(), 0, "
                "host[t].size()));\n"
                "                uint64_t workspace_size = 0;\n"
                "                aclOpExecutor *executor = nullptr;\n"
                "                CHECK(%sGetWorkspaceSize(",
                entry);
        /* aclnn's order: inputs, attributes, outputs, then workspace size and executor */
        for (size_t t = 0; t < m->n_inputs; t++)
                fprintf(f, "tensor[%zu], ", t);
        for (size_t i = 0; i < n_attrs; i++) {
                if (is_list(attrs[i].kind))
                        fprintf(f, "%s, ", attrs[i].ident);
                else if (attrs[i].kind == ATTR_STRING)
                        fprintf(f, "const_cast<char *>(c.%s), ", attrs[i].ident);
                else
                        fprintf(f, "c.%s, ", attrs[i].ident);
        }
        for (size_t t = 0; t < m->n_outputs; t++)
                fprintf(f, "tensor[%zu], ", m->n_inputs + t);
        fprintf(
            f,
            "\n"
            "                                                    &workspace_size, &executor));\n"
            "                void *workspace = nullptr;\n"
            "                if (workspace_size)\n"
            "                        CHECK(aclrtMalloc(&workspace, workspace_size, "
            "ACL_MEM_MALLOC_HUGE_FIRST));\n"
            "                CHECK(%s(workspace, workspace_size, executor, stream));\n"
            "                CHECK(aclrtSynchronizeStream(stream));\n"
            "                if (workspace)\n"
            "                        CHECK(aclrtFree(workspace));\n"
            "                if (launch == 0)\n"
            "                        for (int t = kInputs; t < kTensors; t++)\n"
            "                                if (!host[t].empty())\n"
            "                                        CHECK(aclrtMemcpy(host[t].data(), "
            "host[t].size(), device[t],\n"
            "                                                          host[t].size(), "
            "ACL_MEMCPY_DEVICE_TO_HOST));\n"
            "        }\n"
            "\n"
            "        int status = 0;\n"
            "        for (int t = kInputs; t < kTensors; t++)\n"
            "                if (!WriteAll(argv[4 + t], host[t]))\n"
            "                        status = 2;\n"
            "\n",
            entry);
        for (size_t i = 0; i < n_attrs; i++) {
                if (!is_list(attrs[i].kind))
                        continue;
                fprintf(f, "        %s(%s);\n",
                        attrs[i].kind == ATTR_INT_LIST     ? "aclDestroyIntArray"
                        : attrs[i].kind == ATTR_FLOAT_LIST ? "aclDestroyFloatArray"
                                                           : "aclDestroyBoolArray",
                        attrs[i].ident);
        }
        fputs("        for (int t = 0; t < kTensors; t++) {\n"
              "                aclDestroyTensor(tensor[t]);\n"
              "                aclrtFree(device[t]);\n"
              "        }\n"
              "        aclrtDestroyStream(stream);\n"
              "        aclrtResetDevice(static_cast<int32_t>(device_id));\n"
              "        aclFinalize();\n"
              "        return status;\n"
              "}\n",
              f);
}

static char *cmakelists(const char *target, const char *op)
{
        char *text = NULL;

        if (asprintf(&text,
                     "# Generated by ascendopt: builds the aclnn harness of %s.  Do not edit.\n"
                     "# cmake -S . -B build -DASCEND_HOME=<toolkit> -DCUST_PKG_PATH=<vendor dir>\n"
                     "cmake_minimum_required(VERSION 3.16)\n"
                     "project(ascendopt_harness LANGUAGES CXX)\n"
                     "set(CMAKE_CXX_STANDARD 17)\n"
                     "set(CMAKE_CXX_STANDARD_REQUIRED ON)\n"
                     "if(NOT DEFINED ASCEND_HOME)\n"
                     "  set(ASCEND_HOME \"$ENV{ASCEND_HOME_PATH}\")\n"
                     "endif()\n"
                     "if(NOT DEFINED CUST_PKG_PATH)\n"
                     "  message(FATAL_ERROR \"pass -DCUST_PKG_PATH=<the installed vendor "
                     "directory>\")\n"
                     "endif()\n"
                     "add_executable(%s main.cpp)\n"
                     "target_include_directories(%s PRIVATE\n"
                     "  ${CUST_PKG_PATH}/op_api/include\n"
                     "  ${ASCEND_HOME}/include\n"
                     "  ${ASCEND_HOME}/include/aclnn)\n"
                     "target_link_directories(%s PRIVATE\n"
                     "  ${CUST_PKG_PATH}/op_api/lib\n"
                     "  ${ASCEND_HOME}/lib64)\n"
                     "target_link_libraries(%s PRIVATE cust_opapi ascendcl nnopbase "
                     "acl_op_compiler)\n",
                     op, target, target, target, target) < 0)
                return NULL;
        return text;
}

int ascend_harness_generate(const struct npu_manifest *m, const char *const *attr_order,
                            struct ascend_harness *ret, char *err, size_t err_size)
{
        struct ascend_harness h = { 0 };
        struct attr attrs[MAX_ATTRS];
        struct ascend_aclnn_entry declared;
        const char *kinds[MAX_ATTRS];
        char *snake = NULL, header[300], entry[300];
        size_t n_attrs = 0, size = 0;
        FILE *f = NULL;
        int r;

        if (!m || !ret)
                return -EINVAL;
        r = check_cases(m, err, err_size);
        if (r == 0)
                r = resolve_attrs(m, attr_order, attrs, &n_attrs, err, err_size);
        for (size_t i = 0; r == 0 && i < n_attrs; i++)
                kinds[i] = attr_kind_words(attrs[i].kind);
        if (r == 0)
                r = ascend_aclnn_declared(m, kinds, n_attrs, &declared, err, err_size);
        if (r < 0)
                return r;
        snake = npu_snake_case(m->name);
        if (!snake)
                return -ENOMEM;
        if (declared.header[0]) {
                /* the operator's own wrapper, installed with its package */
                snprintf(header, sizeof(header), "%s", declared.header);
                snprintf(entry, sizeof(entry), "%s", declared.entry);
        } else {
                snprintf(header, sizeof(header), "aclnn_%s.h", snake);
                snprintf(entry, sizeof(entry), "aclnn%s", m->name);
        }
        if (asprintf(&h.target, "ascendopt_harness_%s", snake) < 0) {
                h.target = NULL;
                r = -ENOMEM;
                goto out;
        }
        f = open_memstream(&h.main_cpp, &size);
        if (!f) {
                r = -ENOMEM;
                goto out;
        }
        put_prelude(f, m, header, n_attrs);
        put_tables(f, m, attrs, n_attrs);
        put_helpers(f);
        put_main(f, m, entry, attrs, n_attrs);
        if (fclose(f) != 0) {
                f = NULL;
                r = -ENOMEM;
                goto out;
        }
        f = NULL;
        h.cmakelists = cmakelists(h.target, m->name);
        if (!h.cmakelists) {
                r = -ENOMEM;
                goto out;
        }
        *ret = h;
        memset(&h, 0, sizeof(h));
out:
        if (f)
                fclose(f);
        free(snake);
        ascend_harness_release(&h);
        return r;
}

void ascend_harness_release(struct ascend_harness *h)
{
        if (!h)
                return;
        free(h->main_cpp);
        free(h->cmakelists);
        free(h->target);
        memset(h, 0, sizeof(*h));
}

static int write_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        int r = 0;

        if (!f)
                return -errno;
        if (fputs(text, f) < 0)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        return r;
}

int ascend_harness_write(const struct ascend_harness *h, const char *dir, char *err,
                         size_t err_size)
{
        char path[PATH_MAX];
        int r;

        r = mkdir_p(dir);
        if (r == 0 && (r = format_path(path, sizeof(path), "%s/main.cpp", dir)) == 0)
                r = write_text(path, h->main_cpp);
        if (r == 0 && (r = format_path(path, sizeof(path), "%s/CMakeLists.txt", dir)) == 0)
                r = write_text(path, h->cmakelists);
        if (r < 0)
                return format_error(err, err_size, r, "%s: cannot write the harness: %s", dir,
                                    strerror(-r));
        return 0;
}

int ascend_harness_cmake_argv(const char *cmake, const char *dir, const char *ascend_home,
                              const char *vendor_dir, bool build_step, struct ascend_argv *ret)
{
        struct ascend_argv a = { 0 };
        int r;

        r = ascend_argv_add(&a, "%s", cmake);
        if (!r && build_step) {
                r = ascend_argv_add(&a, "--build");
                if (!r)
                        r = ascend_argv_add(&a, "%s/build", dir);
        } else if (!r) {
                r = ascend_argv_add(&a, "-S");
                if (!r)
                        r = ascend_argv_add(&a, "%s", dir);
                if (!r)
                        r = ascend_argv_add(&a, "-B");
                if (!r)
                        r = ascend_argv_add(&a, "%s/build", dir);
                if (!r)
                        r = ascend_argv_add(&a, "-DCMAKE_BUILD_TYPE=Release");
                if (!r)
                        r = ascend_argv_add(&a, "-DASCEND_HOME=%s", ascend_home);
                if (!r)
                        r = ascend_argv_add(&a, "-DCUST_PKG_PATH=%s", vendor_dir);
        }
        if (r < 0) {
                ascend_argv_release(&a);
                return r;
        }
        *ret = a;
        return 0;
}
