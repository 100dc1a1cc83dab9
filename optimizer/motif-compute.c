/* SPDX-License-Identifier: MIT */
/*
 * Motifs about vector compute: vectorising scalar loops, hoisting
 * loop-invariant Duplicates, fusing Muls + Add into Axpy, and computing a
 * temporary in place to free a UB buffer.
 */
#include "motifs-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cxx_file *kernel_of(struct motif_scan *scan)
{
        return &scan->files[scan->kernel];
}

static bool same_tok(const struct cxx_file *f, size_t a, size_t b)
{
        return a != CXX_NONE && b != CXX_NONE && cxx_tok_len(f, a) == cxx_tok_len(f, b) &&
               memcmp(cxx_tok_text(f, a), cxx_tok_text(f, b), cxx_tok_len(f, a)) == 0;
}

/* "for (T v = 0; v < N; v++)" as in motif-copy.c, kept local. */
static bool counted_loop(const struct cxx_file *f, size_t s, size_t *ret_var, size_t *ret_n1,
                         size_t *ret_n2, size_t *ret_close)
{
        size_t p = cxx_tok_next(f, s), close, s1 = CXX_NONE, s2 = CXX_NONE, v, j;

        if (!cxx_tok_eq(f, s, "for") || !cxx_tok_eq(f, p, "("))
                return false;
        close = token_match(&f->tokens, p);
        if (close >= f->tokens.n)
                return false;
        for (j = cxx_tok_next(f, p); j < close; j = cxx_tok_next(f, j)) {
                if (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "["))
                        j = token_match(&f->tokens, j);
                else if (cxx_tok_eq(f, j, ";") && s1 == CXX_NONE)
                        s1 = j;
                else if (cxx_tok_eq(f, j, ";"))
                        s2 = j;
        }
        if (s1 == CXX_NONE || s2 == CXX_NONE)
                return false;
        v = cxx_tok_prev(f, cxx_tok_prev(f, cxx_tok_prev(f, s1)));
        if (!cxx_tok_is_ident(f, v) || !cxx_tok_eq(f, cxx_tok_next(f, v), "=") ||
            !cxx_tok_is_number(f, cxx_tok_next(f, cxx_tok_next(f, v)), "0") ||
            !cxx_tok_is_ident(f, cxx_tok_prev(f, v)))
                return false;
        j = cxx_tok_next(f, s1);
        if (!same_tok(f, j, v) || !cxx_tok_eq(f, cxx_tok_next(f, j), "<") ||
            cxx_tok_next(f, cxx_tok_next(f, j)) >= s2)
                return false;
        *ret_n1 = cxx_tok_next(f, cxx_tok_next(f, j));
        *ret_n2 = cxx_tok_prev(f, s2);
        if (cxx_range_mentions(f, *ret_n1, *ret_n2, cxx_tok_text(f, v), cxx_tok_len(f, v)))
                return false;
        j = cxx_tok_next(f, s2);
        if (!((cxx_tok_eq(f, j, "++") && same_tok(f, cxx_tok_next(f, j), v) &&
               cxx_tok_next(f, cxx_tok_next(f, j)) == close) ||
              (same_tok(f, j, v) && cxx_tok_eq(f, cxx_tok_next(f, j), "++") &&
               cxx_tok_next(f, cxx_tok_next(f, j)) == close)))
                return false;
        *ret_var = v;
        *ret_close = close;
        return true;
}

/* ================================================================ vectorise */

static const struct {
        const char *op, *api, *scalar_api;
} binary_ops[] = {
        { "+", "Add", "Adds" },
        { "-", "Sub", NULL },
        { "*", "Mul", "Muls" },
        { "/", "Div", NULL },
};

/* "X.GetValue(v)" at i: the tensor token, and *ret_end the ')' */
static size_t get_value(const struct cxx_file *f, size_t i, size_t v, size_t *ret_end)
{
        size_t dot = cxx_tok_next(f, i), gv = cxx_tok_next(f, dot), open = cxx_tok_next(f, gv);

        if (!cxx_tok_is_ident(f, i) || !cxx_tok_eq(f, dot, ".") || !cxx_tok_eq(f, gv, "GetValue") ||
            !cxx_tok_eq(f, open, "(") || !same_tok(f, cxx_tok_next(f, open), v) ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, open)), ")"))
                return CXX_NONE;
        *ret_end = cxx_tok_next(f, cxx_tok_next(f, open));
        return i;
}

