/* SPDX-License-Identifier: MIT */
/*
 * The structure of a tokenized C++ file: matching brackets, function
 * bodies, where a statement starts and ends, the walk over every statement
 * of every function (blocks, loops, branches), and calls with their
 * arguments split at top-level commas.
 */
#include "cxx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ brackets */

size_t cxx_angle_match(const struct cxx_file *f, size_t i)
{
        int depth = 0;

        for (size_t j = i; j < f->tokens.n; j = cxx_tok_next(f, j)) {
                if (cxx_tok_eq(f, j, "<")) {
                        depth++;
                } else if (cxx_tok_eq(f, j, ">")) {
                        if (--depth == 0)
                                return j;
                } else if (cxx_tok_eq(f, j, ">>")) {
                        depth -= 2;
                        if (depth <= 0)
                                return j;
                } else if (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "[")) {
                        j = token_match(&f->tokens, j);
                        if (j >= f->tokens.n)
                                return CXX_NONE;
                } else if (cxx_tok_eq(f, j, ";") || cxx_tok_eq(f, j, "{") ||
                           cxx_tok_eq(f, j, "}") || cxx_tok_eq(f, j, ")")) {
                        return CXX_NONE;
                }
        }
        return CXX_NONE;
}

size_t cxx_bracket_open(const struct cxx_file *f, size_t i)
{
        int depth = 0;

        for (size_t j = i;; j--) {
                if (cxx_tok_eq(f, j, ")") || cxx_tok_eq(f, j, "]") || cxx_tok_eq(f, j, "}"))
                        depth++;
                else if ((cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "[") ||
                          cxx_tok_eq(f, j, "{")) &&
                         --depth == 0)
                        return j;
                if (j == 0)
                        break;
        }
        return CXX_NONE;
}

/* ================================================================ statements */

/* i, or the first token after it that is not a comment. */
static size_t first_code(const struct cxx_file *f, size_t i)
{
        while (i < f->tokens.n && f->tokens.tokens[i].kind == TOKEN_COMMENT)
                i++;
        return i;
}

size_t cxx_stmt_first(const struct cxx_file *f, size_t i)
{
        size_t p = i, q;

        for (q = cxx_tok_prev(f, p); q != CXX_NONE; q = cxx_tok_prev(f, q)) {
                if (cxx_tok_eq(f, q, ";") || cxx_tok_eq(f, q, "{") || cxx_tok_eq(f, q, "}") ||
                    f->tokens.tokens[q].in_directive)
                        break;
                p = q;
        }
        return p;
}

size_t cxx_stmt_last(const struct cxx_file *f, size_t i)
{
        const struct token_list *l = &f->tokens;
        size_t n = l->n, p, m, e, nx;
        int depth = 0;

        if (i >= n)
                return n ? n - 1 : 0;
        if (l->tokens[i].kind == TOKEN_DIRECTIVE) {
                size_t j = i;
                while (j + 1 < n && l->tokens[j + 1].in_directive &&
                       l->tokens[j + 1].kind != TOKEN_DIRECTIVE)
                        j++;
                return j;
        }
        if (cxx_tok_eq(f, i, "{")) {
                m = token_match(l, i);
                return m < n ? m : n - 1;
        }
        if (cxx_tok_eq(f, i, "if") || cxx_tok_eq(f, i, "for") || cxx_tok_eq(f, i, "while") ||
            cxx_tok_eq(f, i, "switch")) {
                p = cxx_tok_next(f, i);
                if (cxx_tok_eq(f, p, "constexpr"))
                        p = cxx_tok_next(f, p);
                m = token_match(l, p);
                if (m >= n)
                        return n - 1;
                e = cxx_stmt_last(f, cxx_tok_next(f, m));
                if (cxx_tok_eq(f, i, "if")) {
                        nx = cxx_tok_next(f, e);
                        if (cxx_tok_eq(f, nx, "else"))
                                return cxx_stmt_last(f, cxx_tok_next(f, nx));
                }
                return e;
        }
        if (cxx_tok_eq(f, i, "do")) {
                e = cxx_stmt_last(f, cxx_tok_next(f, i));
                nx = cxx_tok_next(f, e); /* while */
                m = token_match(l, cxx_tok_next(f, nx));
                return m < n ? cxx_tok_next(f, m) < n ? cxx_tok_next(f, m) : m : n - 1;
        }
        for (size_t j = i; j < n; j++) {
                const struct token *t = &l->tokens[j];
                if (t->kind == TOKEN_COMMENT || (t->in_directive && j != i))
                        continue;
                if (t->kind != TOKEN_PUNCT || t->len != 1)
                        continue;
                switch (f->text[t->start]) {
                case '(':
                case '[':
                case '{':
                        depth++;
                        break;
                case ')':
                case ']':
                case '}':
                        if (depth == 0)
                                return cxx_tok_prev(f, j) == CXX_NONE ? j : cxx_tok_prev(f, j);
                        depth--;
                        break;
                case ';':
                        if (depth == 0)
                                return j;
                        break;
                }
        }
        return n - 1;
}

/* ================================================================ functions */

