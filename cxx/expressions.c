/* SPDX-License-Identifier: MIT */
/*
 * C++ expressions as a tree: the operands and operators of an initialiser,
 * the right-hand side of an assignment or a call's argument, so that a
 * reader can ask what divides what (the factors of a UB budget, the
 * multiple a core's share is rounded to).  It knows as much C++ as tiling
 * programs write in expressions: literals, scoped and member names, calls
 * (templated ones too), casts, sizeof, indexing, unary, binary and
 * conditional operators.  Anything else (an assignment, a lambda, a braced
 * list) fails the parse rather than being guessed at.
 */
#include "cxx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_NODES_MAX 2048
#define EXPR_DEPTH_MAX 64

struct parser {
        const struct cxx_file *f;
        size_t at;   /* the next token, CXX_NONE past the end */
        size_t last; /* the range's last token */
        struct cxx_expr_tree *t;
        int depth;
        int error; /* 0, -EINVAL or -ENOMEM */
};

static int parse_expr(struct parser *p);

/* ------------------------------------------------------------ tokens of the range */

static size_t skip_comments(const struct cxx_file *f, size_t i, size_t last)
{
        while (i != CXX_NONE && i <= last && f->tokens.tokens[i].kind == TOKEN_COMMENT)
                i = i + 1 <= last ? i + 1 : CXX_NONE;
        return i != CXX_NONE && i <= last ? i : CXX_NONE;
}

static void advance(struct parser *p)
{
        if (p->at != CXX_NONE)
                p->at = skip_comments(p->f, p->at + 1, p->last);
}

static bool at_is(const struct parser *p, const char *s)
{
        return p->at != CXX_NONE && cxx_tok_eq(p->f, p->at, s);
}

static int fail(struct parser *p)
{
        if (!p->error)
                p->error = -EINVAL;
        return -1;
}

/* ------------------------------------------------------------ nodes */

static int node_new(struct parser *p, enum cxx_expr_kind kind, size_t first, size_t last,
                    size_t tok)
{
        struct cxx_expr_tree *t = p->t;

        if (t->n == t->cap) {
                size_t cap = t->cap ? 2 * t->cap : 16;
                struct cxx_expr *grown;
                if (cap > EXPR_NODES_MAX) {
                        p->error = -EINVAL;
                        return -1;
                }
                grown = realloc(t->nodes, cap * sizeof(*grown));
                if (!grown) {
                        p->error = -ENOMEM;
                        return -1;
                }
                t->nodes = grown;
                t->cap = cap;
        }
        t->nodes[t->n] = (struct cxx_expr){ .kind = kind,
                                            .first = first,
                                            .last = last,
                                            .tok = tok,
                                            .a = -1,
                                            .b = -1,
                                            .c = -1,
                                            .next = -1 };
        return (int)t->n++;
}

/* Parses tokens [first, last] of the same file as one whole expression. */
static int parse_range(struct parser *outer, size_t first, size_t last)
{
        struct parser p = {
                outer->f, skip_comments(outer->f, first, last), last, outer->t, outer->depth + 1, 0
        };
        int e;

        if (p.at == CXX_NONE || p.depth > EXPR_DEPTH_MAX)
                return fail(outer);
        e = parse_expr(&p);
        if (e >= 0 && p.at != CXX_NONE)
                e = fail(&p);
        if (p.error)
                outer->error = p.error;
        return p.error ? -1 : e;
}

/* ------------------------------------------------------------ primaries */

static bool is_type_word(const struct cxx_file *f, size_t i)
{
        static const char *const words[] = { "int",    "long",  "short",  "char", "unsigned",
                                             "signed", "float", "double", "bool", "void",
                                             "half",   "const", "auto",   NULL };
        size_t len = cxx_tok_len(f, i);

        for (size_t w = 0; words[w]; w++)
                if (cxx_tok_eq(f, i, words[w]))
                        return true;
        return len > 2 && memcmp(cxx_tok_text(f, i) + len - 2, "_t", 2) == 0;
}

/* Whether the bracket [open, close] holds a type, as a C-style cast's does. */
static bool holds_type(const struct cxx_file *f, size_t open, size_t close)
{
        bool type_word = false;
        size_t n = 0;

        for (size_t i = cxx_tok_next(f, open); i < close; i = cxx_tok_next(f, i), n++) {
                if (cxx_tok_is_ident(f, i))
                        type_word = type_word || is_type_word(f, i);
                else if (!cxx_tok_eq(f, i, "::") && !cxx_tok_eq(f, i, "*") &&
                         !cxx_tok_eq(f, i, "&"))
                        return false;
        }
        return n > 0 && type_word;
}