static int vectorize_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                  const struct cxx_func *funcs, const struct cxx_stmt *st,
                                  void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        size_t v, n1, n2, close, body, s, last, z, open, a, b, x, y = CXX_NONE, xe, ye, opi, k;
        const char *api = NULL;
        char *tz = NULL, *tx = NULL, *ty = NULL, *zs = NULL, *xs = NULL, *ys = NULL, *ns = NULL,
             *text = NULL;
        int r = 0;

        if (st->block == CXX_NONE || !counted_loop(f, st->first, &v, &n1, &n2, &close))
                return 0;
        body = cxx_tok_next(f, close);
        s = cxx_tok_eq(f, body, "{") ? cxx_tok_next(f, body) : body;
        last = cxx_stmt_last(f, s);
        if (cxx_tok_eq(f, body, "{") && cxx_tok_next(f, last) != cxx_stmt_last(f, body))
                return 0;
        /* Z.SetValue(v, E); */
        z = s;
        if (!cxx_tok_is_ident(f, z) || !cxx_tok_eq(f, cxx_tok_next(f, z), ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, z)), "SetValue"))
                return 0;
        open = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, z)));
        if (!cxx_tok_eq(f, open, "(") || !same_tok(f, cxx_tok_next(f, open), v) ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, open)), ",") ||
            cxx_tok_next(f, token_match(&f->tokens, open)) != last)
                return 0;
        a = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, open)));
        b = cxx_tok_prev(f, token_match(&f->tokens, open));
        /* strip one cast "(T)" and the parentheses around the expression */
        for (;;) {
                if (cxx_tok_eq(f, a, "(") && token_match(&f->tokens, a) == b) {
                        a = cxx_tok_next(f, a);
                        b = cxx_tok_prev(f, b);
                } else if (cxx_tok_eq(f, a, "(") && cxx_tok_is_ident(f, cxx_tok_next(f, a)) &&
                           cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, a)), ")") &&
                           cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, a))),
                                      "(")) {
                        a = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, a)));
                } else {
                        break;
                }
        }
        x = get_value(f, a, v, &xe);
        if (x == CXX_NONE)
                return 0;
        opi = cxx_tok_next(f, xe);
        for (k = 0; k < sizeof(binary_ops) / sizeof(*binary_ops); k++)
                if (cxx_tok_eq(f, opi, binary_ops[k].op))
                        break;
        if (k == sizeof(binary_ops) / sizeof(*binary_ops) || cxx_tok_next(f, opi) > b)
                return 0;
        y = get_value(f, cxx_tok_next(f, opi), v, &ye);
        if (y != CXX_NONE && ye == b) {
                api = binary_ops[k].api;
        } else if (binary_ops[k].scalar_api &&
                   !cxx_range_mentions(f, cxx_tok_next(f, opi), b, cxx_tok_text(f, v),
                                       cxx_tok_len(f, v)) &&
                   !cxx_range_mentions(f, cxx_tok_next(f, opi), b, "GetValue", 8)) {
                api = binary_ops[k].scalar_api;
                y = CXX_NONE;
        } else {
                return 0;
        }
        tz = local_tensor_type(f, func, z);
        tx = local_tensor_type(f, func, x);
        ty = y != CXX_NONE ? local_tensor_type(f, func, y) : strdup("");
        if (!tz || !tx || !ty || strcmp(tz, tx) != 0 || (y != CXX_NONE && strcmp(tz, ty) != 0) ||
            strcmp(tz, "bfloat16_t") == 0)
                goto out;
        zs = cxx_range_dup(f, z, z);
        xs = cxx_range_dup(f, x, x);
        ys = y != CXX_NONE ? cxx_range_dup(f, y, y) : cxx_range_dup(f, cxx_tok_next(f, opi), b);
        ns = cxx_range_dup(f, n1, n2);
        if (!zs || !xs || !ys || !ns)
                goto out;
        if (y != CXX_NONE)
                text = str_printf("%s(%s, %s, %s, %s);", api, zs, xs, ys, ns);
        else
                text = str_printf("%s(%s, %s, (%s)(%s), %s);", api, zs, xs, tz, ys, ns);
        site_begin(scan, f, st->first, "the scalar loop over %s is one %s", ns, api);
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(tz);
        free(tx);
        free(ty);
        free(zs);
        free(xs);
        free(ys);
        free(ns);
        free(text);
        return r;
}

int motif_vectorize_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), vectorize_forward_stmt, NULL);
}

static int vectorize_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                                  const struct cxx_func *funcs, const struct cxx_stmt *st,
                                  void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        const char *op = NULL;
        bool scalar = false;
        size_t z, x, y = CXX_NONE;
        char var[32], *tz = NULL, *tx = NULL, *ty = NULL, *zs = NULL, *xs = NULL, *ys = NULL,
                      *ns = NULL, *indent = NULL, *text = NULL;
        int r = 0;

        if (st->block == CXX_NONE || !cxx_stmt_call(f, st->first, st->last, &c) ||
            c.obj != CXX_NONE || c.n_args != 4)
                return 0;
        for (size_t k = 0; k < sizeof(binary_ops) / sizeof(*binary_ops); k++) {
                if (cxx_call_is(f, &c, binary_ops[k].api))
                        op = binary_ops[k].op;
                else if (binary_ops[k].scalar_api && cxx_call_is(f, &c, binary_ops[k].scalar_api))
                        op = binary_ops[k].op, scalar = true;
        }
        if (!op)
                return 0;
        z = cxx_arg_ident(f, &c.args[0]);
        x = cxx_arg_ident(f, &c.args[1]);
        if (!scalar)
                y = cxx_arg_ident(f, &c.args[2]);
        tz = local_tensor_type(f, func, z);
        tx = local_tensor_type(f, func, x);
        ty = scalar ? strdup("") : local_tensor_type(f, func, y);
        if (!tz || !tx || !ty || strcmp(tz, tx) != 0 || (!scalar && strcmp(tz, ty) != 0) ||
            strcmp(tz, "bfloat16_t") == 0)
                goto out;
        cxx_fresh_name(f, "i", var, sizeof(var));
        if (cxx_range_mentions(f, func->open, func->close, var, strlen(var)))
                cxx_fresh_name(f, "motifI", var, sizeof(var));
        zs = cxx_range_dup(f, z, z);
        xs = cxx_range_dup(f, x, x);
        ys = scalar ? cxx_range_dup(f, c.args[2].first, c.args[2].last) : cxx_range_dup(f, y, y);
        ns = cxx_range_dup(f, c.args[3].first, c.args[3].last);
        indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
        if (!zs || !xs || !ys || !ns || !indent)
                goto out;
        if (scalar)
                text = str_printf("for (uint32_t %s = 0; %s < %s; %s++)\n%s%s%s.SetValue(%s, "
                                  "(%s)(%s.GetValue(%s) %s %s));",
                                  var, var, ns, var, indent, cxx_indent_unit(f), zs, var, tz, xs,
                                  var, op, ys);
        else
                text = str_printf("for (uint32_t %s = 0; %s < %s; %s++)\n%s%s%s.SetValue(%s, "
                                  "(%s)(%s.GetValue(%s) %s %s.GetValue(%s)));",
                                  var, var, ns, var, indent, cxx_indent_unit(f), zs, var, tz, xs,
                                  var, op, ys, var);
        site_begin(scan, f, st->first, "expand %.*s into a scalar loop",
                   (int)cxx_tok_len(f, c.name), cxx_tok_text(f, c.name));
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(tz);
        free(tx);
        free(ty);
        free(zs);
        free(xs);
        free(ys);
        free(ns);
        free(indent);
        free(text);
        return r;
}

