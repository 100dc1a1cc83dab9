/* SPDX-License-Identifier: MIT */
/*
 * Motifs about buffers, synchronisation and launch: double buffering,
 * prefetching the next tile, barrier removal, AIV-only launch, the L2 bypass hint, bank-conflict pads
 * and TBuf for temporaries.  Each scanner records sites with their edits.
 */
#include "motifs-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct cxx_file *kernel_of(struct motif_scan *scan)
{
        return &scan->files[scan->kernel];
}

static bool name_is(const struct cxx_file *f, size_t i, const char *name, size_t len)
{
        return cxx_tok_is_ident(f, i) && cxx_tok_len(f, i) == len &&
               memcmp(cxx_tok_text(f, i), name, len) == 0;
}

/* ================================================================ double buffer */

/* The literal that defines name as value ("constexpr T name = 1;" or "#define name 1"). */
static size_t definition_of(const struct cxx_file *f, const char *name, size_t len,
                            const char *value)
{
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t p, nx, lit, after;

                if (!name_is(f, i, name, len))
                        continue;
                p = cxx_tok_prev(f, i);
                nx = cxx_tok_next(f, i);
                if (f->tokens.tokens[i].in_directive) {
                        if (p != CXX_NONE && cxx_tok_eq(f, p, "define") &&
                            cxx_tok_is_number(f, nx, value) && f->tokens.tokens[nx].in_directive &&
                            (cxx_tok_next(f, nx) >= f->tokens.n ||
                             !f->tokens.tokens[cxx_tok_next(f, nx)].in_directive ||
                             f->tokens.tokens[cxx_tok_next(f, nx)].kind == TOKEN_DIRECTIVE))
                                return nx;
                        continue;
                }
                if (p == CXX_NONE || !cxx_tok_is_ident(f, p) || !cxx_tok_eq(f, nx, "="))
                        continue;
                lit = cxx_tok_next(f, nx);
                after = cxx_tok_next(f, lit);
                if (cxx_tok_is_number(f, lit, value) &&
                    (cxx_tok_eq(f, after, ";") || cxx_tok_eq(f, after, ",")))
                        return lit;
        }
        return CXX_NONE;
}

/*
 * A prefetching loop: "F(0);" (or "if (c) F(0);") before
 * "for (... i = 0; i < N; ...) { ... if (i + 1 < N) F(i + 1); ... }".
 * With one buffer per queue it would hold two tensors of F's queue at
 * once, so the inverse turns it back into "F(i);" in the body.
 */
struct prefetch {
        size_t first, last;             /* the statement that fetches tile 0 */
        size_t guard_first, guard_last; /* the "if (i + 1 < N) F(i + 1);" statement */
        size_t callee_first, callee_open;
        size_t var; /* the loop variable */
};

struct prefetch_list {
        struct prefetch *items;
        size_t n;
        size_t *next_calls; /* first tokens of every "F(x + 1);" inside a loop */
        size_t n_next;
};

/* Whether tokens from a spell "var + 1" up to and including b. */
static bool is_next_index(const struct cxx_file *f, size_t a, size_t b, size_t var)
{
        size_t plus = cxx_tok_next(f, a), one = cxx_tok_next(f, plus);

        return a != CXX_NONE && cxx_tok_len(f, a) == cxx_tok_len(f, var) &&
               memcmp(cxx_tok_text(f, a), cxx_tok_text(f, var), cxx_tok_len(f, var)) == 0 &&
               cxx_tok_eq(f, plus, "+") && cxx_tok_is_number(f, one, "1") && one == b;
}

/* The call statement [first, last] with one argument, else false. */
static bool one_arg_call(const struct cxx_file *f, size_t first, size_t last, struct cxx_call *c)
{
        return cxx_stmt_call(f, first, last, c) && c->n_args == 1 && c->args[0].first != CXX_NONE;
}

/* Unwraps "{ stmt }" to stmt's bounds. */
static void unbrace(const struct cxx_file *f, size_t *first, size_t *last)
{
        if (cxx_tok_eq(f, *first, "{") && token_match(&f->tokens, *first) == *last) {
                size_t in = cxx_tok_next(f, *first);
                if (in < *last && cxx_stmt_last(f, in) == cxx_tok_prev(f, *last)) {
                        *first = in;
                        *last = cxx_tok_prev(f, *last);
                }
        }
}

/*
 * Whether [first, last] is "if (var + 1 < N) F(var + 1);" for the loop
 * bound [na, nb]; the call is returned in c.
 */
static bool is_prefetch_guard(const struct cxx_file *f, size_t first, size_t last, size_t var,
                              size_t na, size_t nb, struct cxx_call *c)
{
        size_t open = cxx_tok_next(f, first), close, lt, body, body_last;

        if (!cxx_tok_eq(f, first, "if") || !cxx_tok_eq(f, open, "("))
                return false;
        close = token_match(&f->tokens, open);
        lt = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, open)));
        lt = cxx_tok_next(f, lt);
        if (!is_next_index(f, cxx_tok_next(f, open), cxx_tok_prev(f, lt), var) ||
            !cxx_tok_eq(f, lt, "<") ||
            !cxx_range_same(f, cxx_tok_next(f, lt), cxx_tok_prev(f, close), na, nb))
                return false;
        body = cxx_tok_next(f, close);
        body_last = cxx_stmt_last(f, body);
        if (body_last != last)
                return false; /* an else branch */
        unbrace(f, &body, &body_last);
        return one_arg_call(f, body, body_last, c) &&
               is_next_index(f, c->args[0].first, c->args[0].last, var);
}

/* Whether statement [first, last] fetches tile 0 with the callee of c: "F(0);" or "if (..) F(0);". */
static bool is_first_fetch(const struct cxx_file *f, size_t first, size_t last,
                           const struct cxx_call *c)
{
        struct cxx_call c0;
        size_t a = first, b = last;

        if (cxx_tok_eq(f, first, "if")) {
                size_t close = token_match(&f->tokens, cxx_tok_next(f, first));
                a = cxx_tok_next(f, close);
                if (cxx_stmt_last(f, a) != last)
                        return false;
                unbrace(f, &a, &b);
        }
        return one_arg_call(f, a, b, &c0) && cxx_tok_is_number(f, c0.args[0].first, "0") &&
               c0.args[0].first == c0.args[0].last &&
               cxx_range_same(f, c0.name, c0.name, c->name, c->name) &&
               ((c0.obj == CXX_NONE && c->obj == CXX_NONE) ||
                (c0.obj != CXX_NONE && c->obj != CXX_NONE &&
                 cxx_range_same(f, c0.obj, cxx_tok_prev(f, c0.name), c->obj,
                                cxx_tok_prev(f, c->name))));
}

/*
 * "for (<T> var = 0; var < N; var++) { ... }": the loop variable, the
 * bound's tokens [*na, *nb] and the body's braces; false for any other
 * loop (the increment must be var++, ++var or var += 1).
 */
