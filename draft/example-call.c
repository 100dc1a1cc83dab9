/* SPDX-License-Identifier: MIT */
/*
 * Reading an operator example's main.cpp (examples/<dir>/main.cpp, the
 * aclnn two-phase call that cann-ops examples make) for what 'ascendopt
 * init' cannot learn from the OpDef: the shape and dtype of every tensor
 * the example passes, which file gen_data.py wrote each input's data to (or
 * the values main.cpp gives inline), and the attribute values.  It works on
 * tokens and follows only what such examples write: constants, shape
 * vectors, host-data vectors, CreateAclTensor-style helpers and
 * aclCreateTensor, tensor lists, scalars and int arrays, ReadFile calls and
 * the aclnnXxxGetWorkspaceSize call.  What it cannot follow it leaves out,
 * and init says so.
 */
#include "draft-internal.h"

#include "cxx/cxx.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAIN_MAX_BYTES (1u << 20)
#define MAX_VALUES     65536 /* inline host data kept as values */
#define MAX_NAMES      512

struct reader {
        struct cxx_file file; /* main.cpp */
        json_t *constants;    /* name -> number */
        json_t *vectors;      /* name -> [numbers] (shape and host-data vectors) */
        json_t *fills;        /* name -> {n, value} for std::vector<T> v(n[, value]) */
        json_t *aliases;      /* name -> the name it points into (buffers, .data()) */
        json_t *tensors;      /* tensor var -> {shape, dtype, host} */
        json_t *lists;        /* list var -> [tensor vars] */
        json_t *arrays;       /* std::vector<aclTensor*> / aclTensor *a[] -> [tensor vars] */
        json_t *scalars;      /* scalar / int-array var -> value */
        json_t *files;        /* host var -> file */
        json_t *declared;     /* aclTensor *NAME (= nullptr); -> true */
        json_t *strings;      /* char *NAME = "text"; std::string NAME = "text"; -> text */
        json_t *elems;        /* scalar or vector var -> the dtype of its elements */
        bool oom;             /* a json_pack failed: what was read is incomplete */
};

/* ------------------------------------------------------------ expressions */

static bool eval_expr(const struct reader *r, size_t *i, size_t end, double *ret);

/* A number literal: 1, 2.5f, 1e-6, 0x10, 100UL. */
static bool number_literal(const struct reader *r, size_t i, double *ret)
{
        const struct cxx_file *f = &r->file;
        char buf[64], *e;
        cxx_tok_copy(f, i, buf, sizeof(buf));
        *ret = strtod(buf, &e);
        if (e == buf)
                return false;
        while (*e && strchr("fFlLuU", *e))
                e++;
        return *e == '\0';
}

static bool eval_primary(const struct reader *r, size_t *i, size_t end, double *ret)
{
        const struct cxx_file *f = &r->file;
        char name[128];
        json_t *v;

        if (*i >= end)
                return false;
        if (cxx_tok_eq(f, *i, "-") || cxx_tok_eq(f, *i, "+")) {
                bool neg = cxx_tok_eq(f, *i, "-");
                *i = cxx_tok_next(f, *i);
                if (!eval_primary(r, i, end, ret))
                        return false;
                *ret = neg ? -*ret : *ret;
                return true;
        }
        if (cxx_tok_eq(f, *i, "(")) {
                size_t close = token_match(&f->tokens, *i);
                size_t j = cxx_tok_next(f, *i);
                /* a cast such as (int64_t)x: skip the type */
                if (close < end && cxx_tok_is_ident(f, j) && cxx_tok_next(f, j) == close &&
                    !json_object_get(r->constants, cxx_tok_copy(f, j, name, sizeof(name)))) {
                        *i = cxx_tok_next(f, close);
                        return eval_primary(r, i, end, ret);
                }
                if (close >= end || !eval_expr(r, &j, close, ret) || j != close)
                        return false;
                *i = cxx_tok_next(f, close);
                return true;
        }
        if (cxx_tok_is_kind(f, *i, TOKEN_NUMBER)) {
                if (!number_literal(r, *i, ret))
                        return false;
                *i = cxx_tok_next(f, *i);
                return true;
        }
        if (!cxx_tok_is_ident(f, *i))
                return false;
        cxx_tok_copy(f, *i, name, sizeof(name));
        if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0) {
                *ret = name[0] == 't';
                *i = cxx_tok_next(f, *i);
                return true;
        }
        *i = cxx_tok_next(f, *i);
        /* static_cast<T>(x) */
        if ((strcmp(name, "static_cast") == 0) && cxx_tok_eq(f, *i, "<")) {
                while (*i < end && !cxx_tok_eq(f, *i, ">"))
                        *i = cxx_tok_next(f, *i);
                *i = cxx_tok_next(f, *i);
                return eval_primary(r, i, end, ret);
        }
        /* GetShapeSize(shape): the product of a shape vector */
        if (cxx_tok_eq(f, *i, "(") && cxx_tok_is_ident(f, cxx_tok_next(f, *i))) {
                size_t close = token_match(&f->tokens, *i);
                char arg[128];
                size_t k;
                cxx_tok_copy(f, cxx_tok_next(f, *i), arg, sizeof(arg));
                v = json_object_get(r->vectors, arg);
                if (!strstr(name, "ShapeSize") || !v || close >= end)
                        return false;
                *ret = 1;
                for (k = 0; k < json_array_size(v); k++)
                        *ret *= json_number_value(json_array_get(v, k));
                *i = cxx_tok_next(f, close);
                return true;
        }
        /* v[k] of a known vector */
        if (cxx_tok_eq(f, *i, "[")) {
                size_t close = token_match(&f->tokens, *i), j = cxx_tok_next(f, *i);
                double k;
                v = json_object_get(r->vectors, name);
                if (!v || close >= end || !eval_expr(r, &j, close, &k) || j != close || k < 0 ||
                    (size_t)k >= json_array_size(v))
                        return false;
                *ret = json_number_value(json_array_get(v, (size_t)k));
                *i = cxx_tok_next(f, close);
                return true;
        }
        /* v.size() of a known vector */
        if (cxx_tok_eq(f, *i, ".") && cxx_tok_eq(f, cxx_tok_next(f, *i), "size")) {
                v = json_object_get(r->vectors, name);
                if (!v)
                        return false;
                *ret = (double)json_array_size(v);
                *i = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, *i))));
                return true;
        }
        v = json_object_get(r->constants, name);
        if (!v)
                return false;
        *ret = json_number_value(v);
        return true;
}