int motif_vectorize_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), vectorize_inverse_stmt, NULL);
}

/* ================================================================ hoist Duplicate */

/* Whether identifier i's occurrence at k is modified or declared there. */
static bool modified_at(const struct cxx_file *f, size_t k)
{
        size_t nx = cxx_tok_next(f, k), p = cxx_tok_prev(f, k);

        return cxx_tok_eq(f, nx, "=") || cxx_tok_eq(f, nx, "+=") || cxx_tok_eq(f, nx, "-=") ||
               cxx_tok_eq(f, nx, "*=") || cxx_tok_eq(f, nx, "/=") || cxx_tok_eq(f, nx, "++") ||
               cxx_tok_eq(f, nx, "--") || cxx_tok_eq(f, p, "++") || cxx_tok_eq(f, p, "--") ||
               (p != CXX_NONE && (cxx_tok_is_ident(f, p) || cxx_tok_eq(f, p, ">")) &&
                !cxx_tok_eq(f, p, "return"));
}

/* Whether [a, b] is invariant in loop range [la, lb]: no name in it changes there. */
static bool invariant(const struct cxx_file *f, size_t a, size_t b, size_t la, size_t lb)
{
        for (size_t i = a; i <= b; i = cxx_tok_next(f, i)) {
                if (!cxx_tok_is_ident(f, i))
                        continue;
                if (cxx_tok_eq(f, cxx_tok_next(f, i), "(") && !cxx_tok_eq(f, i, "sizeof"))
                        return false;
                for (size_t k = la; k <= lb; k = cxx_tok_next(f, k))
                        if (same_tok(f, k, i) && modified_at(f, k))
                                return false;
        }
        return true;
}

/* Whether the loop [la, lb] only reads tensor d, as a later argument of an API call. */
static bool only_read(const struct cxx_file *f, size_t d, size_t la, size_t lb, size_t skip_a,
                      size_t skip_b)
{
        for (size_t k = la; k <= lb; k = cxx_tok_next(f, k)) {
                size_t open, name;
                if (k >= skip_a && k <= skip_b)
                        continue;
                if (!same_tok(f, k, d))
                        continue;
                if (!cxx_tok_eq(f, cxx_tok_prev(f, k), ","))
                        return false;
                open = cxx_bracket_open(f, cxx_tok_prev(f, k));
                for (size_t j = cxx_tok_prev(f, k); j != CXX_NONE && j > la;
                     j = cxx_tok_prev(f, j)) {
                        if (cxx_tok_eq(f, j, ")") || cxx_tok_eq(f, j, "]") ||
                            cxx_tok_eq(f, j, "}")) {
                                j = cxx_bracket_open(f, j);
                                continue;
                        }
                        if (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "[") ||
                            cxx_tok_eq(f, j, "{")) {
                                open = j;
                                break;
                        }
                }
                name = open == CXX_NONE ? CXX_NONE : cxx_tok_prev(f, open);
                if (name == CXX_NONE || !cxx_tok_eq(f, open, "(") ||
                    !(is_vector_api(f, name) || cxx_tok_eq(f, name, "DataCopy") ||
                      cxx_tok_eq(f, name, "DataCopyPad")))
                        return false;
        }
        return true;
}

static bool duplicate_call(const struct cxx_file *f, size_t first, size_t last, struct cxx_call *c)
{
        return cxx_stmt_call(f, first, last, c) && cxx_call_is(f, c, "Duplicate") &&
               c->obj == CXX_NONE && c->n_args == 3 && cxx_arg_ident(f, &c->args[0]) != CXX_NONE;
}

static int hoist_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                              const struct cxx_func *funcs, const struct cxx_stmt *st,
                              void *userdata)
{
        struct cxx_call c;
        struct motif_decl d;
        size_t loop = st->loop, body, la, lb, dst;
        char *text;
        int r;

        if (st->block == CXX_NONE || loop == CXX_NONE ||
            !duplicate_call(f, st->first, st->last, &c))
                return 0;
        /* directly in the loop's body block */
        body = cxx_tok_next(f, token_match(&f->tokens, cxx_tok_next(f, loop)));
        if (!cxx_tok_eq(f, loop, "for") && !cxx_tok_eq(f, loop, "while"))
                return 0;
        if (body != st->block)
                return 0;
        la = loop;
        lb = cxx_stmt_last(f, loop);
        dst = c.args[0].first;
        if (!decl_of(f, &funcs[st->func], dst, &d) || (d.name >= la && d.name <= lb))
                return 0;
        if (!invariant(f, c.args[1].first, c.args[1].last, la, lb) ||
            !invariant(f, c.args[2].first, c.args[2].last, la, lb) ||
            !only_read(f, dst, la, lb, st->first, st->last))
                return 0;
        /* the loop statement itself must sit in a block */
        {
                size_t p = cxx_tok_prev(f, loop);
                if (p == CXX_NONE ||
                    !(cxx_tok_eq(f, p, ";") || cxx_tok_eq(f, p, "{") || cxx_tok_eq(f, p, "}")))
                        return 0;
        }
        text = cxx_range_dup(f, st->first, cxx_with_trailing_comment(f, st->last));
        site_begin(scan, f, st->first, "hoist Duplicate(%.*s, ...) out of the loop",
                   (int)cxx_tok_len(f, dst), cxx_tok_text(f, dst));
        if (text) {
                site_delete_stmt(scan, f, st->first, cxx_with_trailing_comment(f, st->last));
                site_insert_before(scan, f, loop, text);
        } else {
                site_fail(scan);
        }
        free(text);
        r = site_end(scan);
        return r;
}