static bool counted_loop(const struct cxx_file *f, size_t first, size_t *var, size_t *na,
                         size_t *nb, size_t *body, size_t *body_close)
{
        size_t open = cxx_tok_next(f, first), close, semi1 = CXX_NONE, semi2 = CXX_NONE, lt, inc,
               end;

        if (!cxx_tok_eq(f, first, "for") || !cxx_tok_eq(f, open, "("))
                return false;
        close = token_match(&f->tokens, open);
        for (size_t k = cxx_tok_next(f, open); k < close; k = cxx_tok_next(f, k))
                if (cxx_tok_eq(f, k, ";")) {
                        if (semi1 == CXX_NONE) {
                                semi1 = k;
                        } else {
                                semi2 = k;
                                break;
                        }
                }
        if (semi2 == CXX_NONE || !cxx_tok_is_number(f, cxx_tok_prev(f, semi1), "0") ||
            !cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, semi1)), "="))
                return false;
        *var = cxx_tok_prev(f, cxx_tok_prev(f, cxx_tok_prev(f, semi1)));
        lt = cxx_tok_next(f, cxx_tok_next(f, semi1));
        if (!cxx_tok_is_ident(f, *var) ||
            !cxx_range_same(f, cxx_tok_next(f, semi1), cxx_tok_next(f, semi1), *var, *var) ||
            !cxx_tok_eq(f, lt, "<") || cxx_tok_next(f, lt) >= semi2)
                return false;
        *na = cxx_tok_next(f, lt);
        *nb = cxx_tok_prev(f, semi2);
        inc = cxx_tok_next(f, semi2);
        end = cxx_tok_prev(f, close);
        if (!((cxx_range_same(f, inc, inc, *var, *var) && cxx_tok_eq(f, end, "++") &&
               cxx_tok_next(f, inc) == end) ||
              (cxx_tok_eq(f, inc, "++") && cxx_range_same(f, end, end, *var, *var) &&
               cxx_tok_next(f, inc) == end) ||
              (cxx_range_same(f, inc, inc, *var, *var) &&
               cxx_tok_eq(f, cxx_tok_next(f, inc), "+=") && cxx_tok_is_number(f, end, "1") &&
               cxx_tok_next(f, cxx_tok_next(f, inc)) == end)))
                return false;
        *body = cxx_tok_next(f, close);
        if (!cxx_tok_eq(f, *body, "{"))
                return false;
        *body_close = token_match(&f->tokens, *body);
        return true;
}

