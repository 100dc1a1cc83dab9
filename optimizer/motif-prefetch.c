/* SPDX-License-Identifier: MIT */
/*
 * prefetch_tile's inline forms.  A tile loop that allocates, copies in and
 * enqueues its input in its own body (the queue form),
 *
 *     for (T off = A; off < B; off += S) {
 *         uint32_t n = ...;                          (declarations: "pre")
 *         LocalTensor<T> x = q.AllocTensor<T>();
 *         DataCopy(x, gm[off], n);                   (copies: "the fetch")
 *         q.EnQue(x);
 *         x = q.DeQue<T>();
 *         ... compute, GetValue ...
 *         q.FreeTensor(x);
 *     }
 *
 * issues tile i + 1's copy only after tile i's compute has run on the
 * scalar unit, and a compute that reads a reduction back (GetValue) holds
 * the scalar unit until the vector unit is done: the copy and the compute
 * never overlap.  The forward fetches tile A before the loop and, in the
 * body, tile off + S right after tile off is dequeued, from copies of the
 * pre declarations and the fetch with off replaced and their names given a
 * "Next" suffix; the queue gets two buffers.  The TBuf form takes a loop
 * that copies into "LocalTensor<T> x = b.Get<T>();" taken before it: b
 * becomes a depth-2 VECIN queue, fetched ahead the same way, and x is
 * freed after its last use.  The inverse gives the queue form back, one
 * loop at a time.
 *
 * Only loops whose fetch can move are taken: the pre statements declare
 * without calling anything, nothing the fetch reads is assigned in the
 * body, the body calls no function of the file (which might change a
 * member the fetch reads), never leaves early (break, continue, return,
 * goto) and holds no PIPE_ALL barrier, and the queue serves this loop
 * alone.  And only loops that need it: the compute reads a value back
 * (GetValue); a TBuf's tile is only read (a tile computed in place and
 * copied out is tbuf_queues' loop).
 */
#include "motifs-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BODY_MAX    64
#define RENAMES_MAX 16
#define NONE        CXX_NONE

static struct cxx_file *kernel_of(struct motif_scan *scan)
{
        return &scan->files[scan->kernel];
}

/* ------------------------------------------------------------ the loop */

/* "for (<T> v = A; v < B; v += S | v++ | ++v | v = v + S) { ... }" */
struct tile_loop {
        size_t first, last; /* the for statement */
        size_t var;
        size_t init_a, init_b, bound_a, bound_b;
        size_t step_a, step_b; /* NONE: a step of 1 */
        size_t body, close;    /* the body's braces */
};

/* The top-level token spelled s in [a, b], else NONE. */
static size_t top_level_tok(const struct cxx_file *f, size_t a, size_t b, const char *s)
{
        for (size_t i = a; i != NONE && i <= b; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, s))
                        return i;
                if (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "[") || cxx_tok_eq(f, i, "{"))
                        i = token_match(&f->tokens, i);
                if (i == NONE || i >= f->tokens.n)
                        return NONE;
        }
        return NONE;
}

static bool range_has(const struct cxx_file *f, size_t a, size_t b, const char *s)
{
        for (size_t i = a; i != NONE && i <= b && i < f->tokens.n; i = cxx_tok_next(f, i))
                if (cxx_tok_eq(f, i, s))
                        return true;
        return false;
}

static bool tile_loop_at(const struct cxx_file *f, size_t first, struct tile_loop *l)
{
        size_t open = cxx_tok_next(f, first), close, semi1, semi2, eq, lt, inc, end;

        if (!cxx_tok_eq(f, first, "for") || !cxx_tok_eq(f, open, "("))
                return false;
        close = token_match(&f->tokens, open);
        semi1 = top_level_tok(f, cxx_tok_next(f, open), close, ";");
        semi2 = semi1 == NONE ? NONE : top_level_tok(f, cxx_tok_next(f, semi1), close, ";");
        if (semi2 == NONE || semi2 >= close)
                return false;
        /* the start: "[T] v = A" */
        eq = top_level_tok(f, cxx_tok_next(f, open), semi1, "=");
        if (eq == NONE || eq >= semi1 || cxx_tok_next(f, eq) >= semi1)
                return false;
        l->var = cxx_tok_prev(f, eq);
        l->init_a = cxx_tok_next(f, eq);
        l->init_b = cxx_tok_prev(f, semi1);
        if (!cxx_tok_is_ident(f, l->var) || range_has(f, l->init_a, l->init_b, ","))
                return false;
        /* the test: "v < B" and nothing else */
        lt = cxx_tok_next(f, cxx_tok_next(f, semi1));
        if (!tok_same(f, cxx_tok_next(f, semi1), l->var) || !cxx_tok_eq(f, lt, "<") ||
            cxx_tok_next(f, lt) >= semi2)
                return false;
        l->bound_a = cxx_tok_next(f, lt);
        l->bound_b = cxx_tok_prev(f, semi2);
        if (range_has(f, l->bound_a, l->bound_b, "&&") ||
            range_has(f, l->bound_a, l->bound_b, "||") ||
            range_has(f, l->bound_a, l->bound_b, "?") || range_has(f, l->bound_a, l->bound_b, ","))
                return false;
        /* the step */
        inc = cxx_tok_next(f, semi2);
        end = cxx_tok_prev(f, close);
        l->step_a = l->step_b = NONE;
        if ((tok_same(f, inc, l->var) && cxx_tok_eq(f, end, "++") && cxx_tok_next(f, inc) == end) ||
            (cxx_tok_eq(f, inc, "++") && tok_same(f, end, l->var) && cxx_tok_next(f, inc) == end)) {
                /* a step of 1 */
        } else if (tok_same(f, inc, l->var) && cxx_tok_eq(f, cxx_tok_next(f, inc), "+=") &&
                   cxx_tok_next(f, cxx_tok_next(f, inc)) <= end) {
                l->step_a = cxx_tok_next(f, cxx_tok_next(f, inc));
                l->step_b = end;
        } else if (tok_same(f, inc, l->var) && cxx_tok_eq(f, cxx_tok_next(f, inc), "=") &&
                   tok_same(f, cxx_tok_next(f, cxx_tok_next(f, inc)), l->var) &&
                   cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, inc))), "+") &&
                   cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, inc)))) <= end) {
                l->step_a = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, inc))));
                l->step_b = end;
        } else {
                return false;
        }
        if (l->step_a != NONE &&
            (range_has(f, l->step_a, l->step_b, ",") || range_has(f, l->step_a, l->step_b, "?")))
                return false;
        l->body = cxx_tok_next(f, close);
        if (!cxx_tok_eq(f, l->body, "{"))
                return false;
        l->close = token_match(&f->tokens, l->body);
        l->first = first;
        l->last = cxx_stmt_last(f, first);
        return l->close < f->tokens.n && l->last == l->close;
}