static bool eval_term(const struct reader *r, size_t *i, size_t end, double *ret)
{
        const struct cxx_file *f = &r->file;

        if (!eval_primary(r, i, end, ret))
                return false;
        while (*i < end &&
               (cxx_tok_eq(f, *i, "*") || cxx_tok_eq(f, *i, "/") || cxx_tok_eq(f, *i, "%"))) {
                char op[2];
                double rhs;
                cxx_tok_copy(f, *i, op, sizeof(op));
                *i = cxx_tok_next(f, *i);
                if (!eval_primary(r, i, end, &rhs))
                        return false;
                if (op[0] == '*')
                        *ret *= rhs;
                else if (rhs == 0)
                        return false;
                else if (op[0] == '/')
                        *ret = (*ret == floor(*ret) && rhs == floor(rhs)) ? trunc(*ret / rhs)
                                                                          : *ret / rhs;
                else
                        *ret = fmod(*ret, rhs);
        }
        return true;
}

static bool eval_expr(const struct reader *r, size_t *i, size_t end, double *ret)
{
        const struct cxx_file *f = &r->file;

        if (!eval_term(r, i, end, ret))
                return false;
        while (*i < end && (cxx_tok_eq(f, *i, "+") || cxx_tok_eq(f, *i, "-"))) {
                bool minus = cxx_tok_eq(f, *i, "-");
                double rhs;
                *i = cxx_tok_next(f, *i);
                if (!eval_term(r, i, end, &rhs))
                        return false;
                *ret = minus ? *ret - rhs : *ret + rhs;
        }
        return true;
}

/* The whole range [i, end) as one number. */
static bool eval_range(const struct reader *r, size_t i, size_t end, double *ret)
{
        return eval_expr(r, &i, end, ret) && i >= end;
}

static json_t *number_json(double v, bool real)
{
        return !real && v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v)
                                                        : json_real(v);
}

/* Whether the tokens [i, end) hold a floating literal (1.0, 2.5f, 1e-6). */
static bool has_float_literal(const struct reader *r, size_t i, size_t end)
{
        const struct cxx_file *f = &r->file;

        for (; i < end; i = cxx_tok_next(f, i)) {
                char buf[64];
                if (!cxx_tok_is_kind(f, i, TOKEN_NUMBER))
                        continue;
                cxx_tok_copy(f, i, buf, sizeof(buf));
                if (strpbrk(buf, ".eE") && strncmp(buf, "0x", 2) != 0)
                        return true;
        }
        return false;
}

/* {e1, e2, ...} at i (a brace) as numbers; NULL when one cannot be evaluated. */
static json_t *brace_list(const struct reader *r, size_t i, bool real)
{
        const struct cxx_file *f = &r->file;
        struct cxx_arg *items = malloc((MAX_VALUES + 1) * sizeof(*items));
        size_t n = items ? cxx_args_split(f, i, items, MAX_VALUES + 1) : 0;
        json_t *list = items && n <= MAX_VALUES ? json_array() : NULL;

        for (size_t k = 0; list && k < n; k++) {
                double v;
                if (items[k].first == CXX_NONE ||
                    !eval_range(r, items[k].first, cxx_tok_next(f, items[k].last), &v)) {
                        json_decref(list);
                        list = NULL;
                } else {
                        json_array_append_new(list, number_json(v, real));
                }
        }
        free(items);
        return list;
}

/* ------------------------------------------------------------ declarations */

/* The end of the statement starting at i (its ';'), skipping brackets. */
static size_t statement_end(const struct reader *r, size_t i)
{
        const struct cxx_file *f = &r->file;

        while (i < f->tokens.n && !cxx_tok_eq(f, i, ";")) {
                if (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "{") || cxx_tok_eq(f, i, "["))
                        i = token_match(&f->tokens, i);
                if (i < f->tokens.n)
                        i = cxx_tok_next(f, i);
        }
        return i;
}

static const char *const scalar_types[] = { "int",      "int8_t",  "int16_t",  "int32_t",
                                            "int64_t",  "uint8_t", "uint16_t", "uint32_t",
                                            "uint64_t", "size_t",  "long",     "float",
                                            "double",   "bool",    "auto",     "char",
                                            "unsigned", NULL };