static int prefetch_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                         const struct cxx_stmt *st, void *userdata)
{
        struct prefetch_list *list = userdata;
        size_t var, na, nb, body, lb, prev;
        struct cxx_call c;
        struct prefetch *grown;

        (void)scan;
        (void)funcs;
        /* every "F(x + 1);" inside a loop must turn out to be a recognised guard's */
        if (st->loop != CXX_NONE && one_arg_call(f, st->first, st->last, &c) &&
            cxx_tok_eq(f, cxx_tok_next(f, c.args[0].first), "+") &&
            cxx_tok_is_number(f, c.args[0].last, "1") &&
            cxx_tok_next(f, cxx_tok_next(f, c.args[0].first)) == c.args[0].last) {
                size_t *more = realloc(list->next_calls, (list->n_next + 1) * sizeof(*more));
                if (!more)
                        return -ENOMEM;
                list->next_calls = more;
                list->next_calls[list->n_next++] = st->first;
        }
        if (st->block == CXX_NONE || !counted_loop(f, st->first, &var, &na, &nb, &body, &lb))
                return 0;
        for (size_t s = cxx_tok_next(f, body); s != CXX_NONE && s < lb;
             s = cxx_stmt_after(f, cxx_stmt_last(f, s), body)) {
                size_t last = cxx_stmt_last(f, s);
                if (!is_prefetch_guard(f, s, last, var, na, nb, &c))
                        continue;
                for (prev = cxx_stmt_before(f, st->first, st->block); prev != CXX_NONE;
                     prev = cxx_stmt_before(f, prev, st->block))
                        if (is_first_fetch(f, prev, cxx_stmt_last(f, prev), &c))
                                break;
                if (prev == CXX_NONE)
                        return 0;
                grown = realloc(list->items, (list->n + 1) * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                list->items = grown;
                list->items[list->n++] = (struct prefetch){
                        .first = prev,
                        .last = cxx_stmt_last(f, prev),
                        .guard_first = s,
                        .guard_last = last,
                        .callee_first = c.obj != CXX_NONE ? c.obj : c.name,
                        .callee_open = c.open,
                        .var = var,
                };
                return 0;
        }
        return 0;
}

/* Finds the prefetching loops of the kernel; *ret_ok is false when one is not understood. */
static int prefetches_find(struct motif_scan *scan, struct cxx_file *f, struct prefetch_list *list,
                           bool *ret_ok)
{
        int r;

        r = walk_statements(scan, f, prefetch_stmt, list);
        if (r < 0)
                return r;
        *ret_ok = true;
        for (size_t i = 0; i < list->n_next; i++) {
                bool known = false;
                for (size_t k = 0; k < list->n; k++)
                        if (list->next_calls[i] > list->items[k].guard_first &&
                            list->next_calls[i] <= list->items[k].guard_last)
                                known = true;
                if (!known)
                        *ret_ok = false;
        }
        return 0;
}

/* Adds the edits that unwind one prefetching loop to the open site: "F(i);" again. */
static void prefetch_unwind(struct motif_scan *scan, struct cxx_file *f, const struct prefetch *p)
{
        char *callee = cxx_range_dup(f, p->callee_first, p->callee_open);
        char *text = callee ? str_printf("%s%.*s);", callee, (int)cxx_tok_len(f, p->var),
                                         cxx_tok_text(f, p->var))
                            : NULL;

        if (!text) {
                site_fail(scan);
        } else {
                site_delete_stmt(scan, f, p->first, cxx_with_trailing_comment(f, p->last));
                site_replace(scan, f, p->guard_first, p->guard_last, text);
        }
        free(callee);
        free(text);
}

/* Adds the edits that unwind every prefetch to the open site. */
static void prefetches_unwind(struct motif_scan *scan, struct cxx_file *f,
                              const struct prefetch_list *list)
{
        for (size_t k = 0; k < list->n; k++)
                prefetch_unwind(scan, f, &list->items[k]);
}

/*
 * from -> to buffers per queue.  The forward keeps the host's constant of
 * the same name in step, so the tiling may use the UB the second buffers
 * need.  The inverse changes the kernel only: one buffer of the host's
 * size fits where two did, and some hosts lay out a fixed two slots per
 * queue (swiglu's bank-spaced layout) that a host constant of 1 would
 * break.  The inverse also unwinds prefetching loops, which need two
 * buffers, or declines when it cannot.
 */
static int double_buffer(struct motif_scan *scan, const char *from, const char *to, bool inverse)
{
        struct cxx_file *f = kernel_of(scan);
        struct prefetch_list prefetches = { 0 };
        bool understood = true;
        int r = 0;

        if (inverse) {
                r = prefetches_find(scan, f, &prefetches, &understood);
                if (r < 0 || !understood)
                        goto out;
        }
        for (size_t i = 0; i < f->tokens.n; i++) {
                struct cxx_arg args[4];
                size_t open = cxx_tok_next(f, i), def;

                if (!cxx_tok_eq(f, i, "InitBuffer") || !cxx_tok_eq(f, open, "(") ||
                    cxx_args_split(f, open, args, 4) != 3 || args[1].first == CXX_NONE ||
                    args[1].first != args[1].last || args[0].first == CXX_NONE)
                        continue;
                if (cxx_tok_is_number(f, args[1].first, from)) {
                        site_begin(scan, f, i, "InitBuffer(%.*s, %s, ...): %s buffers",
                                   (int)cxx_tok_len(f, args[0].first),
                                   cxx_tok_text(f, args[0].first), from, to);
                        site_replace(scan, f, args[1].first, args[1].first, to);
                        prefetches_unwind(scan, f, &prefetches);
                        r = site_end(scan);
                        if (r < 0)
                                goto out;
                        continue;
                }
                if (!cxx_tok_is_ident(f, args[1].first))
                        continue;
                def = definition_of(f, cxx_tok_text(f, args[1].first),
                                    cxx_tok_len(f, args[1].first), from);
                if (def == CXX_NONE || site_exists_at(scan, f, f->tokens.tokens[def].start))
                        continue;
                site_begin(scan, f, def, "%.*s = %s -> %s (every queue that uses it)",
                           (int)cxx_tok_len(f, args[1].first), cxx_tok_text(f, args[1].first), from,
                           to);
                site_replace(scan, f, def, def, to);
                prefetches_unwind(scan, f, &prefetches);
                /* the tiling splits UB by the same constant: let it use the room */
                for (size_t h = 0; !inverse && h < scan->n_files; h++) {
                        struct cxx_file *host = &scan->files[h];
                        size_t hd;
                        if (!scan_is_host(host))
                                continue;
                        hd = definition_of(host, cxx_tok_text(f, args[1].first),
                                           cxx_tok_len(f, args[1].first), from);
                        if (hd != CXX_NONE)
                                site_replace(scan, host, hd, hd, to);
                }
                r = site_end(scan);
                if (r < 0)
                        goto out;
        }
out:
        free(prefetches.items);
        free(prefetches.next_calls);
        return r;
}

int motif_double_buffer_forward(struct motif_scan *scan)
{
        return double_buffer(scan, "1", "2", false);
}

int motif_double_buffer_inverse(struct motif_scan *scan)
{
        return double_buffer(scan, "2", "1", true);
}

/* ================================================================ prefetching the next tile */

#define FETCHED_QUEUES_MAX 4

/*
 * The queues a copy-in function fills: the Q of every "Q.EnQue(" in the
 * body of the function named like the call's callee, which must also
 * DataCopy (from GM).  0 when it is no such function.
 */
static size_t fetched_queues(const struct cxx_file *f, const struct cxx_func *funcs, size_t n_funcs,
                             const struct cxx_call *c, size_t queues[FETCHED_QUEUES_MAX])
{
        for (size_t k = 0; k < n_funcs; k++) {
                const struct cxx_func *fn = &funcs[k];
                size_t n = 0;
                bool copies = false;
                if (fn->name == CXX_NONE ||
                    !cxx_range_same(f, fn->name, fn->name, c->name, c->name))
                        continue;
                for (size_t i = fn->open; i < fn->close; i = cxx_tok_next(f, i)) {
                        size_t dot = cxx_tok_prev(f, i), q = cxx_tok_prev(f, dot);
                        copies |= cxx_tok_eq(f, i, "DataCopy") || cxx_tok_eq(f, i, "DataCopyPad");
                        if (!cxx_tok_eq(f, i, "EnQue") || !cxx_tok_eq(f, dot, ".") ||
                            !cxx_tok_is_ident(f, q))
                                continue;
                        if (n == FETCHED_QUEUES_MAX)
                                return 0;
                        queues[n++] = q;
                }
                return copies ? n : 0;
        }
        return 0;
}

/* Replaces token tok with text once per site: queues declared together share a depth. */
static void replace_once(struct motif_scan *scan, struct cxx_file *f, struct queue_edits *done,
                         size_t a, size_t b, const char *text)
{
        for (size_t k = 0; k < done->n; k++)
                if (done->tokens[k] == a)
                        return;
        if (done->n < sizeof(done->tokens) / sizeof(done->tokens[0]))
                done->tokens[done->n++] = a;
        site_replace(scan, f, a, b, text);
}

/*
 * Makes queue q hold two tensors, where it holds one: its TQue's depth
 * (the second template argument) and its InitBuffer's count, a literal 1,
 * a constant defined as 1 or a value the kernel only learns at run time
 * (t.bufferNum), each become 2.  A prefetching loop holds tile i + 1
 * while tile i is computed.
 */
void site_queue_two_buffers(struct motif_scan *scan, struct cxx_file *f, size_t q,
                            struct queue_edits *done)
{
        const char *name = cxx_tok_text(f, q);
        size_t len = cxx_tok_len(f, q);
        struct motif_decl d;

        if (decl_find(f, 0, f->tokens.n - 1, name, len, &d) && decl_is(f, &d, "TQue")) {
                size_t depth = CXX_NONE;
                int level = 0;
                for (size_t k = cxx_tok_next(f, d.lt); k < d.gt; k = cxx_tok_next(f, k)) {
                        level += cxx_tok_eq(f, k, "<") - cxx_tok_eq(f, k, ">");
                        if (level == 0 && cxx_tok_eq(f, k, ",")) {
                                depth = cxx_tok_next(f, k);
                                break;
                        }
                }
                if (depth != CXX_NONE && cxx_tok_next(f, depth) == d.gt &&
                    (cxx_tok_is_number(f, depth, "1") ||
                     (cxx_tok_is_ident(f, depth) &&
                      definition_of(f, cxx_tok_text(f, depth), cxx_tok_len(f, depth), "1") !=
                          CXX_NONE)))
                        replace_once(scan, f, done, depth, depth, "2");
        }
        for (size_t i = 0; i < f->tokens.n; i++) {
                struct cxx_arg args[4];
                size_t open = cxx_tok_next(f, i);
                bool one;
                if (!cxx_tok_eq(f, i, "InitBuffer") || !cxx_tok_eq(f, open, "(") ||
                    cxx_args_split(f, open, args, 4) != 3 || args[0].first != args[0].last ||
                    !cxx_range_same(f, args[0].first, args[0].first, q, q) ||
                    args[1].first == CXX_NONE)
                        continue;
                if (args[1].first == args[1].last &&
                    cxx_tok_is_kind(f, args[1].first, TOKEN_NUMBER))
                        one = cxx_tok_is_number(f, args[1].first, "1");
                else if (args[1].first == args[1].last && cxx_tok_is_ident(f, args[1].first))
                        one = definition_of(f, cxx_tok_text(f, args[1].first),
                                            cxx_tok_len(f, args[1].first), "1") != CXX_NONE;
                else
                        one = true; /* t.bufferNum: known at run time only */
                if (one)
                        replace_once(scan, f, done, args[1].first, args[1].last, "2");
        }
}

/* The loop statement of a scan of prefetchable loops. */
static int prefetch_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        size_t n_funcs = *(const size_t *)userdata, var, na, nb, body, lb,
               queues[FETCHED_QUEUES_MAX];
        size_t fetch = CXX_NONE, fetch_last = CXX_NONE, n_queues = 0;
        struct cxx_call c = { 0 }, seen;

        if (!counted_loop(f, st->first, &var, &na, &nb, &body, &lb))
                return 0;
        for (size_t s = cxx_tok_next(f, body); s != CXX_NONE && s < lb;
             s = cxx_stmt_after(f, cxx_stmt_last(f, s), body)) {
                size_t last = cxx_stmt_last(f, s);
                if (is_prefetch_guard(f, s, last, var, na, nb, &seen))
                        return 0; /* prefetches already */
                if (fetch != CXX_NONE || !one_arg_call(f, s, last, &c) ||
                    c.args[0].first != c.args[0].last ||
                    !cxx_range_same(f, c.args[0].first, c.args[0].first, var, var))
                        continue;
                n_queues = fetched_queues(f, funcs, n_funcs, &c, queues);
                if (n_queues) {
                        fetch = s;
                        fetch_last = last;
                }
        }
        if (fetch == CXX_NONE)
                return 0;
        one_arg_call(f, fetch, fetch_last, &c);
        {
                size_t callee_first = c.obj != CXX_NONE ? c.obj : c.name;
                char *callee = cxx_range_dup(f, callee_first, c.open);
                char *bound = cxx_range_dup(f, na, nb);
                char *v = cxx_range_dup(f, var, var);
                char *first =
                    callee && bound ? str_printf("if (0 < %s) %s0);", bound, callee) : NULL;
                char *guard = callee && bound && v
                                  ? str_printf("if (%s + 1 < %s) %s%s + 1);", v, bound, callee, v)
                                  : NULL;
                site_begin(scan, f, st->first, "%s%s + 1) ahead of tile %s's compute",
                           callee ? callee : "?", v ? v : "?", v ? v : "?");
                if (!first || !guard)
                        site_fail(scan);
                else {
                        struct queue_edits done = { .n = 0 };
                        site_insert_before(scan, f, st->first, first);
                        site_replace(scan, f, fetch, fetch_last, guard);
                        for (size_t k = 0; k < n_queues; k++)
                                site_queue_two_buffers(scan, f, queues[k], &done);
                }
                free(callee);
                free(bound);
                free(v);
                free(first);
                free(guard);
        }
        return site_end(scan);
}