/* The statements directly in the block opened at open: first tokens into s, how many. */
static size_t statements_of(const struct cxx_file *f, size_t open, size_t *s, size_t max)
{
        size_t close = token_match(&f->tokens, open), n = 0;

        for (size_t i = cxx_tok_next(f, open); i != NONE && i < close && n < max;
             i = cxx_stmt_after(f, cxx_stmt_last(f, i), open))
                s[n++] = i;
        return n;
}

/* ------------------------------------------------------------ statement shapes */

/* Whether [a, b] calls nothing: every '(' follows a cast, sizeof or an operator. */
static bool calls_nothing(const struct cxx_file *f, size_t a, size_t b)
{
        for (size_t i = a; i != NONE && i <= b && i < f->tokens.n; i = cxx_tok_next(f, i)) {
                size_t p;
                if (!cxx_tok_eq(f, i, "("))
                        continue;
                p = cxx_tok_prev(f, i);
                if (p != NONE && cxx_tok_is_ident(f, p) && !cxx_tok_eq(f, p, "sizeof") &&
                    !cxx_tok_eq(f, p, "if"))
                        return false;
        }
        return true;
}

/*
 * A declaration that calls nothing, "T name = expr;" or "T name{...};":
 * the declared name's token, else NONE.
 */
static size_t plain_decl(const struct cxx_file *f, size_t first, size_t last)
{
        size_t at = NONE, name;

        if (!cxx_tok_eq(f, last, ";") || !cxx_tok_is_ident(f, first) ||
            !calls_nothing(f, first, last) || cxx_tok_eq(f, first, "return"))
                return NONE;
        for (size_t i = first; i != NONE && i < last; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, "<")) {
                        size_t gt = cxx_angle_match(f, i);
                        if (gt != NONE && gt < last) {
                                i = gt;
                                continue;
                        }
                }
                if (cxx_tok_eq(f, i, "=") || cxx_tok_eq(f, i, "{")) {
                        at = i;
                        break;
                }
                if (tok_assigns(f, i) || cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, ","))
                        return NONE;
        }
        if (at == NONE)
                return NONE;
        name = cxx_tok_prev(f, at);
        /* a type before the name: "n = x;" assigns, it declares nothing */
        if (!cxx_tok_is_ident(f, name) || name == first)
                return NONE;
        for (size_t i = cxx_tok_next(f, at); i != NONE && i < last; i = cxx_tok_next(f, i))
                if (tok_assigns(f, i) && !cxx_tok_eq(f, i, "="))
                        return NONE;
        return name;
}

/* "LocalTensor<T> x = q.AllocTensor<T>();" or with DeQue: x's token (the queue's in *q). */
static size_t queue_decl(const struct cxx_file *f, size_t first, size_t last, const char *method,
                         size_t *q)
{
        size_t gt, x, eq, dot, m;

        if (!cxx_tok_eq(f, first, "LocalTensor") || !cxx_tok_eq(f, cxx_tok_next(f, first), "<"))
                return NONE;
        gt = cxx_angle_match(f, cxx_tok_next(f, first));
        x = gt == NONE ? NONE : cxx_tok_next(f, gt);
        eq = cxx_tok_next(f, x);
        *q = cxx_tok_next(f, eq);
        dot = cxx_tok_next(f, *q);
        m = cxx_tok_next(f, dot);
        if (x == NONE || !cxx_tok_is_ident(f, x) || !cxx_tok_eq(f, eq, "=") ||
            !cxx_tok_is_ident(f, *q) || !cxx_tok_eq(f, dot, ".") || !cxx_tok_eq(f, m, method) ||
            !cxx_tok_eq(f, last, ";"))
                return NONE;
        return x;
}

/* "q.Method(x);" or "q.Method<T>(x);" with q and x as given. */
static bool queue_call_of(const struct cxx_file *f, size_t first, size_t last, const char *method,
                          size_t q, size_t x)
{
        struct cxx_call c;

        return cxx_stmt_call(f, first, last, &c) && cxx_call_is(f, &c, method) && c.obj != NONE &&
               tok_same(f, c.obj, q) && cxx_tok_next(f, c.obj) + 1 == c.name && c.n_args == 1 &&
               c.args[0].first == c.args[0].last && tok_same(f, c.args[0].first, x);
}

/* "x = q.DeQue<T>();" */
static bool dequeue_again(const struct cxx_file *f, size_t first, size_t last, size_t q, size_t x)
{
        size_t eq = cxx_tok_next(f, first), qq = cxx_tok_next(f, eq);

        return tok_same(f, first, x) && cxx_tok_eq(f, eq, "=") && tok_same(f, qq, q) &&
               cxx_tok_eq(f, cxx_tok_next(f, qq), ".") &&
               cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, qq)), "DeQue") &&
               cxx_tok_eq(f, last, ";");
}

/* A copy into x: DataCopy or DataCopyPad whose first argument is x. */
static bool copy_into(const struct cxx_file *f, size_t first, size_t last, size_t x)
{
        struct cxx_call c;

        return cxx_stmt_call(f, first, last, &c) && c.obj == NONE &&
               (cxx_call_is(f, &c, "DataCopy") || cxx_call_is(f, &c, "DataCopyPad")) &&
               c.n_args >= 3 && c.args[0].first == c.args[0].last &&
               tok_same(f, c.args[0].first, x) &&
               calls_nothing(f, cxx_tok_next(f, c.open), c.close);
}

/*
 * A statement of the fetch: a copy into x, a plain declaration (the copy's
 * parameters), or an if/else whose condition calls nothing and whose
 * branches hold only those.
 */