/*
 * The function form: "Duplicate(d, LITERAL, count);" at the top of a
 * function the tile loop calls (Compute(count)), d a TBuf's tensor that
 * the function only reads afterwards and nothing else ever writes.  The
 * constant is written once instead, right after the TBuf's "InitBuffer(b,
 * n * sizeof(T))" in another function (Init): "Duplicate(b.Get<T>(),
 * LITERAL, n);", the whole buffer.  rsqrt and reciprocal refill a tile of
 * ones every tile; reciprocal's expert fills it once.
 */
struct tbuf_fill {
        size_t buf;                   /* the TBuf's token in "b.Get" */
        size_t get_first, get_last;   /* "LocalTensor<T> d = b.Get<T>();" */
        size_t init_first, init_last; /* "pipe.InitBuffer(b, n * sizeof(T));" */
        size_t n_first, n_last;       /* n */
        size_t type_first, type_last; /* T of the sizeof */
};

/* "LocalTensor<T> d = b.Get<T>();" declaring d in func, and b's InitBuffer elsewhere. */
static bool tbuf_fill_of(const struct cxx_file *f, const struct cxx_func *func, size_t d,
                         struct tbuf_fill *t)
{
        struct motif_decl dd, bd;
        size_t eq, dot, init = CXX_NONE;
        struct cxx_call c;

        if (!decl_find(f, func->open, func->close, cxx_tok_text(f, d), cxx_tok_len(f, d), &dd) ||
            !decl_is(f, &dd, "LocalTensor") || dd.n_declarators != 1)
                return false;
        eq = cxx_tok_next(f, dd.name);
        t->buf = cxx_tok_next(f, eq);
        dot = cxx_tok_next(f, t->buf);
        if (!cxx_tok_eq(f, eq, "=") || !cxx_tok_eq(f, dot, ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, dot), "Get") || !decl_of(f, func, t->buf, &bd) ||
            !decl_is(f, &bd, "TBuf") || ident_count(f, 0, f->tokens.n - 1, t->buf) != 3)
                return false;
        t->get_first = dd.first;
        t->get_last = dd.last;
        for (size_t i = 0; i < f->tokens.n && init == CXX_NONE; i++) {
                size_t first;
                if (!cxx_tok_eq(f, i, "InitBuffer"))
                        continue;
                first = cxx_stmt_first(f, i);
                if (cxx_stmt_call(f, first, cxx_stmt_last(f, first), &c) && c.name == i &&
                    c.n_args == 2 && c.args[0].first == c.args[0].last &&
                    same_tok(f, c.args[0].first, t->buf))
                        init = first;
        }
        if (init == CXX_NONE || (init > func->open && init < func->close))
                return false;
        t->init_first = init;
        t->init_last = cxx_stmt_last(f, init);
        /* n * sizeof(T): n's tokens and T's */
        {
                size_t last = c.args[1].last, close = last, type_last = cxx_tok_prev(f, close),
                       open = cxx_bracket_open(f, close), so = cxx_tok_prev(f, open),
                       star = cxx_tok_prev(f, so);
                if (!cxx_tok_eq(f, close, ")") || open == CXX_NONE ||
                    !cxx_tok_eq(f, so, "sizeof") || !cxx_tok_eq(f, star, "*") ||
                    star == c.args[1].first || cxx_tok_next(f, open) > type_last)
                        return false;
                t->type_first = cxx_tok_next(f, open);
                t->type_last = type_last;
                t->n_first = c.args[1].first;
                t->n_last = cxx_tok_prev(f, star);
                for (size_t i = t->n_first; i <= t->n_last; i = cxx_tok_next(f, i))
                        if (cxx_tok_eq(f, i, "+") || cxx_tok_eq(f, i, "-") || cxx_tok_eq(f, i, "?"))
                                return false; /* "a + b * sizeof(T)" is not n * sizeof(T) */
        }
        return true;
}

/* Whether tensor d is the first argument of a call (written) or set by SetValue in [a, b]. */
static bool written_in(const struct cxx_file *f, size_t a, size_t b, size_t d)
{
        for (size_t i = a; i != CXX_NONE && i <= b; i = cxx_tok_next(f, i))
                if (same_tok(f, i, d) &&
                    (cxx_tok_eq(f, cxx_tok_prev(f, i), "(") ||
                     (cxx_tok_eq(f, cxx_tok_next(f, i), ".") &&
                      cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "SetValue"))))
                        return true;
        return false;
}

static int hoist_fn_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        struct tbuf_fill t;
        size_t d;
        char *text;

        (void)userdata;
        if (func->entry || st->block != func->open || st->loop != CXX_NONE || st->in_branch ||
            !duplicate_call(f, st->first, st->last, &c) || c.args[1].first != c.args[1].last ||
            !cxx_tok_is_kind(f, c.args[1].first, TOKEN_NUMBER))
                return 0;
        d = c.args[0].first;
        if (!tbuf_fill_of(f, func, d, &t) ||
            written_in(f, cxx_tok_next(f, st->last), func->close, d) ||
            ident_count(f, func->open, st->first, d) != 1 /* its declaration */)
                return 0;
        text = str_printf("Duplicate(%.*s.Get<%.*s>(), %.*s, %.*s);", (int)cxx_tok_len(f, t.buf),
                          cxx_tok_text(f, t.buf),
                          (int)(cxx_tok_end(f, t.type_last) - f->tokens.tokens[t.type_first].start),
                          f->text + f->tokens.tokens[t.type_first].start,
                          (int)cxx_tok_len(f, c.args[1].first), cxx_tok_text(f, c.args[1].first),
                          (int)(cxx_tok_end(f, t.n_last) - f->tokens.tokens[t.n_first].start),
                          f->text + f->tokens.tokens[t.n_first].start);
        site_begin(scan, f, st->first, "fill %.*s once, after its InitBuffer",
                   (int)cxx_tok_len(f, t.buf), cxx_tok_text(f, t.buf));
        if (text) {
                site_delete_stmt(scan, f, st->first, cxx_with_trailing_comment(f, st->last));
                site_insert_after(scan, f, t.init_first, t.init_last, text);
        } else {
                site_fail(scan);
        }
        free(text);
        return site_end(scan);
}