/*
 * Prefetching: in "for (i = 0; i < N; i++) { CopyIn(i); Compute(i);
 * CopyOut(i); }", tile i + 1's copy-in is issued before tile i is
 * computed, so that a compute that waits on the vector unit (a reduction
 * read back with GetValue) no longer holds the next copy back; the queues
 * it fills get two buffers.  The inverse is the double buffer motif's
 * unwinding, one loop at a time.
 */
int motif_prefetch_forward(struct motif_scan *scan)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n_funcs = 0;
        int r = cxx_funcs_find(f, &funcs, &n_funcs);

        if (r == 0)
                r = walk_statements(scan, f, prefetch_forward_stmt, &n_funcs);
        free(funcs);
        /* loops that fetch in their own body (motif-prefetch.c) */
        return r < 0 ? r : motif_prefetch_inline_forward(scan);
}

int motif_prefetch_inverse(struct motif_scan *scan)
{
        struct cxx_file *f = kernel_of(scan);
        struct prefetch_list list = { 0 };
        bool understood = true;
        int r = prefetches_find(scan, f, &list, &understood);

        for (size_t k = 0; r == 0 && understood && k < list.n; k++) {
                site_begin(scan, f, list.items[k].guard_first, "copy-in of tile %.*s in its turn",
                           (int)cxx_tok_len(f, list.items[k].var),
                           cxx_tok_text(f, list.items[k].var));
                prefetch_unwind(scan, f, &list.items[k]);
                r = site_end(scan);
        }
        free(list.items);
        free(list.next_calls);
        return r < 0 ? r : motif_prefetch_inline_inverse(scan);
}

/* ================================================================ barriers */

/* "PIPE_ALL" / "PIPE_V" of a barrier statement, else NULL. */
static const char *barrier_kind(const struct cxx_file *f, size_t first, size_t last)
{
        struct cxx_call c;
        size_t lt, arg;

        if (first == CXX_NONE || !cxx_stmt_call(f, first, last, &c))
                return NULL;
        if (cxx_call_is(f, &c, "PipeBarrier")) {
                lt = cxx_tok_next(f, c.name);
                arg = cxx_tok_next(f, lt);
                if (!cxx_tok_eq(f, lt, "<") || c.n_args != 0)
                        return NULL;
        } else if (cxx_call_is(f, &c, "pipe_barrier") && c.n_args == 1) {
                arg = c.args[0].first;
        } else {
                return NULL;
        }
        if (cxx_tok_eq(f, arg, "PIPE_ALL"))
                return "PIPE_ALL";
        if (cxx_tok_eq(f, arg, "PIPE_V"))
                return "PIPE_V";
        return NULL;
}

static bool stmt_vector_call(const struct cxx_file *f, size_t s, struct cxx_call *c)
{
        return s != CXX_NONE && cxx_stmt_call(f, s, cxx_stmt_last(f, s), c) &&
               is_vector_api(f, c->name);
}

static bool stmt_queue_op(const struct cxx_file *f, size_t s)
{
        struct cxx_call c;

        return s != CXX_NONE && cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) &&
               (cxx_call_is(f, &c, "EnQue") || cxx_call_is(f, &c, "DeQue") ||
                cxx_call_is(f, &c, "AllocTensor") || cxx_call_is(f, &c, "FreeTensor"));
}

/* Whether vector call b may read or overwrite what vector call a wrote. */
static bool depends(const struct cxx_file *f, const struct cxx_call *a, const struct cxx_call *b)
{
        bool reduce =
            cxx_tok_len(f, a->name) > 6 && strncmp(cxx_tok_text(f, a->name), "Reduce", 6) == 0;

        for (size_t i = 0; i < a->n_args && i < (reduce ? a->n_args : 1); i++) {
                size_t base = cxx_arg_base(f, &a->args[i]);
                if (base == CXX_NONE) {
                        if (a->args[i].first != CXX_NONE &&
                            cxx_range_mentions(f, b->open, b->close,
                                               cxx_tok_text(f, a->args[i].first),
                                               cxx_tok_len(f, a->args[i].first)))
                                return true;
                        continue;
                }
                if (cxx_range_mentions(f, b->open, b->close, cxx_tok_text(f, base),
                                       cxx_tok_len(f, base)))
                        return true;
        }
        return false;
}