/* The call's arguments, parsed and chained from the call node's b. */
static int parse_args(struct parser *p, int call, size_t open, size_t close)
{
        struct cxx_arg args[CXX_MAX_ARGS];
        size_t n = cxx_args_split(p->f, open, args, CXX_MAX_ARGS);
        int prev = -1;

        if (n == CXX_MAX_ARGS)
                return fail(p); /* perhaps more than it holds: no half a call */
        for (size_t k = 0; k < n; k++) {
                int arg;
                if (args[k].first == CXX_NONE)
                        return fail(p);
                arg = parse_range(p, args[k].first, args[k].last);
                if (arg < 0)
                        return -1;
                if (prev < 0)
                        p->t->nodes[call].b = arg;
                else
                        p->t->nodes[prev].next = arg;
                prev = arg;
        }
        p->t->nodes[call].last = close;
        p->at = skip_comments(p->f, close + 1, p->last);
        return call;
}

/* The '(' closing at most at the range's end, or CXX_NONE. */
static size_t bracket_close(const struct parser *p, size_t open)
{
        size_t close = token_match(&p->f->tokens, open);

        return close < p->f->tokens.n && close <= p->last ? close : CXX_NONE;
}

/* sizeof(...), static_cast<T>(...) and the like, at p->at. */
static int parse_keyword_call(struct parser *p, bool is_cast)
{
        const struct cxx_file *f = p->f;
        size_t name = p->at, open, close;
        int node;

        advance(p);
        if (is_cast) {
                size_t gt;
                if (!at_is(p, "<") || (gt = cxx_angle_match(f, p->at)) == CXX_NONE || gt > p->last)
                        return fail(p);
                p->at = skip_comments(f, gt + 1, p->last);
        }
        if (!at_is(p, "("))
                return fail(p);
        open = p->at;
        close = bracket_close(p, open);
        if (close == CXX_NONE)
                return fail(p);
        node = node_new(p, is_cast ? CXX_EXPR_CAST : CXX_EXPR_CALL, name, close, name);
        if (node < 0)
                return -1;
        if (is_cast) {
                int a = parse_range(p, cxx_tok_next(f, open), close - 1);
                if (a < 0)
                        return -1;
                p->t->nodes[node].a = a;
                p->at = skip_comments(f, close + 1, p->last);
                return node;
        }
        /* sizeof: its operand is a type or an expression; only the latter is kept */
        if (cxx_tok_next(f, open) < close) {
                struct parser probe = *p;
                int a = parse_range(&probe, cxx_tok_next(f, open), close - 1);
                if (probe.error == -ENOMEM) {
                        p->error = -ENOMEM;
                        return -1;
                }
                p->t->nodes[node].b = a >= 0 ? a : -1;
        }
        p->at = skip_comments(f, close + 1, p->last);
        return node;
}

/* A name ("x", "ns::x", "f<T>"), then a call when '(' follows. */
static int parse_name(struct parser *p, int object)
{
        const struct cxx_file *f = p->f;
        size_t first = object >= 0 ? p->t->nodes[object].first : p->at, name = p->at;
        int node;

        advance(p);
        for (;;) {
                if (at_is(p, "::")) {
                        advance(p);
                        if (p->at == CXX_NONE || !cxx_tok_is_ident(f, p->at))
                                return fail(p);
                        name = p->at;
                        advance(p);
                        continue;
                }
                if (at_is(p, "<")) {
                        /* a template's arguments only where a call or scope follows */
                        size_t gt = cxx_angle_match(f, p->at);
                        size_t after = gt == CXX_NONE || gt >= p->last
                                           ? CXX_NONE
                                           : skip_comments(f, gt + 1, p->last);
                        if (after != CXX_NONE &&
                            (cxx_tok_eq(f, after, "(") || cxx_tok_eq(f, after, "::"))) {
                                p->at = after;
                                continue;
                        }
                }
                break;
        }
        if (at_is(p, "(")) {
                size_t open = p->at, close = bracket_close(p, open);
                if (close == CXX_NONE)
                        return fail(p);
                node = node_new(p, CXX_EXPR_CALL, first, close, name);
                if (node < 0)
                        return -1;
                p->t->nodes[node].a = object;
                return parse_args(p, node, open, close);
        }
        node = node_new(p, CXX_EXPR_NAME, first, name, name);
        if (node >= 0)
                p->t->nodes[node].a = object;
        return node;
}