/* The manifest's dtype of a C element type (int64_t, float, ...); NULL for others. */
static const char *c_dtype(const char *type)
{
        static const char *const map[][2] = {
                { "int64_t", "int64" },   { "long", "int64" },         { "int32_t", "int32" },
                { "int", "int32" },       { "int16_t", "int16" },      { "int8_t", "int8" },
                { "uint64_t", "uint64" }, { "size_t", "uint64" },      { "uint32_t", "uint32" },
                { "uint8_t", "uint8" },   { "float", "float32" },      { "double", "float64" },
                { "bool", "bool" },       { "aclFloat16", "float16" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(map); i++)
                if (strcmp(map[i][0], type) == 0)
                        return map[i][1];
        return NULL;
}

static bool scalar_type(const struct reader *r, size_t i)
{
        const struct cxx_file *f = &r->file;

        for (const char *const *t = scalar_types; *t; t++)
                if (cxx_tok_eq(f, i, *t))
                        return true;
        return false;
}

/* "TYPE NAME = EXPR;" and "TYPE NAME(EXPR);" of a scalar type: a constant. */
static void read_constant(struct reader *r, size_t i)
{
        const struct cxx_file *f = &r->file;
        size_t name = cxx_tok_next(f, i), end, after, value;
        char n[128];
        double v;
        bool real;

        while (cxx_tok_is_ident(f, name) && (scalar_type(r, name) || cxx_tok_eq(f, name, "const")))
                name = cxx_tok_next(f, name);
        if (cxx_tok_eq(f, name, "*") || !cxx_tok_is_ident(f, name))
                return;
        end = statement_end(r, name);
        cxx_tok_copy(f, name, n, sizeof(n));
        /* the element type of each name declared, "T a, b;" too: for values read from files */
        {
                char type[32];
                cxx_tok_copy(f, cxx_tok_prev(f, name), type, sizeof(type));
                for (size_t k = name; k < end && c_dtype(type); k = cxx_tok_next(f, k)) {
                        char each[128];
                        if (!cxx_tok_is_ident(f, k) ||
                            !(k == name || cxx_tok_eq(f, cxx_tok_prev(f, k), ",")))
                                continue;
                        cxx_tok_copy(f, k, each, sizeof(each));
                        json_object_set_new(r->elems, each, json_string(c_dtype(type)));
                        after = cxx_tok_next(f, k);
                        if (cxx_tok_eq(f, after, "=") || cxx_tok_eq(f, after, "(") ||
                            cxx_tok_eq(f, after, "{"))
                                break; /* "T a = f(b, c);": b and c are not declared */
                }
        }
        /* a C array, T NAME[N] = {...}: a vector */
        after = cxx_tok_next(f, name);
        real = cxx_tok_eq(f, i, "float") || cxx_tok_eq(f, i, "double");
        if (cxx_tok_eq(f, after, "[")) {
                size_t eq = cxx_tok_next(f, token_match(&f->tokens, after)),
                       brace = cxx_tok_next(f, eq);
                if (cxx_tok_eq(f, eq, "=") && cxx_tok_eq(f, brace, "{")) {
                        json_t *list =
                            brace_list(r, brace, real && has_float_literal(r, brace, end));
                        if (list)
                                json_object_set_new(r->vectors, n, list);
                        return;
                }
        }
        if (!cxx_tok_eq(f, after, "=") || end >= f->tokens.n)
                return;
        value = cxx_tok_next(f, after);
        if (cxx_tok_eq(f, i, "bool") &&
            (cxx_tok_eq(f, value, "true") || cxx_tok_eq(f, value, "false")))
                json_object_set_new(r->constants, n, json_boolean(cxx_tok_eq(f, value, "true")));
        else if (eval_range(r, value, end, &v))
                json_object_set_new(r->constants, n, number_json(v, real));
}

/* char *NAME = "text"; const char *NAME = "text"; std::string NAME = "text"; NAME("text") */
static void read_string(struct reader *r, size_t i)
{
        const struct cxx_file *f = &r->file;
        size_t j = i;
        char n[128], str[256];

        while (cxx_tok_eq(f, j, "const") || cxx_tok_eq(f, j, "char") || cxx_tok_eq(f, j, "std") ||
               cxx_tok_eq(f, j, "::") || cxx_tok_eq(f, j, "string") || cxx_tok_eq(f, j, "*"))
                j = cxx_tok_next(f, j);
        if (j == i || !cxx_tok_is_ident(f, j))
                return;
        cxx_tok_copy(f, j, n, sizeof(n));
        j = cxx_tok_next(f, j);
        if (cxx_tok_eq(f, j, "=") || cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "{"))
                j = cxx_tok_next(f, j);
        if (j >= f->tokens.n || !cxx_tok_is_kind(f, j, TOKEN_STRING))
                return;
        cxx_tok_copy(f, j, str, sizeof(str));
        if (strlen(str) < 2)
                return;
        str[strlen(str) - 1] = '\0';
        json_object_set_new(r->strings, n, json_string(str + 1));
}

/*
 * One declarator of a std::vector declaration at name: NAME = {...},
 * NAME{...} or NAME(n[, v]).  The token after it.
 */