static int barriers_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        const char *kind;
        size_t prev, next;
        struct cxx_call a, b;

        if (st->block == CXX_NONE)
                return 0;
        kind = barrier_kind(f, st->first, st->last);
        if (!kind)
                return 0;
        prev = cxx_stmt_before(f, st->first, st->block);
        next = cxx_stmt_after(f, st->last, st->block);
        if (strcmp(kind, "PIPE_ALL") == 0) {
                /* without auto-sync the barrier may be the only order there is */
                if (!scan->auto_sync && !(stmt_queue_op(f, prev) && stmt_queue_op(f, next)))
                        return 0;
                site_begin(scan, f, st->first, "remove PipeBarrier<PIPE_ALL>()");
        } else {
                bool redundant;
                if (!scan->auto_sync)
                        redundant = prev == CXX_NONE || next == CXX_NONE ||
                                    stmt_queue_op(f, prev) || stmt_queue_op(f, next) ||
                                    barrier_kind(f, prev, cxx_stmt_last(f, prev)) ||
                                    barrier_kind(f, next, cxx_stmt_last(f, next));
                else
                        redundant = !stmt_vector_call(f, prev, &a) ||
                                    !stmt_vector_call(f, next, &b) || !depends(f, &a, &b);
                if (!redundant)
                        return 0;
                site_begin(scan, f, st->first,
                           "remove PipeBarrier<PIPE_V>(): no vector dependency across it");
        }
        site_delete_stmt(scan, f, st->first, st->last);
        return site_end(scan);
}

int motif_barriers_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), barriers_forward_stmt, NULL);
}

static bool arg_is_gm(const struct cxx_file *f, const struct cxx_func *func,
                      const struct cxx_arg *a)
{
        struct motif_decl d;
        size_t base = cxx_arg_base(f, a);

        return base != CXX_NONE && decl_of(f, func, base, &d) && decl_is(f, &d, "GlobalTensor");
}

/* A DataCopy/DataCopyPad statement: 1 for GM -> UB, 2 for UB -> GM, 0 otherwise. */
static int copy_direction(const struct cxx_file *f, const struct cxx_func *func, size_t s,
                          struct cxx_call *c)
{
        bool gm0, gm1;

        if (s == CXX_NONE || !cxx_stmt_call(f, s, cxx_stmt_last(f, s), c) ||
            !(cxx_call_is(f, c, "DataCopy") || cxx_call_is(f, c, "DataCopyPad")) || c->n_args < 3)
                return 0;
        gm0 = arg_is_gm(f, func, &c->args[0]);
        gm1 = arg_is_gm(f, func, &c->args[1]);
        return gm1 && !gm0 ? 1 : gm0 && !gm1 ? 2 : 0;
}

static int barriers_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c, other;
        size_t prev, next;
        int dir;

        if (st->block == CXX_NONE)
                return 0;
        dir = copy_direction(f, func, st->first, &c);
        if (dir == 1) {
                next = cxx_stmt_after(f, st->last, st->block);
                if (next != CXX_NONE && (copy_direction(f, func, next, &other) ||
                                         barrier_kind(f, next, cxx_stmt_last(f, next))))
                        return 0;
                site_begin(scan, f, st->first, "insert PipeBarrier<PIPE_ALL>() after the copy-in");
                site_insert_after(scan, f, st->first, st->last, "PipeBarrier<PIPE_ALL>();");
                return site_end(scan);
        }
        if (dir == 2) {
                prev = cxx_stmt_before(f, st->first, st->block);
                if (prev != CXX_NONE && (copy_direction(f, func, prev, &other) ||
                                         barrier_kind(f, prev, cxx_stmt_last(f, prev))))
                        return 0;
                if (site_exists_at(scan, f, cxx_line_start(f, f->tokens.tokens[st->first].start)))
                        return 0;
                site_begin(scan, f, st->first,
                           "insert PipeBarrier<PIPE_ALL>() before the copy-out");
                site_insert_before(scan, f, st->first, "PipeBarrier<PIPE_ALL>();");
                return site_end(scan);
        }
        return 0;
}

int motif_barriers_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), barriers_inverse_stmt, NULL);
}

/* ================================================================ AIV-only */

static int aiv_only(struct motif_scan *scan, bool forward)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        int r;

        r = cxx_funcs_find(f, &funcs, &n);
        if (r < 0)
                return r;
        for (size_t k = 0; k < n && r >= 0; k++) {
                size_t s;
                if (!funcs[k].entry)
                        continue;
                for (s = cxx_tok_next(f, funcs[k].open); s < funcs[k].close;
                     s = cxx_tok_next(f, cxx_stmt_last(f, s))) {
                        struct cxx_call c;
                        if (!cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) ||
                            !cxx_call_is(f, &c, "KERNEL_TASK_TYPE_DEFAULT"))
                                continue;
                        if (forward)
                                break;
                        if (c.n_args == 1 &&
                            cxx_tok_eq(f, c.args[0].first, "KERNEL_TYPE_AIV_ONLY")) {
                                site_begin(scan, f, s,
                                           "remove KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY)");
                                site_delete_stmt(scan, f, s, cxx_stmt_last(f, s));
                                r = site_end(scan);
                        }
                }
                if (!forward || s < funcs[k].close)
                        continue;
                s = cxx_tok_next(f, funcs[k].open);
                if (s >= funcs[k].close)
                        continue;
                site_begin(scan, f, s, "launch the entry as AIV-only");
                site_insert_before(scan, f, s, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);");
                r = site_end(scan);
        }
        free(funcs);
        return r;
}

int motif_aiv_only_forward(struct motif_scan *scan)
{
        return aiv_only(scan, true);
}

int motif_aiv_only_inverse(struct motif_scan *scan)
{
        return aiv_only(scan, false);
}

/* ================================================================ L2 bypass */

struct stream_use {
        size_t base; /* the tensor's identifier token (in any statement) */
        bool written, read;
        size_t contexts[4]; /* loops, or functions when outside loops, that read it */
        size_t n_contexts;
        bool many;
};

static int stream_use_stmt(struct motif_scan *scan, struct cxx_file *f,
                           const struct cxx_func *funcs, const struct cxx_stmt *st, void *userdata)
{
        struct stream_use *u = userdata;
        struct cxx_call c;
        size_t ctx;

        if (!cxx_stmt_call(f, st->first, st->last, &c) ||
            !(cxx_call_is(f, &c, "DataCopy") || cxx_call_is(f, &c, "DataCopyPad")) || c.n_args < 3)
                return 0;
        for (int i = 0; i < 2; i++) {
                size_t base = cxx_arg_base(f, &c.args[i]);
                if (base == CXX_NONE || cxx_tok_len(f, base) != cxx_tok_len(f, u->base) ||
                    memcmp(cxx_tok_text(f, base), cxx_tok_text(f, u->base), cxx_tok_len(f, base)) !=
                        0)
                        continue;
                if (i == 0) {
                        u->written = true;
                        continue;
                }
                u->read = true;
                ctx = st->loop != CXX_NONE ? st->loop : funcs[st->func].open;
                bool seen = false;
                for (size_t k = 0; k < u->n_contexts; k++)
                        seen |= u->contexts[k] == ctx;
                if (!seen) {
                        if (u->n_contexts < 4)
                                u->contexts[u->n_contexts++] = ctx;
                        else
                                u->many = true;
                }
        }
        return 0;
}