static int parse_postfix(struct parser *p, int node)
{
        const struct cxx_file *f = p->f;

        while (node >= 0 && p->at != CXX_NONE) {
                if (at_is(p, ".") || at_is(p, "->")) {
                        advance(p);
                        if (p->at == CXX_NONE || !cxx_tok_is_ident(f, p->at))
                                return fail(p);
                        node = parse_name(p, node);
                } else if (at_is(p, "[")) {
                        size_t open = p->at, close = bracket_close(p, open);
                        int index, base = node;
                        if (close == CXX_NONE || cxx_tok_next(f, open) >= close)
                                return fail(p);
                        index = parse_range(p, cxx_tok_next(f, open), close - 1);
                        if (index < 0)
                                return -1;
                        node = node_new(p, CXX_EXPR_INDEX, p->t->nodes[base].first, close, open);
                        if (node < 0)
                                return -1;
                        p->t->nodes[node].a = base;
                        p->t->nodes[node].b = index;
                        p->at = skip_comments(f, close + 1, p->last);
                } else if (at_is(p, "++") || at_is(p, "--")) {
                        int a = node;
                        node = node_new(p, CXX_EXPR_UNARY, p->t->nodes[a].first, p->at, p->at);
                        if (node >= 0)
                                p->t->nodes[node].a = a;
                        advance(p);
                } else {
                        break;
                }
        }
        return node;
}

static int parse_unary(struct parser *p);

static int parse_primary(struct parser *p)
{
        const struct cxx_file *f = p->f;
        size_t at = p->at;

        if (at == CXX_NONE)
                return fail(p);
        switch (f->tokens.tokens[at].kind) {
        case TOKEN_NUMBER:
        case TOKEN_STRING:
        case TOKEN_CHAR: {
                int node = node_new(
                    p, f->tokens.tokens[at].kind == TOKEN_NUMBER ? CXX_EXPR_NUMBER : CXX_EXPR_OTHER,
                    at, at, at);
                advance(p);
                return node;
        }
        case TOKEN_IDENTIFIER:
                if (cxx_tok_eq(f, at, "sizeof") || cxx_tok_eq(f, at, "alignof"))
                        return parse_keyword_call(p, false);
                if (cxx_tok_eq(f, at, "static_cast") || cxx_tok_eq(f, at, "reinterpret_cast") ||
                    cxx_tok_eq(f, at, "const_cast") || cxx_tok_eq(f, at, "dynamic_cast"))
                        return parse_keyword_call(p, true);
                return parse_name(p, -1);
        case TOKEN_PUNCT:
                break;
        default:
                return fail(p);
        }
        if (cxx_tok_eq(f, at, "::") && cxx_tok_is_ident(f, cxx_tok_next(f, at))) {
                advance(p);
                return parse_name(p, -1);
        }
        if (cxx_tok_eq(f, at, "(")) {
                size_t close = bracket_close(p, at), after;
                int node, a;
                if (close == CXX_NONE || cxx_tok_next(f, at) >= close)
                        return fail(p);
                after = close < p->last ? skip_comments(f, close + 1, p->last) : CXX_NONE;
                if (holds_type(f, at, close) && after != CXX_NONE &&
                    (cxx_tok_is_ident(f, after) || cxx_tok_is_kind(f, after, TOKEN_NUMBER) ||
                     cxx_tok_eq(f, after, "(") || cxx_tok_eq(f, after, "-") ||
                     cxx_tok_eq(f, after, "!") || cxx_tok_eq(f, after, "~"))) {
                        p->at = after;
                        a = parse_unary(p);
                        if (a < 0)
                                return -1;
                        node = node_new(p, CXX_EXPR_CAST, at, p->t->nodes[a].last, at);
                        if (node >= 0)
                                p->t->nodes[node].a = a;
                        return node;
                }
                node = parse_range(p, cxx_tok_next(f, at), close - 1);
                if (node < 0)
                        return -1;
                p->t->nodes[node].grouped = true;
                p->t->nodes[node].first = at;
                p->t->nodes[node].last = close;
                p->at = after;
                return node;
        }
        return fail(p);
}