static size_t read_vector_declarator(struct reader *r, size_t name, const char *elem, bool tensors)
{
        const struct cxx_file *f = &r->file;
        size_t after = cxx_tok_next(f, name), end = statement_end(r, name), close;
        bool real = strcmp(elem, "float") == 0 || strcmp(elem, "double") == 0 ||
                    strcmp(elem, "aclFloat16") == 0 || strcmp(elem, "uint16_t") == 0;
        char n[128];

        cxx_tok_copy(f, name, n, sizeof(n));
        if (c_dtype(elem))
                json_object_set_new(r->elems, n, json_string(c_dtype(elem)));
        if (cxx_tok_eq(f, after, "="))
                after = cxx_tok_next(f, after);
        if (!cxx_tok_eq(f, after, "{") && !cxx_tok_eq(f, after, "("))
                return after;
        close = token_match(&f->tokens, after);
        if (cxx_tok_eq(f, after, "{")) {
                if (tensors) {
                        json_t *list = json_array();
                        for (size_t k = cxx_tok_next(f, after); k < close; k = cxx_tok_next(f, k))
                                if (cxx_tok_is_ident(f, k)) {
                                        char t[128];
                                        cxx_tok_copy(f, k, t, sizeof(t));
                                        json_array_append_new(list, json_string(t));
                                }
                        json_object_set_new(r->arrays, n, list);
                        return cxx_tok_next(f, close);
                }
                json_t *list = brace_list(r, after, real && has_float_literal(r, after, end));
                if (list)
                        json_object_set_new(r->vectors, n, list);
        } else if (!tensors) {
                size_t k = cxx_tok_next(f, after), comma = k;
                double count, value = 0;
                while (comma < close && !cxx_tok_eq(f, comma, ","))
                        comma = cxx_tok_eq(f, comma, "(") || cxx_tok_eq(f, comma, "[")
                                    ? cxx_tok_next(f, token_match(&f->tokens, comma))
                                    : cxx_tok_next(f, comma);
                if (eval_range(r, k, comma, &count) &&
                    (comma >= close || eval_range(r, cxx_tok_next(f, comma), close, &value)) &&
                    json_object_set_new(
                        r->fills, n,
                        json_pack("{s:f, s:o}", "n", count, "value",
                                  number_json(value, real && comma < close &&
                                                         has_float_literal(r, comma, close)))) < 0)
                        r->oom = true;
        }
        return cxx_tok_next(f, close);
}

/* std::vector<T> NAME = {...}; NAME{...}; NAME(n[, v]); and "T a(3), b(3);" */
static void read_vector(struct reader *r, size_t i)
{
        const struct cxx_file *f = &r->file;
        size_t j = cxx_tok_next(f, i), name;
        bool tensors = false;
        char elem[64] = "";

        if (!cxx_tok_eq(f, j, "<"))
                return;
        j = cxx_tok_next(f, j);
        if (cxx_tok_is_ident(f, j))
                cxx_tok_copy(f, j, elem, sizeof(elem));
        while (j < f->tokens.n && !cxx_tok_eq(f, j, ">")) {
                /* tensors, or scalars for an aclScalarList: their names */
                tensors |= cxx_tok_eq(f, j, "aclTensor") || cxx_tok_eq(f, j, "aclScalar");
                j = cxx_tok_next(f, j);
        }
        name = cxx_tok_next(f, j);
        while (cxx_tok_is_ident(f, name)) {
                size_t after = read_vector_declarator(r, name, elem, tensors);
                if (!cxx_tok_eq(f, after, ","))
                        break;
                name = cxx_tok_next(f, after);
        }
}

/* aclTensor *NAME[] = {a, b}; (and aclTensor *NAME = nullptr; noted as declared) */
static void read_tensor_array(struct reader *r, size_t i)
{
        const struct cxx_file *f = &r->file;
        size_t j = cxx_tok_next(f, i);
        char n[128];

        if (cxx_tok_eq(f, j, "*"))
                j = cxx_tok_next(f, j);
        if (cxx_tok_is_ident(f, j) &&
            (cxx_tok_eq(f, cxx_tok_next(f, j), "=") || cxx_tok_eq(f, cxx_tok_next(f, j), ";"))) {
                cxx_tok_copy(f, j, n, sizeof(n));
                json_object_set_new(r->declared, n, json_true());
                return;
        }
        if (!cxx_tok_is_ident(f, j) || !cxx_tok_eq(f, cxx_tok_next(f, j), "["))
                return;
        cxx_tok_copy(f, j, n, sizeof(n));
        j = cxx_tok_next(f, token_match(&f->tokens, cxx_tok_next(f, j)));
        if (!cxx_tok_eq(f, j, "=") || !cxx_tok_eq(f, cxx_tok_next(f, j), "{"))
                return;
        j = cxx_tok_next(f, j);
        json_t *list = json_array();
        for (size_t k = cxx_tok_next(f, j), close = token_match(&f->tokens, j); k < close;
             k = cxx_tok_next(f, k))
                if (cxx_tok_is_ident(f, k)) {
                        char t[128];
                        cxx_tok_copy(f, k, t, sizeof(t));
                        json_array_append_new(list, json_string(t));
                }
        json_object_set_new(r->arrays, n, list);
}