static bool fetch_stmt(const struct cxx_file *f, size_t first, size_t last, size_t x, int depth)
{
        if (depth > 4)
                return false;
        if (copy_into(f, first, last, x) || plain_decl(f, first, last) != NONE)
                return true;
        if (cxx_tok_eq(f, first, "{")) {
                size_t s[BODY_MAX], n = statements_of(f, first, s, BODY_MAX);
                for (size_t k = 0; k < n; k++)
                        if (!fetch_stmt(f, s[k], cxx_stmt_last(f, s[k]), x, depth + 1))
                                return false;
                return n > 0;
        }
        if (cxx_tok_eq(f, first, "if")) {
                size_t open = cxx_tok_next(f, first), close = token_match(&f->tokens, open),
                       then = cxx_tok_next(f, close), then_last = cxx_stmt_last(f, then);
                if (!cxx_tok_eq(f, open, "(") || !calls_nothing(f, open, close) ||
                    !fetch_stmt(f, then, then_last, x, depth + 1))
                        return false;
                if (then_last == last)
                        return true;
                if (!cxx_tok_eq(f, cxx_tok_next(f, then_last), "else"))
                        return false;
                return fetch_stmt(f, cxx_tok_next(f, cxx_tok_next(f, then_last)), last, x,
                                  depth + 1);
        }
        return false;
}

/* ------------------------------------------------------------ renamed copies */

struct rename {
        char from[64];
        char *to;
};

struct renames {
        struct rename r[RENAMES_MAX];
        size_t n;
};

static void renames_release(struct renames *rs)
{
        for (size_t k = 0; k < rs->n; k++)
                free(rs->r[k].to);
        rs->n = 0;
}

static int renames_add(struct renames *rs, const struct cxx_file *f, size_t tok, const char *to)
{
        if (rs->n == RENAMES_MAX || cxx_tok_len(f, tok) >= sizeof(rs->r[0].from))
                return -E2BIG;
        cxx_tok_copy(f, tok, rs->r[rs->n].from, sizeof(rs->r[0].from));
        if (!(rs->r[rs->n].to = strdup(to)))
                return -ENOMEM;
        rs->n++;
        return 0;
}

/*
 * The text of tokens [a, b] (what lies between them kept) with each
 * identifier of rs that is not a member ("o.x", "p->x", "N::x") spelled
 * as its replacement, and each line after the first indented by extra
 * more.  A new string, or NULL.
 */
static char *renamed(const struct cxx_file *f, size_t a, size_t b, const struct renames *rs,
                     const char *extra)
{
        size_t start = f->tokens.tokens[a].start, end = cxx_tok_end(f, b);
        struct text_edits edits = { 0 };
        char *out = NULL;
        int r = 0;

        for (size_t i = a; i != NONE && i <= b && r == 0; i = cxx_tok_next(f, i)) {
                size_t p = cxx_tok_prev(f, i);
                if (!cxx_tok_is_ident(f, i) ||
                    (p != NONE &&
                     (cxx_tok_eq(f, p, ".") || cxx_tok_eq(f, p, "->") || cxx_tok_eq(f, p, "::"))))
                        continue;
                for (size_t k = 0; k < rs->n; k++)
                        if (cxx_tok_eq(f, i, rs->r[k].from)) {
                                r = text_edits_add(&edits, f->tokens.tokens[i].start - start,
                                                   cxx_tok_len(f, i), rs->r[k].to);
                                break;
                        }
        }
        for (size_t i = start; i < end && r == 0; i++)
                if (f->text[i] == '\n')
                        r = text_edits_add(&edits, i + 1 - start, 0, extra);
        if (r == 0)
                r = text_edits_apply(&edits, f->text + start, end - start, &out);
        text_edits_release(&edits);
        return r == 0 ? out : NULL;
}

/* Appends "\n" indent and text to *buf (text freed); false when out of memory. */
static bool append_line(char **buf, const char *indent, char *text)
{
        char *grown;

        if (!text)
                return false;
        grown = *buf ? str_printf("%s\n%s%s", *buf, indent, text) : strdup(text);
        free(text);
        free(*buf);
        *buf = grown;
        return grown != NULL;
}

/* Appends statement first (with its trailing comment), renamed by rs, as a line of *buf. */
static bool append_stmt(char **buf, const char *indent, const struct cxx_file *f, size_t first,
                        const struct renames *rs, const char *extra)
{
        return append_line(
            buf, indent,
            renamed(f, first, cxx_with_trailing_comment(f, cxx_stmt_last(f, first)), rs, extra));
}

/* Adds name -> name + "Next" (a name the file does not use yet) to rs. */
static int add_next_name(struct renames *rs, const struct cxx_file *f, size_t name)
{
        char base[80], fresh[96];

        snprintf(base, sizeof(base), "%.*sNext", (int)cxx_tok_len(f, name), cxx_tok_text(f, name));
        cxx_fresh_name(f, base, fresh, sizeof(fresh));
        return renames_add(rs, f, name, fresh);
}

/* ------------------------------------------------------------ the forward */

struct fetch_loop {
        struct tile_loop l;
        size_t s[BODY_MAX], n;
        size_t alloc, enq, deq; /* indices into s */
        size_t x, q, y;         /* the tensor, its queue, the dequeued tensor */
        bool reassigned;        /* "x = q.DeQue<T>();" rather than a new tensor */
};

/* Whether any identifier that [a, b] reads is assigned in the body outside [skip_a, skip_b]. */
static bool reads_assigned(const struct cxx_file *f, size_t a, size_t b, const struct tile_loop *l,
                           size_t skip_a, size_t skip_b)
{
        for (size_t i = a; i != NONE && i <= b; i = cxx_tok_next(f, i)) {
                size_t p = cxx_tok_prev(f, i);
                if (!cxx_tok_is_ident(f, i) ||
                    (p != NONE && (cxx_tok_eq(f, p, ".") || cxx_tok_eq(f, p, "->"))))
                        continue;
                for (size_t k = l->body; k != NONE && k < l->close; k = cxx_tok_next(f, k)) {
                        size_t kp = cxx_tok_prev(f, k);
                        if (k >= skip_a && k <= skip_b)
                                continue;
                        if (!tok_same(f, k, i))
                                continue;
                        if (tok_assigns(f, cxx_tok_next(f, k)) ||
                            (kp != NONE && (cxx_tok_eq(f, kp, "++") || cxx_tok_eq(f, kp, "--"))))
                                return true;
                }
        }
        return false;
}