int motif_hoist_forward(struct motif_scan *scan)
{
        int r = walk_statements(scan, kernel_of(scan), hoist_forward_stmt, NULL);

        return r < 0 ? r : walk_statements(scan, kernel_of(scan), hoist_fn_forward_stmt, NULL);
}

static int hoist_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                              const struct cxx_func *funcs, const struct cxx_stmt *st,
                              void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        size_t loop, close, body, first, lb, dst;
        char *text;

        if (st->block == CXX_NONE || !duplicate_call(f, st->first, st->last, &c))
                return 0;
        loop = cxx_stmt_after(f, st->last, st->block);
        if (loop == CXX_NONE || !(cxx_tok_eq(f, loop, "for") || cxx_tok_eq(f, loop, "while")))
                return 0;
        close = token_match(&f->tokens, cxx_tok_next(f, loop));
        body = cxx_tok_next(f, close);
        lb = cxx_stmt_last(f, loop);
        if (!cxx_tok_eq(f, body, "{"))
                return 0;
        first = cxx_tok_next(f, body);
        dst = c.args[0].first;
        if (first >= lb || !invariant(f, c.args[1].first, c.args[1].last, loop, lb) ||
            !invariant(f, c.args[2].first, c.args[2].last, loop, lb) ||
            !only_read(f, dst, loop, lb, CXX_NONE, CXX_NONE) ||
            cxx_range_mentions(f, cxx_tok_next(f, lb), func->close, cxx_tok_text(f, dst),
                               cxx_tok_len(f, dst)))
                return 0;
        text = cxx_range_dup(f, st->first, cxx_with_trailing_comment(f, st->last));
        site_begin(scan, f, st->first, "move Duplicate(%.*s, ...) into the loop",
                   (int)cxx_tok_len(f, dst), cxx_tok_text(f, dst));
        if (text) {
                site_delete_stmt(scan, f, st->first, cxx_with_trailing_comment(f, st->last));
                site_insert_before(scan, f, first, text);
        } else {
                site_fail(scan);
        }
        free(text);
        return site_end(scan);
}

/*
 * The function form's inverse: "Duplicate(b.Get<T>(), LITERAL, n);" goes
 * back into the function that takes b's tensor, "LocalTensor<T> d =
 * b.Get<T>();", right after that declaration, with the count of the
 * first vector instruction there that reads d (the tile's count).
 */
static int hoist_fn_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        const size_t n_funcs = *(const size_t *)userdata;
        struct cxx_call c, use;
        size_t buf, d = CXX_NONE, decl_last = CXX_NONE, count_first = CXX_NONE, count_last = 0;
        const struct cxx_func *home = NULL;
        char *text;

        if (!cxx_stmt_call(f, st->first, st->last, &c) || !cxx_call_is(f, &c, "Duplicate") ||
            c.obj != CXX_NONE || c.n_args != 3 || c.args[1].first != c.args[1].last ||
            !cxx_tok_is_kind(f, c.args[1].first, TOKEN_NUMBER))
                return 0;
        /* "b.Get<T>()" */
        buf = c.args[0].first;
        if (!cxx_tok_is_ident(f, buf) || !cxx_tok_eq(f, cxx_tok_next(f, buf), ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, buf)), "Get") ||
            ident_count(f, 0, f->tokens.n - 1, buf) != 4)
                return 0;
        /* the other function's "LocalTensor<T> d = b.Get<T>();" */
        for (size_t k = 0; k < n_funcs && d == CXX_NONE; k++) {
                if (k == st->func)
                        continue;
                for (size_t i = funcs[k].open; i < funcs[k].close; i = cxx_tok_next(f, i)) {
                        struct motif_decl dd;
                        if (!same_tok(f, i, buf) || !cxx_tok_eq(f, cxx_tok_prev(f, i), "=") ||
                            !decl_find(f, funcs[k].open, funcs[k].close,
                                       cxx_tok_text(f, cxx_tok_prev(f, cxx_tok_prev(f, i))),
                                       cxx_tok_len(f, cxx_tok_prev(f, cxx_tok_prev(f, i))), &dd) ||
                            !decl_is(f, &dd, "LocalTensor") || dd.last < i)
                                continue;
                        d = dd.name;
                        decl_last = dd.last;
                        home = &funcs[k];
                        break;
                }
        }
        if (d == CXX_NONE)
                return 0;
        /* the count of the first vector instruction that reads d */
        for (size_t i = cxx_tok_next(f, decl_last); i < home->close && count_first == CXX_NONE;
             i = cxx_tok_next(f, i)) {
                size_t first;
                if (!same_tok(f, i, d) || cxx_tok_eq(f, cxx_tok_prev(f, i), "("))
                        continue;
                first = cxx_stmt_first(f, i);
                if (cxx_stmt_call(f, first, cxx_stmt_last(f, first), &use) &&
                    is_vector_api(f, use.name) && use.n_args >= 3) {
                        count_first = use.args[use.n_args - 1].first;
                        count_last = use.args[use.n_args - 1].last;
                }
        }
        if (count_first == CXX_NONE)
                return 0;
        text =
            str_printf("Duplicate(%.*s, %.*s, %.*s);", (int)cxx_tok_len(f, d), cxx_tok_text(f, d),
                       (int)cxx_tok_len(f, c.args[1].first), cxx_tok_text(f, c.args[1].first),
                       (int)(cxx_tok_end(f, count_last) - f->tokens.tokens[count_first].start),
                       f->text + f->tokens.tokens[count_first].start);
        site_begin(scan, f, st->first, "fill %.*s in every call again", (int)cxx_tok_len(f, buf),
                   cxx_tok_text(f, buf));
        if (text) {
                site_delete_stmt(scan, f, st->first, cxx_with_trailing_comment(f, st->last));
                site_insert_after(scan, f, cxx_stmt_first(f, decl_last), decl_last, text);
        } else {
                site_fail(scan);
        }
        free(text);
        return site_end(scan);
}