/* The dtype an ACL_* token names, as the manifest spells it; NULL for others. */
static const char *acl_dtype(const char *name)
{
        static const char *const map[][2] = {
                { "ACL_FLOAT16", "float16" }, { "ACL_FLOAT", "float32" },
                { "ACL_BF16", "bfloat16" },   { "ACL_INT8", "int8" },
                { "ACL_INT16", "int16" },     { "ACL_INT32", "int32" },
                { "ACL_INT64", "int64" },     { "ACL_UINT8", "uint8" },
                { "ACL_UINT16", "uint16" },   { "ACL_UINT32", "uint32" },
                { "ACL_BOOL", "bool" },       { "ACL_UINT64", "uint64" },
                { "ACL_DOUBLE", "float64" },  { "ACL_COMPLEX64", "complex64" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(map); i++)
                if (strcmp(map[i][0], name) == 0)
                        return map[i][1];
        return NULL;
}

/*
 * The arguments of the call whose '(' is at open, as [start, end) token
 * ranges: end is the ',' or ')' after the argument, and an empty argument
 * is [end, end).
 */
static size_t call_args(const struct reader *r, size_t open, size_t starts[], size_t ends[],
                        size_t max)
{
        const struct cxx_file *f = &r->file;
        struct cxx_arg args[64];
        size_t n = cxx_args_split(f, open, args, max < ARRAY_SIZE(args) ? max : ARRAY_SIZE(args));

        for (size_t k = 0; k < n; k++) {
                size_t sep = cxx_tok_next(f, k ? ends[k - 1] : open);
                bool empty = args[k].first == CXX_NONE;
                starts[k] = empty ? sep : args[k].first;
                ends[k] = empty ? sep : cxx_tok_next(f, args[k].last);
        }
        return n;
}

/* The first identifier of [i, end) that is not a cast or keyword, into buf. */
static bool first_name(const struct reader *r, size_t i, size_t end, char *buf, size_t size)
{
        const struct cxx_file *f = &r->file;

        for (; i < end; i = cxx_tok_next(f, i)) {
                if (!cxx_tok_is_ident(f, i))
                        continue;
                cxx_tok_copy(f, i, buf, size);
                if (strcmp(buf, "void") && strcmp(buf, "static_cast") &&
                    strcmp(buf, "reinterpret_cast") && strcmp(buf, "const") &&
                    strcmp(buf, "char") && strcmp(buf, "std") && strcmp(buf, "string") &&
                    strcmp(buf, "data") && strcmp(buf, "sizeof") && !scalar_type(r, i))
                        return true;
        }
        return false;
}

/* The name an alias resolves to, following "p = &x", "p = x.data()" chains. */
static const char *resolve(const struct reader *r, const char *name)
{
        for (int depth = 0; depth < 8; depth++) {
                const char *to = json_string_value(json_object_get(r->aliases, name));
                if (!to)
                        break;
                name = to;
        }
        return name;
}

/* The dtype of an aclDataType argument ([i, end)). */
static const char *dtype_in(const struct reader *r, size_t i, size_t end)
{
        const struct cxx_file *f = &r->file;
        char buf[64];
        for (; i < end; i = cxx_tok_next(f, i)) {
                if (!cxx_tok_is_ident(f, i))
                        continue;
                cxx_tok_copy(f, i, buf, sizeof(buf));
                if (acl_dtype(buf))
                        return acl_dtype(buf);
                const char *c = json_string_value(json_object_get(r->constants, buf));
                (void)c;
        }
        return NULL;
}

/*
 * Tensor t's shape is in the file main.cpp reads into var: the file, and
 * the dtype of var's elements (int64 unless declared otherwise) to read it
 * as.
 */
static void shape_from_file(const struct reader *r, json_t *t, const char *var)
{
        const json_t *elem = json_object_get(r->elems, var);

        json_object_set(t, "shape_file", json_object_get(r->files, resolve(r, var)));
        json_object_set_new(t, "shape_elem", json_string(elem ? json_string_value(elem) : "int64"));
}

static void scan(struct reader *r)
{
        const struct cxx_file *f = &r->file;
        size_t starts[16], ends[16];
        char a[128], b[128];

        for (size_t i = 0; i < f->tokens.n; i = cxx_tok_next(f, i)) {
                if (f->tokens.tokens[i].in_directive || !cxx_tok_is_ident(f, i))
                        continue;
                /* declarations */
                if ((scalar_type(r, i) || cxx_tok_eq(f, i, "const") ||
                     cxx_tok_eq(f, i, "constexpr")) &&
                    (i == 0 || cxx_tok_eq(f, cxx_tok_prev(f, i), ";") ||
                     cxx_tok_eq(f, cxx_tok_prev(f, i), "{") ||
                     cxx_tok_eq(f, cxx_tok_prev(f, i), "}")))
                        read_constant(r, i);
                if (cxx_tok_eq(f, i, "vector") && i > 1 && cxx_tok_eq(f, cxx_tok_prev(f, i), "::"))
                        read_vector(r, i);
                if (cxx_tok_eq(f, i, "aclTensor") && !cxx_tok_eq(f, cxx_tok_next(f, i), ">"))
                        read_tensor_array(r, i);
                if ((cxx_tok_eq(f, i, "char") || cxx_tok_eq(f, i, "string")) &&
                    (i == 0 || !cxx_tok_eq(f, cxx_tok_prev(f, i), "(")))
                        read_string(r, i > 1 && cxx_tok_eq(f, cxx_tok_prev(f, i), "const")
                                           ? cxx_tok_prev(f, i)
                                       : i > 2 && cxx_tok_eq(f, cxx_tok_prev(f, i), "::")
                                           ? cxx_tok_prev(f, cxx_tok_prev(f, i))
                                           : i);
                /* NAME = EXPR aliases: "void **input1 = (void **)(&x)", "p = x.data()" */
                if (cxx_tok_eq(f, cxx_tok_next(f, i), "=") &&
                    !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "=")) {
                        size_t rhs = cxx_tok_next(f, cxx_tok_next(f, i)),
                               end = statement_end(r, rhs);
                        cxx_tok_copy(f, i, a, sizeof(a));
                        for (size_t k = rhs; k < end; k = cxx_tok_next(f, k)) {
                                if (cxx_tok_is_ident(f, k) &&
                                    (cxx_tok_eq(f, cxx_tok_prev(f, k), "&") ||
                                     cxx_tok_eq(f, cxx_tok_next(f, k), "."))) {
                                        cxx_tok_copy(f, k, b, sizeof(b));
                                        if (strcmp(a, b) != 0)
                                                json_object_set_new(r->aliases, a, json_string(b));
                                        break;
                                }
                        }
                        /* list = aclCreateTensorList(arr.data(), n) or (arr, n) */
                        if (cxx_tok_eq(f, rhs, "aclCreateTensorList") &&
                            call_args(r, cxx_tok_next(f, rhs), starts, ends, 16) >= 1 &&
                            first_name(r, starts[0], ends[0], b, sizeof(b)))
                                json_object_set(r->lists, a, json_object_get(r->arrays, b));
                        /* list = aclCreateScalarList(arr.data(), n): the scalars' values */
                        if (cxx_tok_eq(f, rhs, "aclCreateScalarList") &&
                            call_args(r, cxx_tok_next(f, rhs), starts, ends, 16) >= 1 &&
                            first_name(r, starts[0], ends[0], b, sizeof(b))) {
                                json_t *values = json_array(), *item;
                                size_t k;
                                json_array_foreach(json_object_get(r->arrays, b), k, item)
                                {
                                        json_t *v =
                                            json_object_get(r->scalars, json_string_value(item));
                                        if (!json_is_number(v))
                                                break;
                                        json_array_append(values, v);
                                }
                                if (json_array_size(values) &&
                                    json_array_size(values) ==
                                        json_array_size(json_object_get(r->arrays, b)))
                                        json_object_set(r->scalars, a, values);
                                json_decref(values);
                        }
                        /* scalar = aclCreateScalar(&v, ACL_X); arr = aclCreateIntArray(v.data(), n) */
                        if ((cxx_tok_eq(f, rhs, "aclCreateScalar") ||
                             cxx_tok_eq(f, rhs, "aclCreateIntArray") ||
                             cxx_tok_eq(f, rhs, "aclCreateFloatArray") ||
                             cxx_tok_eq(f, rhs, "aclCreateBoolArray")) &&
                            call_args(r, cxx_tok_next(f, rhs), starts, ends, 16) >= 1 &&
                            first_name(r, starts[0], ends[0], b, sizeof(b))) {
                                json_t *v = json_object_get(r->constants, b);
                                const json_t *file = json_object_get(r->files, resolve(r, b));
                                v = v ? v : json_object_get(r->vectors, b);
                                if (v)
                                        json_object_set(r->scalars, a, v);
                                else if (file) {
                                        /* values main.cpp reads from a file gen_data.py writes */
                                        const char *elem =
                                            cxx_tok_eq(f, rhs, "aclCreateIntArray")     ? "int64"
                                            : cxx_tok_eq(f, rhs, "aclCreateFloatArray") ? "float32"
                                            : cxx_tok_eq(f, rhs, "aclCreateBoolArray")  ? "bool"
                                            : call_args(r, cxx_tok_next(f, rhs), starts, ends,
                                                        16) >= 2
                                                ? dtype_in(r, starts[1], ends[1])
                                                : NULL;
                                        if (elem &&
                                            json_object_set_new(
                                                r->scalars, a,
                                                json_pack("{s:O, s:s, s:b}", "file", file, "elem",
                                                          elem, "scalar",
                                                          cxx_tok_eq(f, rhs, "aclCreateScalar"))) <
                                                0)
                                                r->oom = true;
                                }
                        }
                        /* t = aclCreateTensor(shape.data(), shape.size(), ACL_X, ...) */
                        if (cxx_tok_eq(f, rhs, "aclCreateTensor") &&
                            call_args(r, cxx_tok_next(f, rhs), starts, ends, 16) >= 3 &&
                            first_name(r, starts[0], ends[0], b, sizeof(b))) {
                                json_t *t = json_object();
                                const char *dt = dtype_in(r, starts[2], ends[2]);
                                if (json_object_get(r->vectors, b))
                                        json_object_set(t, "shape", json_object_get(r->vectors, b));
                                else if (json_object_get(r->files, resolve(r, b)))
                                        shape_from_file(r, t, b);
                                if (dt)
                                        json_object_set_new(t, "dtype", json_string(dt));
                                json_object_set_new(r->tensors, a, t);
                        }
                }
                /* CreateAclTensor(host, shape, &addr, ACL_X, &t) and helpers like it */
                cxx_tok_copy(f, i, a, sizeof(a));
                if (strstr(a, "CreateAclTensor") && cxx_tok_eq(f, cxx_tok_next(f, i), "(") &&
                    !cxx_tok_eq(f, cxx_tok_prev(f, i), "int")) {
                        size_t n = call_args(r, cxx_tok_next(f, i), starts, ends, 16);
                        char host[128] = "", shape[128] = "", tensor[128] = "";
                        const char *dt = NULL;
                        json_t *literal = NULL; /* a shape written in place: {1} */
                        /* the tensor: the &NAME of a declared aclTensor, else the last &NAME */
                        for (size_t k = 0; k < n && !tensor[0]; k++) {
                                char name[128];
                                if (cxx_tok_eq(f, starts[k], "&") &&
                                    first_name(r, starts[k], ends[k], name, sizeof(name)) &&
                                    json_object_get(r->declared, name))
                                        snprintf(tensor, sizeof(tensor), "%s", name);
                        }
                        for (size_t k = 0; k < n; k++) {
                                char name[128];
                                if (cxx_tok_eq(f, starts[k], "{")) {
                                        if (!literal && host[0])
                                                literal = brace_list(r, starts[k], false);
                                        continue;
                                }
                                if (!first_name(r, starts[k], ends[k], name, sizeof(name)))
                                        continue;
                                if (!dt && (dt = dtype_in(r, starts[k], ends[k])))
                                        continue;
                                if (tensor[0] && cxx_tok_eq(f, starts[k], "&"))
                                        continue;
                                if (k == n - 1 && cxx_tok_eq(f, starts[k], "&"))
                                        snprintf(tensor, sizeof(tensor), "%s", name);
                                else if (!shape[0] && host[0] &&
                                         (json_object_get(r->vectors, name) ||
                                          json_object_get(r->files, resolve(r, name))) &&
                                         !cxx_tok_eq(f, starts[k], "&"))
                                        snprintf(shape, sizeof(shape), "%s", name);
                                else if (!host[0] && !cxx_tok_eq(f, starts[k], "&"))
                                        snprintf(host, sizeof(host), "%s", name);
                        }
                        if (tensor[0] && n >= 3) {
                                json_t *t = json_pack("{s:s}", "host", host);
                                if (json_object_get(r->vectors, shape))
                                        json_object_set(t, "shape",
                                                        json_object_get(r->vectors, shape));
                                else if (shape[0] && json_object_get(r->files, resolve(r, shape)))
                                        /* a shape main.cpp reads from a file gen_data.py writes */
                                        shape_from_file(r, t, shape);
                                else if (literal)
                                        json_object_set(t, "shape", literal);
                                if (dt)
                                        json_object_set_new(t, "dtype", json_string(dt));
                                if (json_object_set_new(r->tensors, tensor, t) < 0)
                                        r->oom = true; /* t is NULL: json_pack failed */
                        }
                        json_decref(literal);
                }
                /* ReadFile("../input/x.bin", size, buffer, ...) */
                if (cxx_tok_eq(f, i, "ReadFile") && cxx_tok_eq(f, cxx_tok_next(f, i), "(") &&
                    cxx_tok_is_kind(f, cxx_tok_next(f, cxx_tok_next(f, i)), TOKEN_STRING)) {
                        size_t n = call_args(r, cxx_tok_next(f, i), starts, ends, 16);
                        char path[PATH_MAX];
                        const char *p;
                        cxx_tok_copy(f, starts[0], path, sizeof(path));
                        path[strlen(path) - 1] = '\0';
                        for (p = path + 1; strncmp(p, "../", 3) == 0 || strncmp(p, "./", 2) == 0;)
                                p += p[1] == '.' ? 3 : 2;
                        /* the buffer: the argument that is host data (a vector or what
                         * points into one), else the first that is not a constant */
                        char buffer[128] = "";
                        for (size_t k = 1; k < n; k++) {
                                char name[128];
                                const char *to;
                                if (!first_name(r, starts[k], ends[k], name, sizeof(name)) ||
                                    json_object_get(r->constants, name))
                                        continue;
                                to = resolve(r, name);
                                if (json_object_get(r->vectors, to) ||
                                    json_object_get(r->fills, to)) {
                                        snprintf(buffer, sizeof(buffer), "%s", to);
                                        break;
                                }
                                if (!buffer[0])
                                        snprintf(buffer, sizeof(buffer), "%s", to);
                        }
                        if (buffer[0])
                                json_object_set_new(r->files, buffer, json_string(p));
                }
        }
}