/*
 * Whether the body leaves early or calls a function of the file, or holds
 * a full barrier (PipeBarrier<PIPE_ALL>, which would keep the fetch behind
 * the compute anyway: barrier_removal comes first), or reads nothing back
 * on the scalar unit (GetValue): without that wait the queue's second
 * buffer already lets the next copy run under the compute.
 */
static bool body_unsafe(const struct cxx_file *f, const struct tile_loop *l,
                        const struct cxx_func *funcs, size_t n_funcs)
{
        if (!range_has(f, l->body, l->close, "GetValue"))
                return true;
        static const char *const exits[] = {
                "break", "continue", "return", "goto", "PIPE_ALL", NULL
        };

        for (size_t k = l->body; k != NONE && k < l->close; k = cxx_tok_next(f, k)) {
                for (size_t e = 0; exits[e]; e++)
                        if (cxx_tok_eq(f, k, exits[e]))
                                return true;
                if (!cxx_tok_is_ident(f, k) || !cxx_tok_eq(f, cxx_tok_next(f, k), "("))
                        continue;
                for (size_t j = 0; j < n_funcs; j++)
                        if (funcs[j].name != NONE && tok_same(f, funcs[j].name, k))
                                return true;
        }
        return false;
}

static bool fetch_loop_at(const struct cxx_file *f, const struct cxx_func *func,
                          const struct cxx_func *funcs, size_t n_funcs, size_t first,
                          struct fetch_loop *fl)
{
        struct tile_loop *l = &fl->l;
        size_t k, q2, frees = 0;

        if (!tile_loop_at(f, first, l))
                return false;
        fl->n = statements_of(f, l->body, fl->s, BODY_MAX);
        for (k = 0; k < fl->n; k++) {
                size_t last = cxx_stmt_last(f, fl->s[k]);
                fl->x = queue_decl(f, fl->s[k], last, "AllocTensor", &fl->q);
                if (fl->x != NONE)
                        break;
                if (plain_decl(f, fl->s[k], last) == NONE)
                        return false;
        }
        if (k >= fl->n)
                return false;
        fl->alloc = k;
        for (k = fl->alloc + 1; k < fl->n; k++) {
                size_t last = cxx_stmt_last(f, fl->s[k]);
                if (queue_call_of(f, fl->s[k], last, "EnQue", fl->q, fl->x))
                        break;
                if (!fetch_stmt(f, fl->s[k], last, fl->x, 0))
                        return false;
        }
        if (k + 1 >= fl->n || k == fl->alloc + 1)
                return false; /* no EnQue, nothing after it, or no copy */
        fl->enq = k;
        fl->deq = k + 1;
        {
                size_t first_d = fl->s[fl->deq], last_d = cxx_stmt_last(f, first_d);
                fl->reassigned = dequeue_again(f, first_d, last_d, fl->q, fl->x);
                fl->y = fl->reassigned ? fl->x : queue_decl(f, first_d, last_d, "DeQue", &q2);
                if (fl->y == NONE || (!fl->reassigned && !tok_same(f, q2, fl->q)))
                        return false;
        }
        /* the queue serves this loop alone: the fetch, the DeQue and one FreeTensor */
        if (ident_count(f, func->open, func->close, fl->q) !=
            ident_count(f, l->body, l->close, fl->q))
                return false;
        for (k = fl->deq + 1; k < fl->n; k++) {
                size_t last = cxx_stmt_last(f, fl->s[k]);
                if (queue_call_of(f, fl->s[k], last, "FreeTensor", fl->q, fl->y))
                        frees++;
                else if (ident_count(f, fl->s[k], last, fl->q))
                        return false;
        }
        if (frees != 1 || (!fl->reassigned && ident_count(f, fl->s[fl->deq + 1], l->close, fl->x)))
                return false;
        if (body_unsafe(f, l, funcs, n_funcs) ||
            reads_assigned(f, fl->s[0], cxx_stmt_last(f, fl->s[fl->enq]), l, fl->s[0],
                           cxx_stmt_last(f, fl->s[fl->deq])))
                return false;
        return true;
}

/*
 * The pre declarations and the fetch, as lines indented by indent (the
 * first not), with the loop variable spelled as index and every name they
 * declare given rs's new names.
 */
static char *fetch_text(const struct cxx_file *f, const struct fetch_loop *fl,
                        const struct renames *rs, const char *indent, const char *extra)
{
        char *text = NULL;

        for (size_t k = 0; k <= fl->enq; k++)
                if (!append_stmt(&text, indent, f, fl->s[k], rs, extra)) {
                        free(text);
                        return NULL;
                }
        return text;
}

/* rs: the loop variable as index, each declared name as name + "Next". */
static int fetch_renames(const struct cxx_file *f, const struct fetch_loop *fl, const char *index,
                         struct renames *rs)
{
        int r = renames_add(rs, f, fl->l.var, index);

        for (size_t k = 0; k <= fl->enq && r == 0; k++) {
                size_t last = cxx_stmt_last(f, fl->s[k]), name = NONE, q;
                if (k < fl->alloc)
                        name = plain_decl(f, fl->s[k], last);
                else if (k == fl->alloc)
                        name = queue_decl(f, fl->s[k], last, "AllocTensor", &q);
                if (name != NONE)
                        r = add_next_name(rs, f, name);
        }
        return r;
}

static char *range_text(const struct cxx_file *f, size_t a, size_t b)
{
        return a == NONE ? strdup("1") : cxx_range_dup(f, a, b);
}

/*
 * What both forms write around a loop: its pieces as text, the index of
 * the first tile and of the next one, and the indents one and two levels
 * in from the loop's.
 */
struct loop_text {
        char *indent, *init, *bound, *step, *var, *first_index, *next_index, *in1, *in2;
        const char *unit;
};

static void loop_text_release(struct loop_text *t)
{
        free(t->indent);
        free(t->init);
        free(t->bound);
        free(t->step);
        free(t->var);
        free(t->first_index);
        free(t->next_index);
        free(t->in1);
        free(t->in2);
}