static bool workspace_like(const struct cxx_file *f, size_t a, size_t b)
{
        for (size_t i = a; i <= b && i < f->tokens.n; i++) {
                char word[64];
                size_t n =
                    cxx_tok_len(f, i) < sizeof(word) - 1 ? cxx_tok_len(f, i) : sizeof(word) - 1;
                if (!cxx_tok_is_ident(f, i))
                        continue;
                for (size_t k = 0; k < n; k++)
                        word[k] = (char)tolower((unsigned char)cxx_tok_text(f, i)[k]);
                word[n] = '\0';
                if (strstr(word, "workspace") || strncmp(word, "ws", 2) == 0 ||
                    strstr(word, "sync"))
                        return true;
        }
        return false;
}

static int l2_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                           const struct cxx_func *funcs, const struct cxx_stmt *st, void *userdata)
{
        struct cxx_call c;
        struct stream_use use = { 0 };
        size_t base;
        char *obj, *text;
        int r;

        if (st->block == CXX_NONE || !cxx_stmt_call(f, st->first, st->last, &c) ||
            !cxx_call_is(f, &c, "SetGlobalBuffer") || c.obj == CXX_NONE)
                return 0;
        base = cxx_tok_prev(f, cxx_tok_prev(f, c.name));
        if (!cxx_tok_is_ident(f, base) || workspace_like(f, c.obj, c.close))
                return 0;
        /* already hinted? */
        for (size_t i = 0; i + 2 < f->tokens.n; i++)
                if (name_is(f, i, cxx_tok_text(f, base), cxx_tok_len(f, base)) &&
                    cxx_tok_eq(f, cxx_tok_next(f, i), ".") &&
                    cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "SetL2CacheHint"))
                        return 0;
        use.base = base;
        r = walk_statements(scan, f, stream_use_stmt, &use);
        if (r < 0)
                return r;
        if ((use.written && use.read) || use.n_contexts > 1 || use.many)
                return 0;
        obj = cxx_range_dup(f, c.obj, cxx_tok_prev(f, c.name));
        /* qualified, as CANN's own example writes it: a kernel need not be using namespace AscendC */
        text = obj ? str_printf("%sSetL2CacheHint(AscendC::CacheMode::CACHE_MODE_DISABLE);", obj)
                   : NULL;
        site_begin(scan, f, st->first, "%.*s is streamed once: bypass L2",
                   (int)cxx_tok_len(f, base), cxx_tok_text(f, base));
        if (text)
                site_insert_after(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        free(obj);
        free(text);
        return site_end(scan);
}

int motif_l2_bypass_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), l2_forward_stmt, NULL);
}

static int l2_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                           const struct cxx_func *funcs, const struct cxx_stmt *st, void *userdata)
{
        struct cxx_call c;

        if (st->block == CXX_NONE || !cxx_stmt_call(f, st->first, st->last, &c) ||
            !cxx_call_is(f, &c, "SetL2CacheHint") || c.n_args != 1 ||
            !cxx_range_mentions(f, c.open, c.close, "CACHE_MODE_DISABLE", 18))
                return 0;
        site_begin(scan, f, st->first, "remove the L2 bypass hint");
        site_delete_stmt(scan, f, st->first, st->last);
        return site_end(scan);
}

int motif_l2_bypass_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), l2_inverse_stmt, NULL);
}

/* ================================================================ bank-conflict pads */

/* A TBuf that is set up but never read: a pad. */
static bool is_pad(const struct cxx_file *f, const struct cxx_func *func, size_t name)
{
        struct motif_decl d;

        if (name == CXX_NONE || !decl_of(f, func, name, &d) || !decl_is(f, &d, "TBuf"))
                return false;
        for (size_t i = 0; i + 2 < f->tokens.n; i++)
                if (name_is(f, i, cxx_tok_text(f, name), cxx_tok_len(f, name)) &&
                    (cxx_tok_eq(f, cxx_tok_next(f, i), ".") ||
                     cxx_tok_eq(f, cxx_tok_next(f, i), "->")))
                        return false;
        return true;
}

static bool init_buffer_call(const struct cxx_file *f, size_t s, struct cxx_call *c)
{
        return s != CXX_NONE && cxx_stmt_call(f, s, cxx_stmt_last(f, s), c) &&
               cxx_call_is(f, c, "InitBuffer") && c->obj != CXX_NONE &&
               (c->n_args == 2 || c->n_args == 3) && cxx_arg_ident(f, &c->args[0]) != CXX_NONE;
}

static int pad_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                            const struct cxx_func *funcs, const struct cxx_stmt *st, void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call a, b;
        struct motif_decl d;
        size_t next;
        char name[64], *pipe = NULL, *decl = NULL, *init = NULL;
        int r;

        if (st->block == CXX_NONE || !init_buffer_call(f, st->first, &a))
                return 0;
        next = cxx_stmt_after(f, st->last, st->block);
        if (!init_buffer_call(f, next, &b) || is_pad(f, func, a.args[0].first) ||
            is_pad(f, func, b.args[0].first) || !decl_of(f, func, a.args[0].first, &d))
                return 0;
        cxx_fresh_name(f, "motifBankPad", name, sizeof(name));
        pipe = cxx_range_dup(f, b.obj, cxx_tok_prev(f, b.name));
        decl = str_printf("TBuf<QuePosition::VECCALC> %s;", name);
        init = pipe ? str_printf("%sInitBuffer(%s, 256);", pipe, name) : NULL;
        site_begin(scan, f, next, "256-byte pad between %.*s and %.*s",
                   (int)cxx_tok_len(f, a.args[0].first), cxx_tok_text(f, a.args[0].first),
                   (int)cxx_tok_len(f, b.args[0].first), cxx_tok_text(f, b.args[0].first));
        if (!decl || !init) {
                site_fail(scan);
        } else if (cxx_in_function(funcs, 1, d.first) ||
                   (d.first > func->open && d.first < func->close)) {
                site_insert_before(scan, f, next, decl);
                site_insert_before(scan, f, next, init);
        } else {
                site_insert_after(scan, f, d.first, d.last, decl);
                site_insert_before(scan, f, next, init);
        }
        /* the tiling's UB budget shrinks by the pad */
        for (size_t h = 0; h < scan->n_files; h++) {
                struct cxx_file *host = &scan->files[h];
                if (!scan_is_host(host))
                        continue;
                for (size_t i = 0; i < host->tokens.n; i++) {
                        size_t open = cxx_tok_next(host, i), close, s, last, var;
                        struct cxx_arg args[3];
                        char *text;
                        if (!cxx_tok_eq(host, i, "GetCoreMemSize") ||
                            !cxx_tok_eq(host, open, "(") ||
                            cxx_args_split(host, open, args, 3) != 2 ||
                            !cxx_range_mentions(host, args[0].first, args[0].last, "UB", 2))
                                continue;
                        var = cxx_arg_ident(host, &args[1]);
                        close = token_match(&host->tokens, open);
                        last = cxx_tok_next(host, close);
                        if (var == CXX_NONE || !cxx_tok_eq(host, last, ";"))
                                continue;
                        for (s = i; cxx_tok_prev(host, s) != CXX_NONE &&
                                    !cxx_tok_eq(host, cxx_tok_prev(host, s), ";") &&
                                    !cxx_tok_eq(host, cxx_tok_prev(host, s), "{") &&
                                    !cxx_tok_eq(host, cxx_tok_prev(host, s), "}");
                             s = cxx_tok_prev(host, s))
                                ;
                        text = str_printf("%.*s -= 256; /* the kernel's bank-conflict pad */",
                                          (int)cxx_tok_len(host, var), cxx_tok_text(host, var));
                        if (!text) {
                                site_fail(scan);
                                continue;
                        }
                        site_insert_after(scan, host, s, last, text);
                        free(text);
                }
        }
        r = site_end(scan);
        free(pipe);
        free(decl);
        free(init);
        return r;
}