/*
 * One tensor argument as init wants it: {kind, shape, dtype, file | values};
 * NULL when out of memory.
 */
static json_t *tensor_arg(const struct reader *r, const char *var)
{
        const json_t *t = json_object_get(r->tensors, var);
        json_t *out = json_pack("{s:s, s:s}", "kind", "tensor", "var", var);
        const char *host = json_string_value(json_object_get(t, "host"));
        const json_t *v;

        if (json_object_get(t, "shape"))
                json_object_set(out, "shape", json_object_get(t, "shape"));
        else if (json_object_get(t, "shape_file")) {
                json_object_set(out, "shape_file", json_object_get(t, "shape_file"));
                json_object_set(out, "shape_elem", json_object_get(t, "shape_elem"));
        }
        if (json_object_get(t, "dtype"))
                json_object_set(out, "dtype", json_object_get(t, "dtype"));
        if (host && (v = json_object_get(r->files, host)))
                json_object_set(out, "file", (json_t *)v);
        else if (host && (v = json_object_get(r->vectors, host)))
                json_object_set(out, "values", (json_t *)v);
        else if (host && (v = json_object_get(r->fills, host)) &&
                 json_number_value(json_object_get(v, "n")) <= MAX_VALUES &&
                 json_number_value(json_object_get(v, "n")) >= 1) {
                json_t *values = json_array();
                for (size_t k = 0; k < (size_t)json_number_value(json_object_get(v, "n")); k++)
                        json_array_append(values, json_object_get(v, "value"));
                json_object_set_new(out, "values", values);
                json_object_set_new(out, "filled", json_true());
        }
        return out;
}