static int loop_text_of(const struct cxx_file *f, const struct tile_loop *l, struct loop_text *t)
{
        memset(t, 0, sizeof(*t));
        t->unit = cxx_indent_unit(f);
        t->indent = cxx_indent_at(f, f->tokens.tokens[l->first].start);
        t->init = cxx_range_dup(f, l->init_a, l->init_b);
        t->bound = cxx_range_dup(f, l->bound_a, l->bound_b);
        t->step = range_text(f, l->step_a, l->step_b);
        t->var = cxx_range_dup(f, l->var, l->var);
        if (!t->indent || !t->init || !t->bound || !t->step || !t->var)
                return -ENOMEM;
        t->first_index = l->init_a == l->init_b ? strdup(t->init) : str_printf("(%s)", t->init);
        t->next_index = str_printf("(%s + %s)", t->var, t->step);
        t->in1 = str_printf("%s%s", t->indent, t->unit);
        t->in2 = str_printf("%s%s%s", t->indent, t->unit, t->unit);
        return t->first_index && t->next_index && t->in1 && t->in2 ? 0 : -ENOMEM;
}

/* "if (A < B) {" the first tile's fetch "}", to go before the loop. */
static char *first_fetch(const struct loop_text *t, const char *fetch)
{
        return str_printf("if (%s < %s) {\n%s%s\n%s}", t->init, t->bound, t->in1, fetch, t->indent);
}

/* deq, then "if (v + S < B) {" the next tile's fetch "}", to go in the body. */
static char *next_fetch(const struct loop_text *t, const char *deq, const char *fetch)
{
        return str_printf("%s\n%sif (%s + %s < %s) {\n%s%s\n%s}", deq, t->in1, t->var, t->step,
                          t->bound, t->in2, fetch, t->in1);
}

static int forward_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        size_t n_funcs = *(const size_t *)userdata;
        struct fetch_loop fl;
        struct loop_text t;
        struct renames first_rs = { .n = 0 }, next_rs = { .n = 0 };
        char *ahead = NULL, *inside = NULL, *prologue = NULL, *body = NULL, *deq = NULL;
        struct queue_edits done = { .n = 0 };
        int r;

        if (!cxx_tok_eq(f, st->first, "for") ||
            !fetch_loop_at(f, &funcs[st->func], funcs, n_funcs, st->first, &fl))
                return 0;
        r = loop_text_of(f, &fl.l, &t);
        if (r < 0 || (r = fetch_renames(f, &fl, t.first_index, &first_rs)) < 0 ||
            (r = fetch_renames(f, &fl, t.next_index, &next_rs)) < 0)
                goto out;
        ahead = fetch_text(f, &fl, &first_rs, t.in1, "");
        inside = fetch_text(f, &fl, &next_rs, t.in2, t.unit);
        if (fl.reassigned) {
                char *type = local_tensor_type(f, &funcs[st->func], fl.x);
                deq = type ? str_printf("LocalTensor<%s> %.*s = %.*s.DeQue<%s>();", type,
                                        (int)cxx_tok_len(f, fl.x), cxx_tok_text(f, fl.x),
                                        (int)cxx_tok_len(f, fl.q), cxx_tok_text(f, fl.q), type)
                           : NULL;
                free(type);
        } else {
                deq = cxx_range_dup(f, fl.s[fl.deq], cxx_stmt_last(f, fl.s[fl.deq]));
        }
        prologue = ahead ? first_fetch(&t, ahead) : NULL;
        body = inside && deq ? next_fetch(&t, deq, inside) : NULL;
        site_begin(scan, f, st->first, "fetch tile %s + %s before tile %s's compute", t.var, t.step,
                   t.var);
        if (!prologue || !body) {
                site_fail(scan);
        } else {
                site_insert_before(scan, f, st->first, prologue);
                site_replace(scan, f, fl.s[fl.alloc], cxx_stmt_last(f, fl.s[fl.deq]), body);
                site_queue_two_buffers(scan, f, fl.q, &done);
        }
        r = site_end(scan);
out:
        renames_release(&first_rs);
        renames_release(&next_rs);
        loop_text_release(&t);
        free(ahead);
        free(inside);
        free(prologue);
        free(body);
        free(deq);
        return r;
}

/* ------------------------------------------------------------ a TBuf's tile */

/*
 * The TBuf form: "LocalTensor<T> x = b.Get<T>();" before the loop, b a
 * TBuf, and the body opening with declarations and copies into x (the
 * run).  x becomes a tensor of a depth-2 VECIN queue: fetched ahead as in
 * the queue form, dequeued after the run, freed after its last use.  The
 * run's declarations stay in the body (the copies go), since the rest may
 * read them.
 */
struct tbuf_loop {
        struct tile_loop l;
        size_t s[BODY_MAX], n;
        size_t run;                 /* statements s[0, run) */
        size_t x, b;                /* the tensor and its TBuf (at their declarations) */
        size_t get_first, get_last; /* "LocalTensor<T> x = b.Get<T>();" */
        size_t last_use;            /* the last statement of the body naming x */
        struct motif_decl b_decl;
        size_t init_first, init_last; /* "InitBuffer(b, size)" */
        struct cxx_call init;
};

/* Whether x is read or written by the scalar unit in [a, b]: "x.GetValue(", "x.SetValue(". */
static bool scalar_reads(const struct cxx_file *f, size_t a, size_t b, size_t x)
{
        for (size_t i = a; i != NONE && i <= b; i = cxx_tok_next(f, i))
                if (tok_same(f, i, x) && cxx_tok_eq(f, cxx_tok_next(f, i), ".") &&
                    (cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "GetValue") ||
                     cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "SetValue")))
                        return true;
        return false;
}

/* The innermost '(' around token i, not before token from; NONE when none. */
static size_t enclosing_open(const struct cxx_file *f, size_t i, size_t from)
{
        for (size_t j = cxx_tok_prev(f, i); j != NONE && j >= from; j = cxx_tok_prev(f, j)) {
                if (cxx_tok_eq(f, j, ")") || cxx_tok_eq(f, j, "]") || cxx_tok_eq(f, j, "}")) {
                        j = cxx_bracket_open(f, j);
                        if (j == NONE)
                                return NONE;
                        continue;
                }
                if (cxx_tok_eq(f, j, "("))
                        return j;
                if (cxx_tok_eq(f, j, "[") || cxx_tok_eq(f, j, "{") || cxx_tok_eq(f, j, ";"))
                        return NONE;
        }
        return NONE;
}

/*
 * Whether [a, b] writes x (x, or a part of it, as a call's first
 * argument) or copies it out: an input tile only is read there.  A tile
 * computed in place and copied out from is tbuf_queues' loop, which gives
 * the result a queue of its own.
 */