int cxx_funcs_find(const struct cxx_file *f, struct cxx_func **ret, size_t *ret_n)
{
        struct cxx_func *out = NULL;
        size_t n = 0, cap = 0;

        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t p, close, open, name, k;
                struct cxx_func fn = { 0 };

                if (!cxx_tok_eq(f, i, "{") || f->tokens.tokens[i].in_directive)
                        continue;
                p = cxx_tok_prev(f, i);
                while (p != CXX_NONE &&
                       (cxx_tok_eq(f, p, "const") || cxx_tok_eq(f, p, "noexcept") ||
                        cxx_tok_eq(f, p, "override") || cxx_tok_eq(f, p, "final")))
                        p = cxx_tok_prev(f, p);
                if (p == CXX_NONE || !cxx_tok_eq(f, p, ")"))
                        continue;
                close = token_match(&f->tokens, i);
                if (close >= f->tokens.n)
                        break;
                /* a constructor's initializer list: step back over it to the parameters */
                open = cxx_bracket_open(f, p);
                name = open == CXX_NONE ? CXX_NONE : cxx_tok_prev(f, open);
                for (k = name; k != CXX_NONE && name != CXX_NONE; k = cxx_tok_prev(f, k)) {
                        if (cxx_tok_eq(f, k, ";") || cxx_tok_eq(f, k, "}") || cxx_tok_eq(f, k, "{"))
                                break;
                        if (cxx_tok_eq(f, k, "__global__")) {
                                fn.entry = true;
                                break;
                        }
                }
                fn.open = i;
                fn.close = close;
                fn.name = name != CXX_NONE && cxx_tok_is_ident(f, name) ? name : CXX_NONE;
                if (n == cap) {
                        size_t c = cap ? 2 * cap : 16;
                        struct cxx_func *grown = realloc(out, c * sizeof(*grown));
                        if (!grown) {
                                free(out);
                                return -ENOMEM;
                        }
                        out = grown;
                        cap = c;
                }
                out[n++] = fn;
                i = close;
        }
        *ret = out;
        *ret_n = n;
        return 0;
}

bool cxx_in_function(const struct cxx_func *funcs, size_t n, size_t i)
{
        for (size_t k = 0; k < n; k++)
                if (funcs[k].open < i && i < funcs[k].close)
                        return true;
        return false;
}

/* ================================================================ the walk */

struct walker {
        const struct cxx_file *f;
        const struct cxx_func *funcs;
        size_t func;
        cxx_stmt_fn fn;
        void *userdata;
};

static int visit(struct walker *w, size_t s, size_t last, size_t block, size_t loop,
                 bool in_branch);

static int walk_range(struct walker *w, size_t block, size_t close, size_t loop, bool in_branch)
{
        const struct cxx_file *f = w->f;
        int r;

        for (size_t s = first_code(f, block + 1); s < close;) {
                size_t last = cxx_stmt_last(f, s);
                if (last >= close)
                        last = cxx_tok_prev(f, close);
                if (last == CXX_NONE || last < s)
                        break;
                r = visit(w, s, last, block, loop, in_branch);
                if (r < 0)
                        return r;
                s = first_code(f, last + 1);
        }
        return 0;
}

static int visit_body(struct walker *w, size_t b, size_t loop, bool in_branch)
{
        size_t last = cxx_stmt_last(w->f, b);

        return visit(w, b, last, CXX_NONE, loop, in_branch);
}

static int visit(struct walker *w, size_t s, size_t last, size_t block, size_t loop, bool in_branch)
{
        const struct cxx_file *f = w->f;
        struct cxx_stmt st = {
                .first = s,
                .last = last,
                .block = block,
                .loop = loop,
                .func = w->func,
                .in_branch = in_branch,
        };
        size_t p, m, body, e, nx;
        int r;

        r = w->fn(f, w->funcs, &st, w->userdata);
        if (r < 0)
                return r;
        if (cxx_tok_eq(f, s, "{"))
                return walk_range(w, s, last, loop, in_branch);
        if (cxx_tok_eq(f, s, "if") || cxx_tok_eq(f, s, "for") || cxx_tok_eq(f, s, "while") ||
            cxx_tok_eq(f, s, "switch")) {
                p = cxx_tok_next(f, s);
                if (cxx_tok_eq(f, p, "constexpr"))
                        p = cxx_tok_next(f, p);
                m = token_match(&f->tokens, p);
                if (m >= last)
                        return 0;
                body = cxx_tok_next(f, m);
                if (cxx_tok_eq(f, s, "for") || cxx_tok_eq(f, s, "while"))
                        return visit_body(w, body, s, in_branch);
                r = visit_body(w, body, loop, true);
                if (r < 0 || !cxx_tok_eq(f, s, "if"))
                        return r;
                e = cxx_stmt_last(f, body);
                nx = cxx_tok_next(f, e);
                if (nx <= last && cxx_tok_eq(f, nx, "else"))
                        return visit_body(w, cxx_tok_next(f, nx), loop, true);
                return 0;
        }
        if (cxx_tok_eq(f, s, "do"))
                return visit_body(w, cxx_tok_next(f, s), s, in_branch);
        return 0;
}

