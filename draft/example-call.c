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

#include "optimizer/tokens.h"

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
        const char *text;
        struct token_list tokens;
        json_t *constants; /* name -> number */
        json_t *vectors;   /* name -> [numbers] (shape and host-data vectors) */
        json_t *fills;     /* name -> {n, value} for std::vector<T> v(n[, value]) */
        json_t *aliases;   /* name -> the name it points into (buffers, .data()) */
        json_t *tensors;   /* tensor var -> {shape, dtype, host} */
        json_t *lists;     /* list var -> [tensor vars] */
        json_t *arrays;    /* std::vector<aclTensor*> / aclTensor *a[] -> [tensor vars] */
        json_t *scalars;   /* scalar / int-array var -> value */
        json_t *files;     /* host var -> file */
        json_t *declared;  /* aclTensor *NAME (= nullptr); -> true */
        json_t *strings;   /* char *NAME = "text"; std::string NAME = "text"; -> text */
        json_t *elems;     /* scalar or vector var -> the dtype of its elements */
        bool oom;          /* a json_pack failed: what was read is incomplete */
};

static bool is(const struct reader *r, size_t i, const char *s)
{
        return i < r->tokens.n && token_is(&r->tokens, i, s);
}

static size_t nxt(const struct reader *r, size_t i)
{
        return token_next(&r->tokens, i);
}

static enum token_kind kind(const struct reader *r, size_t i)
{
        return r->tokens.tokens[i].kind;
}

static void text(const struct reader *r, size_t i, char *buf, size_t size)
{
        const struct token *t = &r->tokens.tokens[i];
        snprintf(buf, size, "%.*s", (int)t->len, r->text + t->start);
}

static bool ident(const struct reader *r, size_t i)
{
        return i < r->tokens.n && kind(r, i) == TOKEN_IDENTIFIER;
}

/* ------------------------------------------------------------ expressions */

static bool eval_expr(const struct reader *r, size_t *i, size_t end, double *ret);

/* A number literal: 1, 2.5f, 1e-6, 0x10, 100UL. */
static bool number_literal(const struct reader *r, size_t i, double *ret)
{
        char buf[64], *e;
        text(r, i, buf, sizeof(buf));
        *ret = strtod(buf, &e);
        if (e == buf)
                return false;
        while (*e && strchr("fFlLuU", *e))
                e++;
        return *e == '\0';
}