int motif_hoist_inverse(struct motif_scan *scan)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n_funcs = 0;
        int r = walk_statements(scan, f, hoist_inverse_stmt, NULL);

        if (r == 0)
                r = cxx_funcs_find(f, &funcs, &n_funcs);
        if (r == 0)
                r = walk_statements(scan, f, hoist_fn_inverse_stmt, &n_funcs);
        free(funcs);
        return r;
}

/* ================================================================ Axpy */

/* Whether tensor x is dead after token from in the function: only freed or reassigned. */
static bool dead_after(const struct cxx_file *f, const struct cxx_func *func, size_t x, size_t from)
{
        for (size_t k = cxx_tok_next(f, from); k < func->close; k = cxx_tok_next(f, k)) {
                size_t p;
                if (!same_tok(f, k, x))
                        continue;
                p = cxx_tok_prev(f, k);
                if (cxx_tok_eq(f, cxx_tok_next(f, k), "=") &&
                    !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, k)), "="))
                        return true;
                if (cxx_tok_eq(f, p, "(") && cxx_tok_eq(f, cxx_tok_prev(f, p), "FreeTensor"))
                        continue;
                return false;
        }
        return true;
}

static bool axpy_types(const char *d, const char *x)
{
        return strcmp(d, x) == 0 && strcmp(d, "bfloat16_t") != 0 && strstr(d, "int") == NULL;
}

static int axpy_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                             const struct cxx_func *funcs, const struct cxx_stmt *st,
                             void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call m, a;
        size_t next, add, t, x, d;
        char *td = NULL, *tx = NULL, *ds = NULL, *xs = NULL, *ss = NULL, *ns = NULL, *text = NULL;
        int r = 0;

        if (st->block == CXX_NONE || !cxx_stmt_call(f, st->first, st->last, &m) ||
            !cxx_call_is(f, &m, "Muls") || m.n_args != 4 || m.obj != CXX_NONE)
                return 0;
        next = cxx_stmt_after(f, st->last, st->block);
        add = next;
        if (next != CXX_NONE && cxx_tok_eq(f, next, "PipeBarrier"))
                add = cxx_stmt_after(f, cxx_stmt_last(f, next), st->block);
        if (add == CXX_NONE || !cxx_stmt_call(f, add, cxx_stmt_last(f, add), &a) ||
            !cxx_call_is(f, &a, "Add") || a.n_args != 4 || a.obj != CXX_NONE)
                return 0;
        t = cxx_arg_ident(f, &m.args[0]);
        x = cxx_arg_ident(f, &m.args[1]);
        d = cxx_arg_ident(f, &a.args[0]);
        if (t == CXX_NONE || x == CXX_NONE || d == CXX_NONE || same_tok(f, d, x) ||
            same_tok(f, d, t) ||
            !cxx_range_same(f, m.args[3].first, m.args[3].last, a.args[3].first, a.args[3].last))
                return 0;
        /* d = d + t, in either order */
        if (!((same_tok(f, cxx_arg_ident(f, &a.args[1]), d) &&
               same_tok(f, cxx_arg_ident(f, &a.args[2]), t)) ||
              (same_tok(f, cxx_arg_ident(f, &a.args[1]), t) &&
               same_tok(f, cxx_arg_ident(f, &a.args[2]), d))))
                return 0;
        if (!dead_after(f, func, t, cxx_stmt_last(f, add)))
                return 0;
        td = local_tensor_type(f, func, d);
        tx = local_tensor_type(f, func, x);
        if (!td || !tx || !axpy_types(td, tx))
                goto out;
        ds = cxx_range_dup(f, d, d);
        xs = cxx_range_dup(f, x, x);
        ss = cxx_range_dup(f, m.args[2].first, m.args[2].last);
        ns = cxx_range_dup(f, m.args[3].first, m.args[3].last);
        text = ds && xs && ss && ns ? str_printf("Axpy(%s, %s, %s, %s);", ds, xs, ss, ns) : NULL;
        site_begin(scan, f, st->first, "Muls + Add into %s is one Axpy", ds ? ds : "?");
        if (text)
                site_replace(scan, f, st->first, cxx_stmt_last(f, add), text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(td);
        free(tx);
        free(ds);
        free(xs);
        free(ss);
        free(ns);
        free(text);
        return r;
}

int motif_axpy_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), axpy_forward_stmt, NULL);
}