int cxx_walk_statements(const struct cxx_file *f, cxx_stmt_fn fn, void *userdata)
{
        struct walker w = { .f = f, .fn = fn, .userdata = userdata };
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        int r;

        r = cxx_funcs_find(f, &funcs, &n);
        if (r < 0)
                return r;
        w.funcs = funcs;
        for (size_t i = 0; i < n; i++) {
                w.func = i;
                r = walk_range(&w, funcs[i].open, funcs[i].close, CXX_NONE, false);
                if (r < 0)
                        break;
        }
        free(funcs);
        return r;
}

/* ================================================================ neighbours */

size_t cxx_stmt_after(const struct cxx_file *f, size_t last, size_t block)
{
        size_t close, s;

        if (block == CXX_NONE)
                return CXX_NONE;
        close = token_match(&f->tokens, block);
        s = first_code(f, last + 1);
        return s < close ? s : CXX_NONE;
}

size_t cxx_stmt_before(const struct cxx_file *f, size_t first, size_t block)
{
        size_t s, prev = CXX_NONE, close;

        if (block == CXX_NONE)
                return CXX_NONE;
        close = token_match(&f->tokens, block);
        for (s = first_code(f, block + 1); s < close && s < first;) {
                prev = s;
                s = first_code(f, cxx_stmt_last(f, s) + 1);
        }
        return s == first ? prev : CXX_NONE;
}

/* ================================================================ calls */

size_t cxx_args_split(const struct cxx_file *f, size_t open, struct cxx_arg *args, size_t max)
{
        size_t close = token_match(&f->tokens, open), n = 0, start = CXX_NONE, last = CXX_NONE;
        int depth = 0;

        if (close >= f->tokens.n)
                return 0;
        for (size_t j = cxx_tok_next(f, open); j <= close; j = cxx_tok_next(f, j)) {
                bool end = j == close || (depth == 0 && cxx_tok_eq(f, j, ","));
                if (end) {
                        if (start != CXX_NONE && n < max)
                                args[n++] = (struct cxx_arg){ start, last };
                        else if (start == CXX_NONE && j != close && n < max)
                                args[n++] = (struct cxx_arg){ CXX_NONE, CXX_NONE };
                        start = CXX_NONE;
                        if (j == close)
                                break;
                        continue;
                }
                if (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "[") || cxx_tok_eq(f, j, "{"))
                        depth++;
                else if (cxx_tok_eq(f, j, ")") || cxx_tok_eq(f, j, "]") || cxx_tok_eq(f, j, "}"))
                        depth--;
                if (start == CXX_NONE)
                        start = j;
                last = j;
        }
        return n;
}

bool cxx_stmt_call(const struct cxx_file *f, size_t first, size_t last, struct cxx_call *ret)
{
        size_t j = first, name = CXX_NONE, obj = CXX_NONE, open, close;

        memset(ret, 0, sizeof(*ret));
        if (!cxx_tok_is_ident(f, j) || f->tokens.tokens[j].in_directive)
                return false;
        for (;;) {
                size_t nx = cxx_tok_next(f, j);
                name = j;
                if (cxx_tok_eq(f, nx, ".") || cxx_tok_eq(f, nx, "->")) {
                        if (obj == CXX_NONE)
                                obj = first;
                } else if (!cxx_tok_eq(f, nx, "::")) {
                        break;
                }
                j = cxx_tok_next(f, nx);
                if (!cxx_tok_is_ident(f, j))
                        return false;
        }
        open = cxx_tok_next(f, name);
        if (cxx_tok_eq(f, open, "<")) {
                size_t gt = cxx_angle_match(f, open);
                if (gt == CXX_NONE)
                        return false;
                open = cxx_tok_next(f, gt);
        }
        if (!cxx_tok_eq(f, open, "("))
                return false;
        close = token_match(&f->tokens, open);
        if (close >= f->tokens.n || cxx_tok_next(f, close) != last || !cxx_tok_eq(f, last, ";"))
                return false;
        ret->name = name;
        ret->obj = obj;
        ret->open = open;
        ret->close = close;
        ret->n_args = cxx_args_split(f, open, ret->args, CXX_MAX_ARGS);
        return true;
}

bool cxx_call_is(const struct cxx_file *f, const struct cxx_call *c, const char *name)
{
        return cxx_tok_eq(f, c->name, name);
}

size_t cxx_arg_ident(const struct cxx_file *f, const struct cxx_arg *a)
{
        return a->first != CXX_NONE && a->first == a->last && cxx_tok_is_ident(f, a->first)
                   ? a->first
                   : CXX_NONE;
}

size_t cxx_arg_base(const struct cxx_file *f, const struct cxx_arg *a)
{
        size_t nx;

        if (a->first == CXX_NONE || !cxx_tok_is_ident(f, a->first))
                return CXX_NONE;
        if (a->first == a->last)
                return a->first;
        nx = cxx_tok_next(f, a->first);
        if (cxx_tok_eq(f, nx, "[") && token_match(&f->tokens, nx) == a->last)
                return a->first;
        return CXX_NONE;
}