static bool not_input_only(const struct cxx_file *f, size_t a, size_t b, size_t x)
{
        for (size_t i = a; i != NONE && i <= b; i = cxx_tok_next(f, i)) {
                size_t open, name;
                if (!tok_same(f, i, x))
                        continue;
                if (cxx_tok_eq(f, cxx_tok_prev(f, i), "("))
                        return true;
                open = enclosing_open(f, i, a);
                name = open == NONE ? NONE : cxx_tok_prev(f, open);
                if (name != NONE &&
                    (cxx_tok_eq(f, name, "DataCopy") || cxx_tok_eq(f, name, "DataCopyPad")))
                        return true;
        }
        return false;
}

/* b's one "InitBuffer(b, size)" statement in the file. */
static bool init_of_tbuf(const struct cxx_file *f, size_t b, struct tbuf_loop *tl)
{
        size_t found = 0;

        for (size_t i = 0; i < f->tokens.n; i++) {
                struct cxx_call c;
                size_t first;
                if (!cxx_tok_eq(f, i, "InitBuffer"))
                        continue;
                first = cxx_stmt_first(f, i);
                if (!cxx_stmt_call(f, first, cxx_stmt_last(f, first), &c) || c.name != i ||
                    c.n_args != 2 || c.args[0].first != c.args[0].last ||
                    !tok_same(f, c.args[0].first, b))
                        continue;
                found++;
                tl->init = c;
                tl->init_first = first;
                tl->init_last = cxx_stmt_last(f, first);
        }
        return found == 1;
}

static bool tbuf_loop_at(const struct cxx_file *f, const struct cxx_func *func,
                         const struct cxx_func *funcs, size_t n_funcs, size_t first,
                         struct tbuf_loop *tl)
{
        struct tile_loop *l = &tl->l;
        struct motif_decl xd;
        size_t copies = 0, k, gt, eq, dot;

        if (!tile_loop_at(f, first, l))
                return false;
        tl->n = statements_of(f, l->body, tl->s, BODY_MAX);
        tl->x = NONE;
        for (k = 0; k < tl->n; k++) {
                size_t last = cxx_stmt_last(f, tl->s[k]);
                struct cxx_call c;
                if (plain_decl(f, tl->s[k], last) != NONE)
                        continue;
                if (tl->x == NONE && cxx_stmt_call(f, tl->s[k], last, &c) && c.obj == NONE &&
                    (cxx_call_is(f, &c, "DataCopy") || cxx_call_is(f, &c, "DataCopyPad")) &&
                    c.n_args >= 3 && c.args[0].first == c.args[0].last)
                        tl->x = c.args[0].first;
                if (tl->x == NONE || !fetch_stmt(f, tl->s[k], last, tl->x, 0))
                        break;
                copies++;
        }
        tl->run = k;
        if (!copies || tl->run >= tl->n)
                return false;
        /* x: "LocalTensor<T> x = b.Get<T>();" in the function before the loop, b a TBuf */
        if (!decl_find(f, func->open, first, cxx_tok_text(f, tl->x), cxx_tok_len(f, tl->x), &xd) ||
            !decl_is(f, &xd, "LocalTensor") || xd.n_declarators != 1)
                return false;
        gt = xd.gt;
        eq = cxx_tok_next(f, cxx_tok_next(f, gt));
        tl->b = cxx_tok_next(f, eq);
        dot = cxx_tok_next(f, tl->b);
        if (!cxx_tok_eq(f, eq, "=") || !cxx_tok_eq(f, dot, ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, dot), "Get") || !cxx_tok_eq(f, xd.last, ";"))
                return false;
        tl->get_first = xd.first;
        tl->get_last = xd.last;
        if (!decl_of(f, func, tl->b, &tl->b_decl) || !decl_is(f, &tl->b_decl, "TBuf") ||
            !init_of_tbuf(f, tl->b, tl))
                return false;
        /* b: declared, set up and taken once; x: taken there and used in the loop alone */
        if (ident_count(f, 0, f->tokens.n - 1, tl->b) != 3 ||
            ident_count(f, func->open, func->close, tl->x) !=
                ident_count(f, l->body, l->close, tl->x) + 1 ||
            scalar_reads(f, l->body, l->close, tl->x) ||
            not_input_only(f, tl->s[tl->run], l->close, tl->x))
                return false;
        /* the source of every copy is global memory */
        for (k = 0; k < tl->run; k++)
                for (size_t i = tl->s[k]; i != NONE && i <= cxx_stmt_last(f, tl->s[k]);
                     i = cxx_tok_next(f, i)) {
                        struct cxx_call c;
                        struct motif_decl gd;
                        size_t base;
                        if (!cxx_tok_eq(f, i, "DataCopy") && !cxx_tok_eq(f, i, "DataCopyPad"))
                                continue;
                        if (!cxx_stmt_call(f, i, cxx_stmt_last(f, i), &c) || c.n_args < 3)
                                return false;
                        base = cxx_arg_base(f, &c.args[1]);
                        if (base == NONE || !decl_of(f, func, base, &gd) ||
                            !decl_is(f, &gd, "GlobalTensor"))
                                return false;
                }
        tl->last_use = NONE;
        for (k = tl->run; k < tl->n; k++)
                if (ident_count(f, tl->s[k], cxx_stmt_last(f, tl->s[k]), tl->x))
                        tl->last_use = k;
        if (tl->last_use == NONE)
                return false;
        return !body_unsafe(f, l, funcs, n_funcs) &&
               !reads_assigned(f, tl->s[0], cxx_stmt_last(f, tl->s[tl->run - 1]), l, tl->s[0],
                               cxx_stmt_last(f, tl->s[tl->run - 1]));
}

/*
 * The run as the queue form's fetch, for index (renamed by rs): its
 * declarations, then the AllocTensor of x's new name, its copies and the
 * EnQue; lines indented by indent (the first not).
 */