int motif_bank_pad_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), pad_forward_stmt, NULL);
}

/* Removes the declarator of d named name (the whole statement when alone). */
static void delete_declarator(struct motif_scan *scan, struct cxx_file *f,
                              const struct motif_decl *d)
{
        size_t nx = cxx_tok_next(f, d->name), p = cxx_tok_prev(f, d->name);

        if (d->n_declarators == 1) {
                site_delete_stmt(scan, f, d->first, d->last);
        } else if (cxx_tok_eq(f, nx, ",")) {
                size_t after = cxx_tok_next(f, nx);
                site_edit(scan, f, f->tokens.tokens[d->name].start,
                          f->tokens.tokens[after].start - f->tokens.tokens[d->name].start, "");
        } else if (cxx_tok_eq(f, p, ",")) {
                site_edit(scan, f, f->tokens.tokens[p].start,
                          cxx_tok_end(f, d->name) - f->tokens.tokens[p].start, "");
        } else {
                site_fail(scan);
        }
}

static int pad_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                            const struct cxx_func *funcs, const struct cxx_stmt *st, void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        struct motif_decl d;

        if (st->block == CXX_NONE || !init_buffer_call(f, st->first, &c) || c.n_args != 2 ||
            !is_pad(f, func, c.args[0].first) || !decl_of(f, func, c.args[0].first, &d))
                return 0;
        site_begin(scan, f, st->first, "remove the pad %.*s", (int)cxx_tok_len(f, c.args[0].first),
                   cxx_tok_text(f, c.args[0].first));
        site_delete_stmt(scan, f, st->first, st->last);
        delete_declarator(scan, f, &d);
        return site_end(scan);
}

int motif_bank_pad_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), pad_inverse_stmt, NULL);
}

/* ================================================================ TQue <-> TBuf */

/* The statement holding token i, when i starts it: [*ret_first, *ret_last]. */
static bool starts_statement(const struct cxx_file *f, size_t i, size_t *ret_last)
{
        size_t p = cxx_tok_prev(f, i);

        if (p != CXX_NONE && !cxx_tok_eq(f, p, ";") && !cxx_tok_eq(f, p, "{") &&
            !cxx_tok_eq(f, p, "}"))
                return false;
        *ret_last = cxx_stmt_last(f, i);
        return true;
}

/* Text of the position argument of Kind<POS, ...>. */
static char *template_position(const struct cxx_file *f, const struct motif_decl *d)
{
        size_t a = cxx_tok_next(f, d->lt), b = a;

        for (size_t j = a; j < d->gt; j = cxx_tok_next(f, j)) {
                if (cxx_tok_eq(f, j, ","))
                        break;
                b = j;
        }
        return a < d->gt ? cxx_range_dup(f, a, b) : strdup("QuePosition::VECCALC");
}

void site_redeclare(struct motif_scan *scan, struct cxx_file *f, const struct motif_decl *d,
                    const char *type)
{
        char *text;

        if (d->n_declarators == 1) {
                site_replace(scan, f, d->kind, d->gt, type);
                return;
        }
        delete_declarator(scan, f, d);
        text = str_printf("%s %.*s;", type, (int)cxx_tok_len(f, d->name), cxx_tok_text(f, d->name));
        if (text)
                site_insert_after(scan, f, d->first, d->last, text);
        else
                site_fail(scan);
        free(text);
}

static int tbuf_forward(struct motif_scan *scan, struct cxx_file *f, struct cxx_func *funcs,
                        size_t n_funcs, const struct motif_decl *d)
{
        const char *name = cxx_tok_text(f, d->name);
        size_t len = cxx_tok_len(f, d->name), allocs = 0, inits = 0;
        char *pos, *type;
        int r;

        /* only InitBuffer, AllocTensor and FreeTensor: never enqueued */
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t nx, p;
                if (!name_is(f, i, name, len) || i == d->name)
                        continue;
                nx = cxx_tok_next(f, i);
                p = cxx_tok_prev(f, i);
                if (cxx_tok_eq(f, nx, ".") && cxx_tok_eq(f, cxx_tok_next(f, nx), "AllocTensor")) {
                        allocs++;
                } else if (cxx_tok_eq(f, nx, ".") &&
                           cxx_tok_eq(f, cxx_tok_next(f, nx), "FreeTensor")) {
                        size_t last;
                        if (!starts_statement(f, i, &last))
                                return 0;
                } else if (p != CXX_NONE && cxx_tok_eq(f, p, "(") &&
                           cxx_tok_eq(f, cxx_tok_prev(f, p), "InitBuffer")) {
                        inits++;
                } else {
                        return 0;
                }
        }
        if (!allocs || inits != 1)
                return 0;
        for (size_t k = 0; k < n_funcs; k++) {
                size_t in_func = 0;
                for (size_t i = funcs[k].open; i < funcs[k].close; i++)
                        if (name_is(f, i, name, len) &&
                            cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "AllocTensor"))
                                in_func++;
                if (in_func > 1)
                        return 0;
        }
        pos = template_position(f, d);
        type = pos ? str_printf("TBuf<%s>", pos) : NULL;
        site_begin(scan, f, d->name, "%.*s is only a temporary: make it a TBuf", (int)len, name);
        if (!type)
                site_fail(scan);
        else
                site_redeclare(scan, f, d, type);
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t nx, p, last;
                struct cxx_arg args[4];
                if (!name_is(f, i, name, len) || i == d->name)
                        continue;
                nx = cxx_tok_next(f, i);
                p = cxx_tok_prev(f, i);
                if (cxx_tok_eq(f, cxx_tok_next(f, nx), "AllocTensor")) {
                        site_replace(scan, f, cxx_tok_next(f, nx), cxx_tok_next(f, nx), "Get");
                } else if (cxx_tok_eq(f, cxx_tok_next(f, nx), "FreeTensor")) {
                        starts_statement(f, i, &last);
                        site_delete_stmt(scan, f, i, last);
                } else if (cxx_args_split(f, p, args, 4) == 3) {
                        site_edit(scan, f, f->tokens.tokens[args[1].first].start,
                                  f->tokens.tokens[args[2].first].start -
                                      f->tokens.tokens[args[1].first].start,
                                  "");
                } else {
                        site_fail(scan);
                }
        }
        r = site_end(scan);
        free(pos);
        free(type);
        return r;
}