static int parse_unary(struct parser *p)
{
        static const char *const ops[] = { "-", "+", "!", "~", "*", "&", "++", "--", NULL };
        size_t at = p->at;

        for (size_t k = 0; at != CXX_NONE && ops[k]; k++) {
                int node, a;
                if (!cxx_tok_eq(p->f, at, ops[k]))
                        continue;
                if (++p->depth > EXPR_DEPTH_MAX)
                        return fail(p);
                advance(p);
                a = parse_unary(p);
                p->depth--;
                if (a < 0)
                        return -1;
                node = node_new(p, CXX_EXPR_UNARY, at, p->t->nodes[a].last, at);
                if (node >= 0)
                        p->t->nodes[node].a = a;
                return node;
        }
        return parse_postfix(p, parse_primary(p));
}

/* ------------------------------------------------------------ operators */

static int precedence(const struct parser *p)
{
        static const struct {
                const char *op;
                int prec;
        } table[] = { { "*", 10 }, { "/", 10 }, { "%", 10 }, { "+", 9 }, { "-", 9 },  { "<<", 8 },
                      { ">>", 8 }, { "<", 7 },  { "<=", 7 }, { ">", 7 }, { ">=", 7 }, { "==", 6 },
                      { "!=", 6 }, { "&", 5 },  { "^", 4 },  { "|", 3 }, { "&&", 2 }, { "||", 1 } };

        for (size_t k = 0; p->at != CXX_NONE && k < sizeof(table) / sizeof(*table); k++)
                if (cxx_tok_eq(p->f, p->at, table[k].op))
                        return table[k].prec;
        return 0;
}

static int parse_binary(struct parser *p, int min_prec)
{
        int lhs = parse_unary(p);

        while (lhs >= 0) {
                int prec = precedence(p), rhs, node;
                size_t op = p->at;
                if (prec == 0 || prec < min_prec)
                        break;
                advance(p);
                rhs = parse_binary(p, prec + 1);
                if (rhs < 0)
                        return -1;
                node =
                    node_new(p, CXX_EXPR_BINARY, p->t->nodes[lhs].first, p->t->nodes[rhs].last, op);
                if (node < 0)
                        return -1;
                p->t->nodes[node].a = lhs;
                p->t->nodes[node].b = rhs;
                lhs = node;
        }
        return lhs;
}

static int parse_expr(struct parser *p)
{
        int cond, yes, no, node;
        size_t q;

        if (++p->depth > EXPR_DEPTH_MAX)
                return fail(p);
        cond = parse_binary(p, 1);
        if (cond < 0 || !at_is(p, "?")) {
                p->depth--;
                return cond;
        }
        q = p->at;
        advance(p);
        yes = parse_expr(p);
        if (yes < 0 || !at_is(p, ":"))
                return fail(p);
        advance(p);
        no = parse_expr(p);
        if (no < 0)
                return -1;
        node = node_new(p, CXX_EXPR_TERNARY, p->t->nodes[cond].first, p->t->nodes[no].last, q);
        if (node >= 0) {
                p->t->nodes[node].a = cond;
                p->t->nodes[node].b = yes;
                p->t->nodes[node].c = no;
        }
        p->depth--;
        return node;
}

/* ------------------------------------------------------------ the API */

int cxx_expr_parse(const struct cxx_file *f, size_t first, size_t last, struct cxx_expr_tree *ret)
{
        struct parser p;

        memset(ret, 0, sizeof(*ret));
        ret->root = -1;
        p = (struct parser){ f, CXX_NONE, last, ret, 0, 0 };
        if (first == CXX_NONE || last == CXX_NONE || first > last || last >= f->tokens.n)
                return -EINVAL;
        p.at = skip_comments(f, first, last);
        if (p.at == CXX_NONE)
                return -EINVAL;
        ret->root = parse_expr(&p);
        if (!p.error && p.at != CXX_NONE)
                p.error = -EINVAL;
        if (p.error) {
                cxx_expr_tree_release(ret);
                return p.error;
        }
        return 0;
}

void cxx_expr_tree_release(struct cxx_expr_tree *t)
{
        if (!t)
                return;
        free(t->nodes);
        t->nodes = NULL;
        t->n = t->cap = 0;
        t->root = -1;
}

const struct cxx_expr *cxx_expr_at(const struct cxx_expr_tree *t, int i)
{
        return i >= 0 && (size_t)i < t->n ? &t->nodes[i] : NULL;
}

bool cxx_expr_is(const struct cxx_file *f, const struct cxx_expr *e, enum cxx_expr_kind kind,
                 const char *tok)
{
        return e && e->kind == kind && (!tok || cxx_tok_eq(f, e->tok, tok));
}