static int axpy_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                             const struct cxx_func *funcs, const struct cxx_stmt *st,
                             void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        size_t d, x;
        char *td = NULL, *tx = NULL, *ds = NULL, *xs = NULL, *ss = NULL, *ns = NULL, *indent = NULL,
             *text = NULL;
        int r = 0;

        if (st->block == CXX_NONE || st->loop != CXX_NONE ||
            !cxx_stmt_call(f, st->first, st->last, &c) || !cxx_call_is(f, &c, "Axpy") ||
            c.n_args != 4 || c.obj != CXX_NONE)
                return 0;
        d = cxx_arg_ident(f, &c.args[0]);
        x = cxx_arg_ident(f, &c.args[1]);
        if (d == CXX_NONE || x == CXX_NONE || same_tok(f, d, x) ||
            !dead_after(f, func, x, st->last))
                return 0;
        td = local_tensor_type(f, func, d);
        tx = local_tensor_type(f, func, x);
        if (!td || !tx || !axpy_types(td, tx))
                goto out;
        ds = cxx_range_dup(f, d, d);
        xs = cxx_range_dup(f, x, x);
        ss = cxx_range_dup(f, c.args[2].first, c.args[2].last);
        ns = cxx_range_dup(f, c.args[3].first, c.args[3].last);
        indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
        if (ds && xs && ss && ns && indent)
                text = str_printf("Muls(%s, %s, %s, %s);\n%sPipeBarrier<PIPE_V>();\n%sAdd(%s, %s, "
                                  "%s, %s);",
                                  xs, xs, ss, ns, indent, indent, ds, ds, xs, ns);
        site_begin(scan, f, st->first, "split Axpy into Muls on %s and Add", xs ? xs : "?");
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(td);
        free(tx);
        free(ds);
        free(xs);
        free(ss);
        free(ns);
        free(indent);
        free(text);
        return r;
}

int motif_axpy_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), axpy_inverse_stmt, NULL);
}

/* ================================================================ in place */

/*
 * Forward: "LocalTensor<T> tmp = buf.Get<T>();" whose first use is a vector
 * instruction writing tmp from an input x that is dead afterwards: tmp
 * becomes x, and buf, its InitBuffer and its declaration go.
 */
static int inplace_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                const struct cxx_func *funcs, const struct cxx_stmt *st,
                                void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct motif_decl bd;
        struct cxx_call c;
        size_t lt, gt, tmp, buf, s, x = CXX_NONE, gets = 0, init = CXX_NONE, init_last = CXX_NONE;
        char *tt = NULL, *tx = NULL, *xs = NULL;
        int r = 0;

        /* LocalTensor < T > tmp = buf . Get < T > ( ) ; */
        if (st->block == CXX_NONE || !cxx_tok_eq(f, st->first, "LocalTensor"))
                return 0;
        lt = cxx_tok_next(f, st->first);
        gt = cxx_angle_match(f, lt);
        if (gt == CXX_NONE)
                return 0;
        tmp = cxx_tok_next(f, gt);
        buf = cxx_tok_next(f, cxx_tok_next(f, tmp));
        if (!cxx_tok_is_ident(f, tmp) || !cxx_tok_eq(f, cxx_tok_next(f, tmp), "=") ||
            !cxx_tok_is_ident(f, buf) || !cxx_tok_eq(f, cxx_tok_next(f, buf), ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, buf)), "Get") ||
            !decl_of(f, func, buf, &bd) || !decl_is(f, &bd, "TBuf"))
                return 0;
        for (size_t k = 0; k < f->tokens.n; k++) {
                if (!same_tok(f, k, buf) || k == bd.name)
                        continue;
                if (cxx_tok_eq(f, cxx_tok_next(f, k), ".")) {
                        gets++;
                } else if (cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
                           cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "InitBuffer")) {
                        init = cxx_tok_prev(f, cxx_tok_prev(f, k));
                        /* the statement: back to the object */
                        while (cxx_tok_prev(f, init) != CXX_NONE &&
                               !cxx_tok_eq(f, cxx_tok_prev(f, init), ";") &&
                               !cxx_tok_eq(f, cxx_tok_prev(f, init), "{") &&
                               !cxx_tok_eq(f, cxx_tok_prev(f, init), "}"))
                                init = cxx_tok_prev(f, init);
                        init_last = cxx_stmt_last(f, init);
                } else {
                        return 0;
                }
        }
        if (gets != 1 || init == CXX_NONE)
                return 0;
        /* the first statement that uses tmp writes it from x */
        for (s = cxx_stmt_after(f, st->last, st->block); s != CXX_NONE;
             s = cxx_stmt_after(f, cxx_stmt_last(f, s), st->block))
                if (cxx_range_mentions(f, s, cxx_stmt_last(f, s), cxx_tok_text(f, tmp),
                                       cxx_tok_len(f, tmp)))
                        break;
        if (s == CXX_NONE || !cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) ||
            !is_vector_api(f, c.name) || c.n_args < 3 ||
            !same_tok(f, cxx_arg_ident(f, &c.args[0]), tmp))
                return 0;
        x = cxx_arg_ident(f, &c.args[1]);
        if (x == CXX_NONE || same_tok(f, x, tmp))
                return 0;
        /* x is read nowhere after, except to be freed after tmp's last use */
        for (size_t k = cxx_tok_next(f, cxx_stmt_last(f, s)); k < func->close;
             k = cxx_tok_next(f, k)) {
                if (!same_tok(f, k, x))
                        continue;
                if (cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
                    cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "FreeTensor")) {
                        if (cxx_range_mentions(f, k, func->close, cxx_tok_text(f, tmp),
                                               cxx_tok_len(f, tmp)))
                                return 0;
                        continue;
                }
                return 0;
        }
        tt = local_tensor_type(f, func, tmp);
        tx = local_tensor_type(f, func, x);
        xs = cxx_range_dup(f, x, x);
        if (!tt || !tx || !xs || strcmp(tt, tx) != 0)
                goto out;
        site_begin(scan, f, st->first, "compute %.*s in %s's buffer and drop %.*s",
                   (int)cxx_tok_len(f, tmp), cxx_tok_text(f, tmp), xs, (int)cxx_tok_len(f, buf),
                   cxx_tok_text(f, buf));
        site_delete_stmt(scan, f, st->first, st->last);
        for (size_t k = cxx_tok_next(f, st->last); k < func->close; k = cxx_tok_next(f, k))
                if (same_tok(f, k, tmp))
                        site_replace(scan, f, k, k, xs);
        site_delete_stmt(scan, f, init, init_last);
        if (bd.n_declarators == 1)
                site_delete_stmt(scan, f, bd.first, bd.last);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(tt);
        free(tx);
        free(xs);
        return r;
}