static char *tbuf_fetch_text(const struct cxx_file *f, const struct tbuf_loop *tl,
                             const struct renames *rs, const char *type, const char *xnew,
                             const char *indent, const char *extra)
{
        char *text = NULL;
        bool ok = true;

        for (size_t k = 0; k < tl->run && ok; k++)
                if (plain_decl(f, tl->s[k], cxx_stmt_last(f, tl->s[k])) != NONE)
                        ok = append_stmt(&text, indent, f, tl->s[k], rs, extra);
        ok =
            ok && append_line(&text, indent,
                              str_printf("LocalTensor<%s> %s = %.*s.AllocTensor<%s>();", type, xnew,
                                         (int)cxx_tok_len(f, tl->b), cxx_tok_text(f, tl->b), type));
        for (size_t k = 0; k < tl->run && ok; k++)
                if (plain_decl(f, tl->s[k], cxx_stmt_last(f, tl->s[k])) == NONE)
                        ok = append_stmt(&text, indent, f, tl->s[k], rs, extra);
        ok = ok && append_line(&text, indent,
                               str_printf("%.*s.EnQue(%s);", (int)cxx_tok_len(f, tl->b),
                                          cxx_tok_text(f, tl->b), xnew));
        if (!ok) {
                free(text);
                return NULL;
        }
        return text;
}

/* rs: the loop variable as index, x and each name the run declares with a "Next" suffix. */
static int tbuf_renames(const struct cxx_file *f, const struct tbuf_loop *tl, const char *index,
                        struct renames *rs)
{
        int r = renames_add(rs, f, tl->l.var, index);

        for (size_t k = 0; k <= tl->run && r == 0; k++) {
                size_t name =
                    k == tl->run ? tl->x : plain_decl(f, tl->s[k], cxx_stmt_last(f, tl->s[k]));
                if (name != NONE)
                        r = add_next_name(rs, f, name);
        }
        return r;
}

static int tbuf_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                             const struct cxx_func *funcs, const struct cxx_stmt *st,
                             void *userdata)
{
        size_t n_funcs = *(const size_t *)userdata;
        struct tbuf_loop tl;
        struct loop_text t;
        struct renames first_rs = { .n = 0 }, next_rs = { .n = 0 };
        char *type = NULL, *ahead = NULL, *inside = NULL, *xname = NULL, *bname = NULL,
             *prologue = NULL, *deq = NULL, *body = NULL, *free_x = NULL;
        int r;

        if (!cxx_tok_eq(f, st->first, "for") ||
            !tbuf_loop_at(f, &funcs[st->func], funcs, n_funcs, st->first, &tl))
                return 0;
        r = loop_text_of(f, &tl.l, &t);
        type = local_tensor_type(f, &funcs[st->func], tl.x);
        xname = cxx_range_dup(f, tl.x, tl.x);
        bname = cxx_range_dup(f, tl.b, tl.b);
        if (r < 0 || !type || !xname || !bname) {
                r = r < 0 || type ? -ENOMEM : 0;
                goto out;
        }
        if ((r = tbuf_renames(f, &tl, t.first_index, &first_rs)) < 0 ||
            (r = tbuf_renames(f, &tl, t.next_index, &next_rs)) < 0)
                goto out;
        /* x's new name is the last rename */
        ahead = tbuf_fetch_text(f, &tl, &first_rs, type, first_rs.r[first_rs.n - 1].to, t.in1, "");
        inside =
            tbuf_fetch_text(f, &tl, &next_rs, type, next_rs.r[next_rs.n - 1].to, t.in2, t.unit);
        deq = str_printf("LocalTensor<%s> %s = %s.DeQue<%s>();", type, xname, bname, type);
        prologue = ahead ? first_fetch(&t, ahead) : NULL;
        body = inside && deq ? next_fetch(&t, deq, inside) : NULL;
        free_x = str_printf("%s.FreeTensor(%s);", bname, xname);
        site_begin(scan, f, st->first, "fetch tile %s + %s of %s before tile %s's compute", t.var,
                   t.step, bname, t.var);
        if (!prologue || !body || !free_x) {
                site_fail(scan);
        } else {
                site_redeclare(scan, f, &tl.b_decl, "TQue<QuePosition::VECIN, 2>");
                site_edit(scan, f, f->tokens.tokens[tl.init.args[1].first].start, 0, "2, ");
                site_delete_stmt(scan, f, tl.get_first, tl.get_last);
                site_insert_before(scan, f, st->first, prologue);
                for (size_t k = 0; k < tl.run; k++)
                        if (plain_decl(f, tl.s[k], cxx_stmt_last(f, tl.s[k])) == NONE)
                                site_delete_stmt(
                                    scan, f, tl.s[k],
                                    cxx_with_trailing_comment(f, cxx_stmt_last(f, tl.s[k])));
                site_insert_before(scan, f, tl.s[tl.run], body);
                site_insert_after(scan, f, tl.s[tl.last_use], cxx_stmt_last(f, tl.s[tl.last_use]),
                                  free_x);
        }
        r = site_end(scan);
out:
        renames_release(&first_rs);
        renames_release(&next_rs);
        loop_text_release(&t);
        free(type);
        free(xname);
        free(bname);
        free(ahead);
        free(inside);
        free(prologue);
        free(deq);
        free(body);
        free(free_x);
        return r;
}

int motif_prefetch_inline_forward(struct motif_scan *scan)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n_funcs = 0;
        int r = cxx_funcs_find(f, &funcs, &n_funcs);

        if (r == 0)
                r = walk_statements(scan, f, forward_stmt, &n_funcs);
        if (r == 0)
                r = walk_statements(scan, f, tbuf_forward_stmt, &n_funcs);
        free(funcs);
        return r;
}

/* ------------------------------------------------------------ the inverse */

/* "if (A < B) { ... }" with no else: the block's '{', else NONE; A and B's tokens out. */
static size_t guarded_block(const struct cxx_file *f, size_t first, size_t *a, size_t *b,
                            size_t *ba, size_t *bb)
{
        size_t open = cxx_tok_next(f, first), close, lt, block;

        if (!cxx_tok_eq(f, first, "if") || !cxx_tok_eq(f, open, "("))
                return NONE;
        close = token_match(&f->tokens, open);
        lt = top_level_tok(f, cxx_tok_next(f, open), cxx_tok_prev(f, close), "<");
        block = cxx_tok_next(f, close);
        if (lt == NONE || lt == cxx_tok_next(f, open) || cxx_tok_next(f, lt) >= close ||
            !cxx_tok_eq(f, block, "{") || cxx_stmt_last(f, first) != token_match(&f->tokens, block))
                return NONE;
        *a = cxx_tok_next(f, open);
        *b = cxx_tok_prev(f, lt);
        *ba = cxx_tok_next(f, lt);
        *bb = cxx_tok_prev(f, close);
        return block;
}