static int tbuf_inverse(struct motif_scan *scan, struct cxx_file *f, struct cxx_func *funcs,
                        size_t n_funcs, const struct motif_decl *d)
{
        const char *name = cxx_tok_text(f, d->name);
        size_t len = cxx_tok_len(f, d->name), gets = 0, inits = 0;
        char *pos, *type;
        int r;

        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t nx, p, g, open, close, stmt, last, block, bclose, var;
                if (!name_is(f, i, name, len) || i == d->name)
                        continue;
                nx = cxx_tok_next(f, i);
                p = cxx_tok_prev(f, i);
                if (p != CXX_NONE && cxx_tok_eq(f, p, "(") &&
                    cxx_tok_eq(f, cxx_tok_prev(f, p), "InitBuffer")) {
                        struct cxx_arg args[4];
                        if (cxx_args_split(f, p, args, 4) != 2)
                                return 0;
                        inits++;
                        continue;
                }
                g = cxx_tok_next(f, nx);
                if (!cxx_tok_eq(f, nx, ".") || !cxx_tok_eq(f, g, "Get"))
                        return 0;
                open = cxx_tok_next(f, g);
                if (cxx_tok_eq(f, open, "<"))
                        open = cxx_tok_next(f, cxx_angle_match(f, open));
                close = token_match(&f->tokens, open);
                if (!cxx_tok_eq(f, open, "(") || cxx_tok_next(f, open) != close ||
                    !cxx_tok_eq(f, cxx_tok_next(f, close), ";") || !cxx_tok_eq(f, p, "="))
                        return 0;
                /* LocalTensor<T> var = name.Get<T>(); directly in a block */
                var = cxx_tok_prev(f, p);
                if (!cxx_tok_is_ident(f, var) || !cxx_tok_eq(f, cxx_tok_prev(f, var), ">"))
                        return 0;
                {
                        size_t k = cxx_tok_prev(f, var);
                        int depth = 0;
                        for (; k != CXX_NONE; k = cxx_tok_prev(f, k)) {
                                if (cxx_tok_eq(f, k, ">"))
                                        depth++;
                                else if (cxx_tok_eq(f, k, "<") && --depth == 0)
                                        break;
                        }
                        stmt = k == CXX_NONE ? CXX_NONE : cxx_tok_prev(f, k);
                }
                if (stmt == CXX_NONE || !cxx_tok_eq(f, stmt, "LocalTensor") ||
                    !starts_statement(f, stmt, &last))
                        return 0;
                block = block_enclosing(f, stmt);
                if (block == CXX_NONE)
                        return 0;
                bclose = token_match(&f->tokens, block);
                if (cxx_range_mentions(f, last, bclose, "return", 6))
                        return 0;
                gets++;
        }
        if (!gets || inits != 1)
                return 0;
        for (size_t k = 0; k < n_funcs; k++) {
                size_t in_func = 0;
                for (size_t i = funcs[k].open; i < funcs[k].close; i++)
                        if (name_is(f, i, name, len) &&
                            cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, i)), "Get"))
                                in_func++;
                if (in_func > 1)
                        return 0;
        }
        pos = template_position(f, d);
        type = pos ? str_printf("TQue<%s, 1>", pos) : NULL;
        site_begin(scan, f, d->name, "make the TBuf %.*s a depth-1 queue", (int)len, name);
        if (!type)
                site_fail(scan);
        else
                site_redeclare(scan, f, d, type);
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t nx, p, var, block, bclose, ls;
                char *indent, *text;
                struct cxx_arg args[4];
                if (!name_is(f, i, name, len) || i == d->name)
                        continue;
                nx = cxx_tok_next(f, i);
                p = cxx_tok_prev(f, i);
                if (!cxx_tok_eq(f, nx, ".")) {
                        cxx_args_split(f, p, args, 4);
                        site_edit(scan, f, f->tokens.tokens[args[1].first].start, 0, "1, ");
                        continue;
                }
                site_replace(scan, f, cxx_tok_next(f, nx), cxx_tok_next(f, nx), "AllocTensor");
                var = cxx_tok_prev(f, p);
                block = block_enclosing(f, i);
                bclose = token_match(&f->tokens, block);
                indent = cxx_indent_at(f, f->tokens.tokens[var].start);
                ls = cxx_line_start(f, f->tokens.tokens[bclose].start);
                text = indent ? str_printf("%s%.*s.FreeTensor(%.*s);\n", indent, (int)len, name,
                                           (int)cxx_tok_len(f, var), cxx_tok_text(f, var))
                              : NULL;
                if (!text)
                        site_fail(scan);
                else if (cxx_text_blank(f, ls, f->tokens.tokens[bclose].start))
                        site_edit(scan, f, ls, 0, text);
                else
                        site_fail(scan);
                free(indent);
                free(text);
        }
        r = site_end(scan);
        free(pos);
        free(type);
        return r;
}

static int tbuf_scan(struct motif_scan *scan, bool forward)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        int r;

        r = cxx_funcs_find(f, &funcs, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < f->tokens.n && r >= 0; i++) {
                struct motif_decl d;
                size_t lt = cxx_tok_next(f, i), gt, k;
                if (!(forward ? cxx_tok_eq(f, i, "TQue") : cxx_tok_eq(f, i, "TBuf")) ||
                    !cxx_tok_eq(f, lt, "<"))
                        continue;
                gt = cxx_angle_match(f, lt);
                if (gt == CXX_NONE)
                        continue;
                for (k = cxx_tok_next(f, gt); cxx_tok_is_ident(f, k) && r >= 0;) {
                        if (decl_find(f, i, f->tokens.n - 1, cxx_tok_text(f, k), cxx_tok_len(f, k),
                                      &d) &&
                            d.kind == i)
                                r = forward ? tbuf_forward(scan, f, funcs, n, &d)
                                            : tbuf_inverse(scan, f, funcs, n, &d);
                        k = cxx_tok_next(f, k);
                        if (!cxx_tok_eq(f, k, ","))
                                break;
                        k = cxx_tok_next(f, k);
                }
        }
        free(funcs);
        return r;
}

int motif_tbuf_forward(struct motif_scan *scan)
{
        return tbuf_scan(scan, true);
}

int motif_tbuf_inverse(struct motif_scan *scan)
{
        return tbuf_scan(scan, false);
}