int draft_read_example_call(const char *path, json_t **ret, char *err, size_t size)
{
        struct reader r = { 0 };
        const struct cxx_file *f = &r.file;
        char *text_buf = NULL;
        size_t len = 0, starts[64], ends[64], n;
        unsigned line = 0;
        json_t *call = NULL;
        int rc;

        rc = read_text_file(path, MAIN_MAX_BYTES, &text_buf, &len);
        if (rc < 0) {
                snprintf(err, size, "%s: cannot read: %s", path, strerror(-rc));
                return rc;
        }
        rc = cxx_file_parse(&r.file, path, text_buf, len, &line);
        if (rc < 0) {
                snprintf(err, size, "%s:%u: cannot tokenize", path, line);
                free(text_buf);
                return rc;
        }
        r.constants = json_object();
        r.vectors = json_object();
        r.fills = json_object();
        r.aliases = json_object();
        r.tensors = json_object();
        r.lists = json_object();
        r.arrays = json_object();
        r.scalars = json_object();
        r.files = json_object();
        r.declared = json_object();
        r.strings = json_object();
        r.elems = json_object();
        scan(&r);
        rc = -ENOENT;
        snprintf(err, size, "%s: no aclnn...GetWorkspaceSize call to read the arguments of", path);
        for (size_t i = 0; !r.oom && i < f->tokens.n; i = cxx_tok_next(f, i)) {
                char name[160];
                if (!cxx_tok_is_ident(f, i) || !cxx_tok_eq(f, cxx_tok_next(f, i), "("))
                        continue;
                cxx_tok_copy(f, i, name, sizeof(name));
                if (strncmp(name, "aclnn", 5) != 0 || !strstr(name, "GetWorkspaceSize"))
                        continue;
                n = call_args(&r, cxx_tok_next(f, i), starts, ends, ARRAY_SIZE(starts));
                if (n < 2)
                        continue;
                call = json_pack("{s:s, s:[]}", "call", name, "args");
                r.oom = !call;
                for (size_t k = 0; !r.oom && k + 2 < n; k++) {
                        char var[128], expr[256];
                        json_t *arg;
                        double v;
                        size_t s = starts[k];
                        snprintf(expr, sizeof(expr), "%.*s",
                                 (int)(f->tokens.tokens[cxx_tok_prev(f, ends[k])].start +
                                       f->tokens.tokens[cxx_tok_prev(f, ends[k])].len -
                                       f->tokens.tokens[s].start),
                                 f->text + f->tokens.tokens[s].start);
                        if (cxx_tok_eq(f, s, "nullptr") || cxx_tok_eq(f, s, "NULL"))
                                arg = json_pack("{s:s}", "kind", "null");
                        else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                 json_object_get(r.tensors, cxx_tok_copy(f, s, var, sizeof(var))))
                                arg = tensor_arg(&r, var);
                        else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                 json_object_get(r.declared, var) && !json_object_get(r.lists, var))
                                /* an aclTensor left nullptr: an absent optional input */
                                arg = json_pack("{s:s}", "kind", "null");
                        else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                 json_object_get(r.strings, var))
                                arg = json_pack("{s:s, s:O}", "kind", "value", "value",
                                                json_object_get(r.strings, var));
                        else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                 json_object_get(r.lists, var)) {
                                json_t *items = json_array(), *t;
                                size_t j;
                                json_array_foreach(json_object_get(r.lists, var), j, t)
                                {
                                        if (json_array_append_new(
                                                items, tensor_arg(&r, json_string_value(t))) < 0)
                                                r.oom = true;
                                }
                                arg = json_pack("{s:s, s:o}", "kind", "list", "items", items);
                        } else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                   json_is_object(json_object_get(r.scalars, var))) {
                                /* {file, elem, scalar}: the values are in what gen_data.py writes */
                                arg = json_deep_copy(json_object_get(r.scalars, var));
                                json_object_set_new(arg, "kind", json_string("value"));
                        } else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                   json_object_get(r.scalars, var))
                                arg = json_pack("{s:s, s:O}", "kind", "value", "value",
                                                json_object_get(r.scalars, var));
                        else if (cxx_tok_is_kind(f, s, TOKEN_STRING) &&
                                 cxx_tok_next(f, s) == ends[k]) {
                                char str[256];
                                cxx_tok_copy(f, s, str, sizeof(str));
                                str[strlen(str) - 1] = '\0';
                                arg = json_pack("{s:s, s:s}", "kind", "value", "value", str + 1);
                        } else if ((cxx_tok_eq(f, s, "true") || cxx_tok_eq(f, s, "false")) &&
                                   cxx_tok_next(f, s) == ends[k]) {
                                arg = json_pack("{s:s, s:b}", "kind", "value", "value",
                                                cxx_tok_eq(f, s, "true"));
                        } else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                   json_is_boolean(json_object_get(r.constants, var))) {
                                arg = json_pack("{s:s, s:O}", "kind", "value", "value",
                                                json_object_get(r.constants, var));
                        } else if (eval_range(&r, s, ends[k], &v)) {
                                bool real = has_float_literal(&r, s, ends[k]);
                                if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k]) {
                                        const json_t *c = json_object_get(r.constants, var);
                                        real = json_is_real(c);
                                }
                                arg = json_pack("{s:s, s:o}", "kind", "value", "value",
                                                number_json(v, real));
                        } else if (cxx_tok_is_ident(f, s) && cxx_tok_next(f, s) == ends[k] &&
                                   json_object_get(r.files, resolve(&r, var)) &&
                                   json_object_get(r.elems, var)) {
                                /* a plain scalar main.cpp reads from a file */
                                arg = json_pack("{s:s, s:O, s:O, s:b}", "kind", "value", "file",
                                                json_object_get(r.files, resolve(&r, var)), "elem",
                                                json_object_get(r.elems, var), "scalar", 1);
                        } else
                                arg = json_pack("{s:s}", "kind", "unknown");
                        /* NULL (out of memory) is not appended; once in, arg is args' */
                        if (json_array_append_new(json_object_get(call, "args"), arg) < 0)
                                r.oom = true;
                        else
                                json_object_set_new(arg, "expr", json_string(expr));
                }
                rc = 0;
                break;
        }
        if (r.oom) {
                rc = format_error(err, size, -ENOMEM, "%s: out of memory", path);
                json_decref(call);
        } else if (rc == 0) {
                *ret = call;
        }
        cxx_file_release(&r.file);
        free(text_buf);
        json_decref(r.constants);
        json_decref(r.vectors);
        json_decref(r.fills);
        json_decref(r.aliases);
        json_decref(r.tensors);
        json_decref(r.lists);
        json_decref(r.arrays);
        json_decref(r.scalars);
        json_decref(r.files);
        json_decref(r.declared);
        json_decref(r.strings);
        json_decref(r.elems);
        return rc;
}