/* Replaces every "from" in *text by "to"; false when out of memory. */
static bool replace_all(char **text, const char *from, const char *to)
{
        size_t lf = strlen(from), lt = strlen(to), n = 0;
        char *out, *o;
        const char *p;

        for (p = *text; (p = strstr(p, from)); p += lf)
                n++;
        if (!n)
                return true;
        out = malloc(strlen(*text) + n * lt + 1);
        if (!out)
                return false;
        o = out;
        for (p = *text;;) {
                const char *hit = strstr(p, from);
                size_t keep = hit ? (size_t)(hit - p) : strlen(p);
                memcpy(o, p, keep);
                o += keep;
                if (!hit)
                        break;
                memcpy(o, to, lt);
                o += lt;
                p = hit + lf;
        }
        *o = '\0';
        free(*text);
        *text = out;
        return true;
}

/* The name without the "Next" (and digits) the forward gave it, into buf; false when none. */
static bool unsuffixed(const struct cxx_file *f, size_t tok, char *buf, size_t size)
{
        size_t len = cxx_tok_len(f, tok);
        const char *t = cxx_tok_text(f, tok);

        while (len > 0 && isdigit((unsigned char)t[len - 1]))
                len--;
        if (len <= 4 || memcmp(t + len - 4, "Next", 4) != 0 || len - 4 >= size)
                return false;
        snprintf(buf, size, "%.*s", (int)(len - 4), t);
        return true;
}

static int inverse_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        struct tile_loop l;
        size_t s[BODY_MAX], g[BODY_MAX], n, ng, d, block, prev, a, b, ba, bb, pa, pb, pba, pbb, q,
            y, x2, q2;
        struct renames rs = { .n = 0 };
        char *indent = NULL, *var = NULL, *step = NULL, *next = NULL, *text = NULL, base[64];
        const char *unit = cxx_indent_unit(f);
        bool reassigned;
        int r = 0;

        (void)userdata;
        if (!cxx_tok_eq(f, st->first, "for") || st->block == NONE ||
            !tile_loop_at(f, st->first, &l))
                return 0;
        /* the fetch of the first tile, just before the loop */
        prev = cxx_stmt_before(f, st->first, st->block);
        if (prev == NONE || guarded_block(f, prev, &pa, &pb, &pba, &pbb) == NONE ||
            !cxx_range_same(f, pa, pb, l.init_a, l.init_b) ||
            !cxx_range_same(f, pba, pbb, l.bound_a, l.bound_b))
                return 0;
        n = statements_of(f, l.body, s, BODY_MAX);
        for (d = 0; d + 1 < n; d++)
                if ((y = queue_decl(f, s[d], cxx_stmt_last(f, s[d]), "DeQue", &q)) != NONE)
                        break;
        if (d + 1 >= n || (block = guarded_block(f, s[d + 1], &a, &b, &ba, &bb)) == NONE ||
            !cxx_range_same(f, ba, bb, l.bound_a, l.bound_b) || !tok_same(f, a, l.var) ||
            !cxx_tok_eq(f, cxx_tok_next(f, a), "+"))
                return 0;
        if (l.step_a == NONE
                ? !(cxx_tok_next(f, cxx_tok_next(f, a)) == b && cxx_tok_is_number(f, b, "1"))
                : !cxx_range_same(f, cxx_tok_next(f, cxx_tok_next(f, a)), b, l.step_a, l.step_b))
                return 0;
        /* the guarded fetch: the pre declarations again, the AllocTensor, the copies, the EnQue */
        ng = statements_of(f, block, g, BODY_MAX);
        if (ng < d + 3 ||
            (x2 = queue_decl(f, g[d], cxx_stmt_last(f, g[d]), "AllocTensor", &q2)) == NONE ||
            !tok_same(f, q2, q) ||
            !queue_call_of(f, g[ng - 1], cxx_stmt_last(f, g[ng - 1]), "EnQue", q, x2))
                return 0;
        for (size_t k = 0; k < d; k++) {
                size_t name = plain_decl(f, s[k], cxx_stmt_last(f, s[k])),
                       name2 = plain_decl(f, g[k], cxx_stmt_last(f, g[k]));
                if (name == NONE || name2 == NONE)
                        return 0;
                cxx_tok_copy(f, name, base, sizeof(base));
                if ((r = renames_add(&rs, f, name2, base)) < 0)
                        goto out;
        }
        if (!unsuffixed(f, x2, base, sizeof(base)))
                goto out;
        reassigned = cxx_tok_eq(f, y, base);
        if (!reassigned &&
            cxx_range_mentions(f, funcs[st->func].open, funcs[st->func].close, base, strlen(base)))
                goto out; /* the name it had is taken now */
        if ((r = renames_add(&rs, f, x2, base)) < 0)
                goto out;
        indent = cxx_indent_at(f, f->tokens.tokens[s[d]].start);
        var = cxx_range_dup(f, l.var, l.var);
        step = range_text(f, l.step_a, l.step_b);
        next = var && step ? str_printf("(%s + %s)", var, step) : NULL;
        if (!indent || !next) {
                r = -ENOMEM;
                goto out;
        }
        {
                char *dedent = str_printf("\n%s", unit);
                bool ok = dedent != NULL;
                for (size_t k = d; k < ng && ok; k++) {
                        char *line = renamed(
                            f, g[k], cxx_with_trailing_comment(f, cxx_stmt_last(f, g[k])), &rs, "");
                        ok = line && replace_all(&line, dedent, "\n") &&
                             replace_all(&line, next, var) && append_line(&text, indent, line);
                        if (!ok && line && !text)
                                free(line);
                }
                if (ok)
                        ok = append_line(
                            &text, indent,
                            cxx_range_dup(f, reassigned ? y : s[d], cxx_stmt_last(f, s[d])));
                free(dedent);
                if (!ok) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        site_begin(scan, f, st->first, "fetch tile %s in its turn", var);
        site_delete_stmt(scan, f, prev, cxx_stmt_last(f, prev));
        site_replace(scan, f, s[d], cxx_stmt_last(f, s[d + 1]), text);
        r = site_end(scan);
out:
        renames_release(&rs);
        free(indent);
        free(var);
        free(step);
        free(next);
        free(text);
        return r;
}

int motif_prefetch_inline_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), inverse_stmt, NULL);
}