static bool eval_primary(const struct reader *r, size_t *i, size_t end, double *ret)
{
        char name[128];
        json_t *v;

        if (*i >= end)
                return false;
        if (is(r, *i, "-") || is(r, *i, "+")) {
                bool neg = is(r, *i, "-");
                *i = nxt(r, *i);
                if (!eval_primary(r, i, end, ret))
                        return false;
                *ret = neg ? -*ret : *ret;
                return true;
        }
        if (is(r, *i, "(")) {
                size_t close = token_match(&r->tokens, *i);
                size_t j = nxt(r, *i);
                /* a cast such as (int64_t)x: skip the type */
                if (close < end && ident(r, j) && nxt(r, j) == close &&
                    !json_object_get(r->constants, (text(r, j, name, sizeof(name)), name))) {
                        *i = nxt(r, close);
                        return eval_primary(r, i, end, ret);
                }
                if (close >= end || !eval_expr(r, &j, close, ret) || j != close)
                        return false;
                *i = nxt(r, close);
                return true;
        }
        if (kind(r, *i) == TOKEN_NUMBER) {
                if (!number_literal(r, *i, ret))
                        return false;
                *i = nxt(r, *i);
                return true;
        }
        if (!ident(r, *i))
                return false;
        text(r, *i, name, sizeof(name));
        if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0) {
                *ret = name[0] == 't';
                *i = nxt(r, *i);
                return true;
        }
        *i = nxt(r, *i);
        /* static_cast<T>(x) */
        if ((strcmp(name, "static_cast") == 0) && is(r, *i, "<")) {
                while (*i < end && !is(r, *i, ">"))
                        *i = nxt(r, *i);
                *i = nxt(r, *i);
                return eval_primary(r, i, end, ret);
        }
        /* GetShapeSize(shape): the product of a shape vector */
        if (is(r, *i, "(") && ident(r, nxt(r, *i))) {
                size_t close = token_match(&r->tokens, *i);
                char arg[128];
                size_t k;
                text(r, nxt(r, *i), arg, sizeof(arg));
                v = json_object_get(r->vectors, arg);
                if (!strstr(name, "ShapeSize") || !v || close >= end)
                        return false;
                *ret = 1;
                for (k = 0; k < json_array_size(v); k++)
                        *ret *= json_number_value(json_array_get(v, k));
                *i = nxt(r, close);
                return true;
        }
        /* v[k] of a known vector */
        if (is(r, *i, "[")) {
                size_t close = token_match(&r->tokens, *i), j = nxt(r, *i);
                double k;
                v = json_object_get(r->vectors, name);
                if (!v || close >= end || !eval_expr(r, &j, close, &k) || j != close || k < 0 ||
                    (size_t)k >= json_array_size(v))
                        return false;
                *ret = json_number_value(json_array_get(v, (size_t)k));
                *i = nxt(r, close);
                return true;
        }
        /* v.size() of a known vector */
        if (is(r, *i, ".") && is(r, nxt(r, *i), "size")) {
                v = json_object_get(r->vectors, name);
                if (!v)
                        return false;
                *ret = (double)json_array_size(v);
                *i = nxt(r, nxt(r, nxt(r, nxt(r, *i))));
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
        if (!eval_primary(r, i, end, ret))
                return false;
        while (*i < end && (is(r, *i, "*") || is(r, *i, "/") || is(r, *i, "%"))) {
                char op[2];
                double rhs;
                text(r, *i, op, sizeof(op));
                *i = nxt(r, *i);
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
        if (!eval_term(r, i, end, ret))
                return false;
        while (*i < end && (is(r, *i, "+") || is(r, *i, "-"))) {
                bool minus = is(r, *i, "-");
                double rhs;
                *i = nxt(r, *i);
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
        for (; i < end; i = nxt(r, i)) {
                char buf[64];
                if (kind(r, i) != TOKEN_NUMBER)
                        continue;
                text(r, i, buf, sizeof(buf));
                if (strpbrk(buf, ".eE") && strncmp(buf, "0x", 2) != 0)
                        return true;
        }
        return false;
}

/* {e1, e2, ...} at i (a brace) as numbers; NULL when one cannot be evaluated. */
static json_t *brace_list(const struct reader *r, size_t i, bool real)
{
        size_t close = token_match(&r->tokens, i), j = nxt(r, i);
        json_t *list = json_array();

        while (list && j < close) {
                size_t k = j;
                double v;
                while (k < close && !is(r, k, ","))
                        k = is(r, k, "(") || is(r, k, "{") || is(r, k, "[")
                                ? nxt(r, token_match(&r->tokens, k))
                                : nxt(r, k);
                if (json_array_size(list) == MAX_VALUES || !eval_range(r, j, k, &v)) {
                        json_decref(list);
                        return NULL;
                }
                json_array_append_new(list, number_json(v, real));
                j = k < close ? nxt(r, k) : close;
        }
        return list;
}

/* ------------------------------------------------------------ declarations */

/* The end of the statement starting at i (its ';'), skipping brackets. */
static size_t statement_end(const struct reader *r, size_t i)
{
        while (i < r->tokens.n && !is(r, i, ";")) {
                if (is(r, i, "(") || is(r, i, "{") || is(r, i, "["))
                        i = token_match(&r->tokens, i);
                if (i < r->tokens.n)
                        i = nxt(r, i);
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
        for (const char *const *t = scalar_types; *t; t++)
                if (is(r, i, *t))
                        return true;
        return false;
}

/* "TYPE NAME = EXPR;" and "TYPE NAME(EXPR);" of a scalar type: a constant. */
static void read_constant(struct reader *r, size_t i)
{
        size_t name = nxt(r, i), end;
        char n[128];
        double v;

        while (ident(r, name) && (scalar_type(r, name) || is(r, name, "const")))
                name = nxt(r, name);
        if (is(r, name, "*") || !ident(r, name))
                return;
        end = statement_end(r, name);
        text(r, name, n, sizeof(n));
        /* the element type of each name declared, "T a, b;" too: for values read from files */
        {
                char type[32];
                text(r, token_prev(&r->tokens, name), type, sizeof(type));
                for (size_t k = name; k < end && c_dtype(type); k = nxt(r, k)) {
                        char each[128];
                        if (!ident(r, k) || !(k == name || is(r, token_prev(&r->tokens, k), ",")))
                                continue;
                        text(r, k, each, sizeof(each));
                        json_object_set_new(r->elems, each, json_string(c_dtype(type)));
                        if (is(r, nxt(r, k), "=") || is(r, nxt(r, k), "(") || is(r, nxt(r, k), "{"))
                                break; /* "T a = f(b, c);": b and c are not declared */
                }
        }
        /* a C array, T NAME[N] = {...}: a vector */
        if (is(r, nxt(r, name), "[") && is(r, nxt(r, token_match(&r->tokens, nxt(r, name))), "=") &&
            is(r, nxt(r, nxt(r, token_match(&r->tokens, nxt(r, name)))), "{")) {
                size_t brace = nxt(r, nxt(r, token_match(&r->tokens, nxt(r, name))));
                json_t *list = brace_list(r, brace,
                                          (is(r, i, "float") || is(r, i, "double")) &&
                                              has_float_literal(r, brace, end));
                if (list)
                        json_object_set_new(r->vectors, n, list);
                return;
        }
        if (!is(r, nxt(r, name), "=") || end >= r->tokens.n)
                return;
        if (is(r, i, "bool") &&
            (is(r, nxt(r, nxt(r, name)), "true") || is(r, nxt(r, nxt(r, name)), "false")))
                json_object_set_new(r->constants, n,
                                    json_boolean(is(r, nxt(r, nxt(r, name)), "true")));
        else if (eval_range(r, nxt(r, nxt(r, name)), end, &v))
                json_object_set_new(r->constants, n,
                                    number_json(v, is(r, i, "float") || is(r, i, "double")));
}

/* char *NAME = "text"; const char *NAME = "text"; std::string NAME = "text"; NAME("text") */
static void read_string(struct reader *r, size_t i)
{
        size_t j = i;
        char n[128], str[256];

        while (is(r, j, "const") || is(r, j, "char") || is(r, j, "std") || is(r, j, "::") ||
               is(r, j, "string") || is(r, j, "*"))
                j = nxt(r, j);
        if (j == i || !ident(r, j))
                return;
        text(r, j, n, sizeof(n));
        j = nxt(r, j);
        if (is(r, j, "=") || is(r, j, "(") || is(r, j, "{"))
                j = nxt(r, j);
        if (j >= r->tokens.n || kind(r, j) != TOKEN_STRING)
                return;
        text(r, j, str, sizeof(str));
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
        size_t after = nxt(r, name), end = statement_end(r, name), close;
        bool real = strcmp(elem, "float") == 0 || strcmp(elem, "double") == 0 ||
                    strcmp(elem, "aclFloat16") == 0 || strcmp(elem, "uint16_t") == 0;
        char n[128];

        text(r, name, n, sizeof(n));
        if (c_dtype(elem))
                json_object_set_new(r->elems, n, json_string(c_dtype(elem)));
        if (is(r, after, "="))
                after = nxt(r, after);
        if (!is(r, after, "{") && !is(r, after, "("))
                return after;
        close = token_match(&r->tokens, after);
        if (is(r, after, "{")) {
                if (tensors) {
                        json_t *list = json_array();
                        for (size_t k = nxt(r, after); k < close; k = nxt(r, k))
                                if (ident(r, k)) {
                                        char t[128];
                                        text(r, k, t, sizeof(t));
                                        json_array_append_new(list, json_string(t));
                                }
                        json_object_set_new(r->arrays, n, list);
                        return nxt(r, close);
                }
                json_t *list = brace_list(r, after, real && has_float_literal(r, after, end));
                if (list)
                        json_object_set_new(r->vectors, n, list);
        } else if (!tensors) {
                size_t k = nxt(r, after), comma = k;
                double count, value = 0;
                while (comma < close && !is(r, comma, ","))
                        comma = is(r, comma, "(") || is(r, comma, "[")
                                    ? nxt(r, token_match(&r->tokens, comma))
                                    : nxt(r, comma);
                if (eval_range(r, k, comma, &count) &&
                    (comma >= close || eval_range(r, nxt(r, comma), close, &value)) &&
                    json_object_set_new(
                        r->fills, n,
                        json_pack("{s:f, s:o}", "n", count, "value",
                                  number_json(value, real && comma < close &&
                                                         has_float_literal(r, comma, close)))) < 0)
                        r->oom = true;
        }
        return nxt(r, close);
}

/* std::vector<T> NAME = {...}; NAME{...}; NAME(n[, v]); and "T a(3), b(3);" */
static void read_vector(struct reader *r, size_t i)
{
        size_t j = nxt(r, i), name;
        bool tensors = false;
        char elem[64] = "";

        if (!is(r, j, "<"))
                return;
        j = nxt(r, j);
        if (ident(r, j))
                text(r, j, elem, sizeof(elem));
        while (j < r->tokens.n && !is(r, j, ">")) {
                /* tensors, or scalars for an aclScalarList: their names */
                tensors |= is(r, j, "aclTensor") || is(r, j, "aclScalar");
                j = nxt(r, j);
        }
        name = nxt(r, j);
        while (ident(r, name)) {
                size_t after = read_vector_declarator(r, name, elem, tensors);
                if (!is(r, after, ","))
                        break;
                name = nxt(r, after);
        }
}

/* aclTensor *NAME[] = {a, b}; (and aclTensor *NAME = nullptr; noted as declared) */
static void read_tensor_array(struct reader *r, size_t i)
{
        size_t j = nxt(r, i);
        char n[128];

        if (is(r, j, "*"))
                j = nxt(r, j);
        if (ident(r, j) && (is(r, nxt(r, j), "=") || is(r, nxt(r, j), ";"))) {
                text(r, j, n, sizeof(n));
                json_object_set_new(r->declared, n, json_true());
                return;
        }
        if (!ident(r, j) || !is(r, nxt(r, j), "["))
                return;
        text(r, j, n, sizeof(n));
        j = nxt(r, token_match(&r->tokens, nxt(r, j)));
        if (!is(r, j, "=") || !is(r, nxt(r, j), "{"))
                return;
        j = nxt(r, j);
        json_t *list = json_array();
        for (size_t k = nxt(r, j), close = token_match(&r->tokens, j); k < close; k = nxt(r, k))
                if (ident(r, k)) {
                        char t[128];
                        text(r, k, t, sizeof(t));
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

/* The arguments of the call whose '(' is at open: [start, end) token ranges. */
static size_t call_args(const struct reader *r, size_t open, size_t starts[], size_t ends[],
                        size_t max)
{
        size_t close = token_match(&r->tokens, open), j = nxt(r, open), n = 0;

        while (j < close && n < max) {
                size_t k = j;
                while (k < close && !is(r, k, ",")) {
                        if (is(r, k, "(") || is(r, k, "{") || is(r, k, "[") || (is(r, k, "<") && 0))
                                k = token_match(&r->tokens, k);
                        k = nxt(r, k);
                }
                starts[n] = j;
                ends[n++] = k;
                j = k < close ? nxt(r, k) : close;
        }
        return n;
}

/* The first identifier of [i, end) that is not a cast or keyword, into buf. */
static bool first_name(const struct reader *r, size_t i, size_t end, char *buf, size_t size)
{
        for (; i < end; i = nxt(r, i)) {
                if (!ident(r, i))
                        continue;
                text(r, i, buf, size);
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
        char buf[64];
        for (; i < end; i = nxt(r, i)) {
                if (!ident(r, i))
                        continue;
                text(r, i, buf, sizeof(buf));
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
        size_t starts[16], ends[16];
        char a[128], b[128];

        for (size_t i = 0; i < r->tokens.n; i = nxt(r, i)) {
                if (r->tokens.tokens[i].in_directive || kind(r, i) != TOKEN_IDENTIFIER)
                        continue;
                /* declarations */
                if ((scalar_type(r, i) || is(r, i, "const") || is(r, i, "constexpr")) &&
                    (i == 0 || is(r, token_prev(&r->tokens, i), ";") ||
                     is(r, token_prev(&r->tokens, i), "{") ||
                     is(r, token_prev(&r->tokens, i), "}")))
                        read_constant(r, i);
                if (is(r, i, "vector") && i > 1 && is(r, token_prev(&r->tokens, i), "::"))
                        read_vector(r, i);
                if (is(r, i, "aclTensor") && !is(r, nxt(r, i), ">"))
                        read_tensor_array(r, i);
                if ((is(r, i, "char") || is(r, i, "string")) &&
                    (i == 0 || !is(r, token_prev(&r->tokens, i), "(")))
                        read_string(r, i > 1 && is(r, token_prev(&r->tokens, i), "const")
                                           ? token_prev(&r->tokens, i)
                                       : i > 2 && is(r, token_prev(&r->tokens, i), "::")
                                           ? token_prev(&r->tokens, token_prev(&r->tokens, i))
                                           : i);
                /* NAME = EXPR aliases: "void **input1 = (void **)(&x)", "p = x.data()" */
                if (is(r, nxt(r, i), "=") && !is(r, nxt(r, nxt(r, i)), "=")) {
                        size_t rhs = nxt(r, nxt(r, i)), end = statement_end(r, rhs);
                        text(r, i, a, sizeof(a));
                        for (size_t k = rhs; k < end; k = nxt(r, k)) {
                                if (ident(r, k) && (is(r, token_prev(&r->tokens, k), "&") ||
                                                    is(r, nxt(r, k), "."))) {
                                        text(r, k, b, sizeof(b));
                                        if (strcmp(a, b) != 0)
                                                json_object_set_new(r->aliases, a, json_string(b));
                                        break;
                                }
                        }
                        /* list = aclCreateTensorList(arr.data(), n) or (arr, n) */
                        if (is(r, rhs, "aclCreateTensorList") &&
                            call_args(r, nxt(r, rhs), starts, ends, 16) >= 1 &&
                            first_name(r, starts[0], ends[0], b, sizeof(b)))
                                json_object_set(r->lists, a, json_object_get(r->arrays, b));
                        /* list = aclCreateScalarList(arr.data(), n): the scalars' values */
                        if (is(r, rhs, "aclCreateScalarList") &&
                            call_args(r, nxt(r, rhs), starts, ends, 16) >= 1 &&
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
                        if ((is(r, rhs, "aclCreateScalar") || is(r, rhs, "aclCreateIntArray") ||
                             is(r, rhs, "aclCreateFloatArray") ||
                             is(r, rhs, "aclCreateBoolArray")) &&
                            call_args(r, nxt(r, rhs), starts, ends, 16) >= 1 &&
                            first_name(r, starts[0], ends[0], b, sizeof(b))) {
                                json_t *v = json_object_get(r->constants, b);
                                const json_t *f = json_object_get(r->files, resolve(r, b));
                                v = v ? v : json_object_get(r->vectors, b);
                                if (v)
                                        json_object_set(r->scalars, a, v);
                                else if (f) {
                                        /* values main.cpp reads from a file gen_data.py writes */
                                        const char *elem =
                                            is(r, rhs, "aclCreateIntArray")     ? "int64"
                                            : is(r, rhs, "aclCreateFloatArray") ? "float32"
                                            : is(r, rhs, "aclCreateBoolArray")  ? "bool"
                                            : call_args(r, nxt(r, rhs), starts, ends, 16) >= 2
                                                ? dtype_in(r, starts[1], ends[1])
                                                : NULL;
                                        if (elem &&
                                            json_object_set_new(
                                                r->scalars, a,
                                                json_pack("{s:O, s:s, s:b}", "file", f, "elem",
                                                          elem, "scalar",
                                                          is(r, rhs, "aclCreateScalar"))) < 0)
                                                r->oom = true;
                                }
                        }
                        /* t = aclCreateTensor(shape.data(), shape.size(), ACL_X, ...) */
                        if (is(r, rhs, "aclCreateTensor") &&
                            call_args(r, nxt(r, rhs), starts, ends, 16) >= 3 &&
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
                text(r, i, a, sizeof(a));
                if (strstr(a, "CreateAclTensor") && is(r, nxt(r, i), "(") &&
                    !is(r, token_prev(&r->tokens, i), "int")) {
                        size_t n = call_args(r, nxt(r, i), starts, ends, 16);
                        char host[128] = "", shape[128] = "", tensor[128] = "";
                        const char *dt = NULL;
                        json_t *literal = NULL; /* a shape written in place: {1} */
                        /* the tensor: the &NAME of a declared aclTensor, else the last &NAME */
                        for (size_t k = 0; k < n && !tensor[0]; k++) {
                                char name[128];
                                if (is(r, starts[k], "&") &&
                                    first_name(r, starts[k], ends[k], name, sizeof(name)) &&
                                    json_object_get(r->declared, name))
                                        snprintf(tensor, sizeof(tensor), "%s", name);
                        }
                        for (size_t k = 0; k < n; k++) {
                                char name[128];
                                if (is(r, starts[k], "{")) {
                                        if (!literal && host[0])
                                                literal = brace_list(r, starts[k], false);
                                        continue;
                                }
                                if (!first_name(r, starts[k], ends[k], name, sizeof(name)))
                                        continue;
                                if (!dt && (dt = dtype_in(r, starts[k], ends[k])))
                                        continue;
                                if (tensor[0] && is(r, starts[k], "&"))
                                        continue;
                                if (k == n - 1 && is(r, starts[k], "&"))
                                        snprintf(tensor, sizeof(tensor), "%s", name);
                                else if (!shape[0] && host[0] &&
                                         (json_object_get(r->vectors, name) ||
                                          json_object_get(r->files, resolve(r, name))) &&
                                         !is(r, starts[k], "&"))
                                        snprintf(shape, sizeof(shape), "%s", name);
                                else if (!host[0] && !is(r, starts[k], "&"))
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
                if (is(r, i, "ReadFile") && is(r, nxt(r, i), "(") &&
                    kind(r, nxt(r, nxt(r, i))) == TOKEN_STRING) {
                        size_t n = call_args(r, nxt(r, i), starts, ends, 16);
                        char path[PATH_MAX];
                        const char *p;
                        text(r, starts[0], path, sizeof(path));
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
        rc = tokenize(text_buf, len, &r.tokens, &line);
        if (rc < 0) {
                snprintf(err, size, "%s:%u: cannot tokenize", path, line);
                free(text_buf);
                return rc;
        }
        r.text = text_buf;
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
        for (size_t i = 0; !r.oom && i < r.tokens.n; i = nxt(&r, i)) {
                char name[160];
                if (!ident(&r, i) || !is(&r, nxt(&r, i), "("))
                        continue;
                text(&r, i, name, sizeof(name));
                if (strncmp(name, "aclnn", 5) != 0 || !strstr(name, "GetWorkspaceSize"))
                        continue;
                n = call_args(&r, nxt(&r, i), starts, ends, ARRAY_SIZE(starts));
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
                                 (int)(r.tokens.tokens[token_prev(&r.tokens, ends[k])].start +
                                       r.tokens.tokens[token_prev(&r.tokens, ends[k])].len -
                                       r.tokens.tokens[s].start),
                                 r.text + r.tokens.tokens[s].start);
                        if (is(&r, s, "nullptr") || is(&r, s, "NULL"))
                                arg = json_pack("{s:s}", "kind", "null");
                        else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
                                 (text(&r, s, var, sizeof(var)), json_object_get(r.tensors, var)))
                                arg = tensor_arg(&r, var);
                        else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
                                 json_object_get(r.declared, var) && !json_object_get(r.lists, var))
                                /* an aclTensor left nullptr: an absent optional input */
                                arg = json_pack("{s:s}", "kind", "null");
                        else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
                                 json_object_get(r.strings, var))
                                arg = json_pack("{s:s, s:O}", "kind", "value", "value",
                                                json_object_get(r.strings, var));
                        else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
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
                        } else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
                                   json_is_object(json_object_get(r.scalars, var))) {
                                /* {file, elem, scalar}: the values are in what gen_data.py writes */
                                arg = json_deep_copy(json_object_get(r.scalars, var));
                                json_object_set_new(arg, "kind", json_string("value"));
                        } else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
                                   json_object_get(r.scalars, var))
                                arg = json_pack("{s:s, s:O}", "kind", "value", "value",
                                                json_object_get(r.scalars, var));
                        else if (kind(&r, s) == TOKEN_STRING && nxt(&r, s) == ends[k]) {
                                char str[256];
                                text(&r, s, str, sizeof(str));
                                str[strlen(str) - 1] = '\0';
                                arg = json_pack("{s:s, s:s}", "kind", "value", "value", str + 1);
                        } else if ((is(&r, s, "true") || is(&r, s, "false")) &&
                                   nxt(&r, s) == ends[k]) {
                                arg = json_pack("{s:s, s:b}", "kind", "value", "value",
                                                is(&r, s, "true"));
                        } else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
                                   json_is_boolean(json_object_get(r.constants, var))) {
                                arg = json_pack("{s:s, s:O}", "kind", "value", "value",
                                                json_object_get(r.constants, var));
                        } else if (eval_range(&r, s, ends[k], &v)) {
                                bool real = has_float_literal(&r, s, ends[k]);
                                if (ident(&r, s) && nxt(&r, s) == ends[k]) {
                                        const json_t *c = json_object_get(r.constants, var);
                                        real = json_is_real(c);
                                }
                                arg = json_pack("{s:s, s:o}", "kind", "value", "value",
                                                number_json(v, real));
                        } else if (ident(&r, s) && nxt(&r, s) == ends[k] &&
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
        token_list_release(&r.tokens);
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