int motif_inplace_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), inplace_forward_stmt, NULL);
}

/*
 * Inverse: a vector instruction "Op(x, x, ...)" on a dequeued input x that
 * is read afterwards gets a separate TBuf of x's size; x's later reads go
 * to it.
 */
static int inplace_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                                const struct cxx_func *funcs, const struct cxx_stmt *st,
                                void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c, ic;
        struct motif_decl xd, qd;
        size_t x, q = CXX_NONE, init = CXX_NONE, reads = 0;
        char buf[64], tmp[64], *tx = NULL, *size = NULL, *pipe = NULL, *decl = NULL, *initt = NULL,
                               *get = NULL, *pos = NULL;
        int r = 0;

        if (st->block == CXX_NONE || st->loop != CXX_NONE ||
            !cxx_stmt_call(f, st->first, st->last, &c) || !is_vector_api(f, c.name) ||
            c.n_args < 3 || c.obj != CXX_NONE)
                return 0;
        x = cxx_arg_ident(f, &c.args[0]);
        if (x == CXX_NONE || !same_tok(f, x, cxx_arg_ident(f, &c.args[1])))
                return 0;
        for (size_t i = 2; i < c.n_args; i++)
                if (c.args[i].first != CXX_NONE &&
                    cxx_range_mentions(f, c.args[i].first, c.args[i].last, cxx_tok_text(f, x),
                                       cxx_tok_len(f, x)))
                        return 0;
        /* x = q.DeQue<T>() in this function */
        if (!decl_find(f, func->open, func->close, cxx_tok_text(f, x), cxx_tok_len(f, x), &xd) ||
            !decl_is(f, &xd, "LocalTensor"))
                return 0;
        for (size_t k = xd.name; k < st->first; k = cxx_tok_next(f, k))
                if (same_tok(f, k, x) && cxx_tok_eq(f, cxx_tok_next(f, k), "=") &&
                    cxx_tok_eq(
                        f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, k)))),
                        "DeQue"))
                        q = cxx_tok_next(f, cxx_tok_next(f, k));
        if (q == CXX_NONE || !decl_of(f, func, q, &qd) || !decl_is(f, &qd, "TQue"))
                return 0;
        /* reads of x afterwards, none of them an EnQue or a reassignment */
        for (size_t k = cxx_tok_next(f, st->last); k < func->close; k = cxx_tok_next(f, k)) {
                if (!same_tok(f, k, x))
                        continue;
                if (cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
                    (cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "FreeTensor")))
                        continue;
                if (cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
                    cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "EnQue"))
                        return 0;
                if (cxx_tok_eq(f, cxx_tok_next(f, k), "=") ||
                    cxx_tok_eq(f, cxx_tok_next(f, k), "."))
                        return 0;
                reads++;
        }
        if (!reads)
                return 0;
        /* q's InitBuffer gives the size */
        for (size_t k = 0; k < f->tokens.n && init == CXX_NONE; k++) {
                size_t s;
                if (!cxx_tok_eq(f, k, "InitBuffer") ||
                    !same_tok(f, cxx_tok_next(f, cxx_tok_next(f, k)), q))
                        continue;
                for (s = k;
                     cxx_tok_prev(f, s) != CXX_NONE && !cxx_tok_eq(f, cxx_tok_prev(f, s), ";") &&
                     !cxx_tok_eq(f, cxx_tok_prev(f, s), "{") &&
                     !cxx_tok_eq(f, cxx_tok_prev(f, s), "}");
                     s = cxx_tok_prev(f, s))
                        ;
                if (cxx_stmt_call(f, s, cxx_stmt_last(f, s), &ic) && ic.n_args == 3 &&
                    ic.obj != CXX_NONE)
                        init = s;
        }
        if (init == CXX_NONE)
                return 0;
        cxx_fresh_name(f, "motifTmpBuf", buf, sizeof(buf));
        cxx_fresh_name(f, "motifTmp", tmp, sizeof(tmp));
        tx = local_tensor_type(f, func, x);
        size = cxx_range_dup(f, ic.args[2].first, ic.args[2].last);
        pipe = cxx_range_dup(f, ic.obj, cxx_tok_prev(f, ic.name));
        pos = strdup("QuePosition::VECCALC");
        if (!tx || !size || !pipe || !pos)
                goto out;
        decl = str_printf("TBuf<%s> %s;", pos, buf);
        initt = str_printf("%sInitBuffer(%s, %s);", pipe, buf, size);
        get = str_printf("LocalTensor<%s> %s = %s.Get<%s>();", tx, tmp, buf, tx);
        site_begin(scan, f, st->first, "give the in-place %.*s on %.*s a separate buffer",
                   (int)cxx_tok_len(f, c.name), cxx_tok_text(f, c.name), (int)cxx_tok_len(f, x),
                   cxx_tok_text(f, x));
        if (!decl || !initt || !get) {
                site_fail(scan);
        } else {
                site_insert_after(scan, f, qd.first, qd.last, decl);
                site_insert_after(scan, f, init, cxx_stmt_last(f, init), initt);
                site_insert_before(scan, f, st->first, get);
                site_replace(scan, f, c.args[0].first, c.args[0].first, tmp);
                for (size_t k = cxx_tok_next(f, st->last); k < func->close; k = cxx_tok_next(f, k))
                        if (same_tok(f, k, x) &&
                            !(cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
                              cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "FreeTensor")))
                                site_replace(scan, f, k, k, tmp);
        }
        r = site_end(scan);
out:
        free(tx);
        free(size);
        free(pipe);
        free(pos);
        free(decl);
        free(initt);
        free(get);
        return r;
}

int motif_inplace_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), inplace_inverse_stmt, NULL);
}
