/* SPDX-License-Identifier: MIT */
/*
 * spread_over_cores: a kernel written for one core run on all of them.
 * Real kernels launched with SetBlockDim(1) (cann-ops' global_avg_pool,
 * mse_loss_grad_v1, cross, eye among them) walk their whole output in one
 * loop on one of the 48 vector cores.  Where that loop's iterations are
 * where the output is written, the forward gives each core its own run of
 * them:
 *
 *     const uint64_t coreChunk = ((uint64_t)(N) + 64 * AscendC::GetBlockNum() - 1) /
 *                                (64 * AscendC::GetBlockNum()) * 64;
 *     for (T i = (T)(AscendC::GetBlockIdx() * coreChunk);
 *          i < N && (uint64_t)(i) < (AscendC::GetBlockIdx() + 1) * coreChunk; i++)
 *
 * and every SetBlockDim of the host asks for the platform's vector cores.
 * A core's run is a multiple of 64 iterations: a scalar write to global
 * memory goes through the core's data cache, written back a 64-byte line
 * at a time, and CANN's SetValue reference asks that different cores'
 * addresses be at least a cache line apart, or the lines overwrite each
 * other.  An iteration writing one element or more, further on as i grows,
 * keeps 64 iterations' writes off another core's lines.
 *
 * Taken only where it is sound by the text, the outputs checked after:
 *   - no kernel file reads the block index or count (in any spelling), or
 *     uses atomics,
 *     workspace, cross-core flags or the data cache;
 *   - every SetBlockDim of every tiling function launches one core (a
 *     literal 1, or a local only ever set to 1);
 *   - a loop taken is a top-level "for (T i = 0; i < N; i++)" of a
 *     function no loop calls, in a braced block, whose body neither
 *     assigns i, returns, jumps nor breaks out, assigns no variable the
 *     function reads after the loop, and writes global memory itself or
 *     through a function it calls;
 *   - a write to global memory outside the loops taken (another tiling
 *     key's path) is a DMA copy (DataCopy, DataCopyPad) in a void
 *     function that leads to no loop taken: it gets "if
 *     (AscendC::GetBlockIdx() != 0) { return; }" first, so that core 0
 *     runs that path as before and the others do not write its bytes
 *     again.  A scalar write there (SetValue), or a function holding a
 *     loop taken that also writes outside it: no site.
 * The inverse gives back the forward's form, one core per launch.
 */
#include "motifs-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A core's run of iterations is a multiple of this (see above). */
#define SPREAD_UNIT      64
#define SPREAD_MAX_FUNCS 512
#define SPREAD_MAX_LOOPS 16
#define SPREAD_MAX_CALLS 4096

static const char *const one_core_only[] = {
        "GetBlockIdx",
        "GetBlockNum",
        "get_block_idx",
        "get_block_num",
        "block_idx",
        "block_num",
        "GetSubBlockIdx",
        "GetSubBlockNum",
        "GetTaskRation",
        "SetAtomicAdd",
        "SetAtomicMax",
        "SetAtomicMin",
        "SetAtomicType",
        "SetAtomicNone",
        "SyncAll",
        "CrossCoreSetFlag",
        "CrossCoreWaitFlag",
        "IBSet",
        "IBWait",
        "GetUserWorkspace",
        "GetSysWorkSpacePtr",
        "DataCacheCleanAndInvalid",
        NULL,
};

/* A function body of one of the kernel files. */
struct spread_fn {
        struct cxx_file *f;
        struct cxx_func func;
        bool in_loop;   /* some loop calls it, directly or through callers */
        bool covered;   /* every call of it is inside a loop taken, directly or through callers */
        bool writes_gm; /* it writes global memory, itself or through what it calls */
        bool reaches;   /* it holds a loop taken, or calls one that does */
        bool guard;     /* the forward lets only core 0 run it */
};

/* A call of one kernel function by another. */
struct spread_call {
        size_t caller, callee;
        size_t tok;
};

/* A loop of the canonical form. */
struct spread_loop {
        size_t fn;          /* into spread.fns */
        size_t first, last; /* the for statement */
        size_t init_zero;   /* the 0 of "i = 0" */
        size_t type_first;  /* the loop variable's type, up to the variable */
        size_t var;         /* the loop variable's declaration */
        size_t bound_first, bound_last;
        size_t body_first, body_last;
};

struct spread {
        struct motif_scan *scan;
        struct spread_fn fns[SPREAD_MAX_FUNCS];
        size_t n_fns;
        struct spread_call calls[SPREAD_MAX_CALLS];
        size_t n_calls;
        struct spread_loop loops[SPREAD_MAX_LOOPS];
        size_t n_loops;
};

static bool same_text(const struct cxx_file *f, size_t tok, const char *s, size_t len)
{
        return cxx_tok_len(f, tok) == len && memcmp(cxx_tok_text(f, tok), s, len) == 0;
}

static bool same_name(const struct cxx_file *a, size_t ta, const struct cxx_file *b, size_t tb)
{
        return same_text(b, tb, cxx_tok_text(a, ta), cxx_tok_len(a, ta));
}

/* ------------------------------------------------------------ loops and calls */

/*
 * The body of the loop (for, while, do) or switch whose keyword is at kw:
 * [*ret_first, *ret_last].  false when kw starts none.
 */
static bool body_of(const struct cxx_file *f, size_t kw, size_t *ret_first, size_t *ret_last)
{
        size_t open, b;

        if (cxx_tok_eq(f, kw, "do")) {
                b = cxx_tok_next(f, kw);
        } else if (cxx_tok_eq(f, kw, "for") || cxx_tok_eq(f, kw, "while") ||
                   cxx_tok_eq(f, kw, "switch")) {
                open = cxx_tok_next(f, kw);
                if (!cxx_tok_eq(f, open, "("))
                        return false;
                b = cxx_tok_next(f, token_match(&f->tokens, open));
        } else {
                return false;
        }
        if (b >= f->tokens.n)
                return false;
        *ret_first = b;
        *ret_last = cxx_tok_eq(f, b, "{") ? token_match(&f->tokens, b) : cxx_stmt_last(f, b);
        return *ret_last < f->tokens.n && *ret_last != CXX_NONE;
}

static bool is_loop_keyword(const struct cxx_file *f, size_t i)
{
        return cxx_tok_eq(f, i, "for") || cxx_tok_eq(f, i, "while") || cxx_tok_eq(f, i, "do");
}

/* Whether token t lies in the body of a loop in [a, b]. */
static bool inside_a_loop(const struct cxx_file *f, size_t a, size_t b, size_t t)
{
        for (size_t i = a; i <= b && i < t; i++) {
                size_t first, last;
                if (is_loop_keyword(f, i) && body_of(f, i, &first, &last) && t >= first &&
                    t <= last)
                        return true;
        }
        return false;
}

/* Whether token t lies in the body of a loop taken. */
static bool inside_taken(const struct spread *s, const struct cxx_file *f, size_t t)
{
        for (size_t k = 0; k < s->n_loops; k++)
                if (s->fns[s->loops[k].fn].f == f && t >= s->loops[k].body_first &&
                    t <= s->loops[k].body_last)
                        return true;
        return false;
}

/*
 * The kernel functions and their calls.  -E2BIG when a table is full: a
 * function or call left out could hide a loop around a call or a write to
 * global memory, so the caller takes no site.
 */
static int collect(struct spread *s)
{
        struct motif_scan *scan = s->scan;

        for (size_t k = 0; k < scan->n_files; k++) {
                struct cxx_file *f = &scan->files[k];
                struct cxx_func *funcs = NULL;
                size_t n = 0;
                int r;
                if (!scan_is_kernel(f))
                        continue;
                r = cxx_funcs_find(f, &funcs, &n);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < n && r == 0; j++) {
                        if (funcs[j].name == CXX_NONE)
                                continue;
                        if (s->n_fns == SPREAD_MAX_FUNCS)
                                r = -E2BIG;
                        else
                                s->fns[s->n_fns++] = (struct spread_fn){ .f = f, .func = funcs[j] };
                }
                free(funcs);
                if (r < 0)
                        return r;
        }
        /* calls by name: an overload or a namesake method counts as the same function */
        for (size_t a = 0; a < s->n_fns; a++) {
                const struct spread_fn *caller = &s->fns[a];
                for (size_t t = caller->func.open + 1; t < caller->func.close; t++) {
                        if (!cxx_tok_is_ident(caller->f, t) ||
                            !cxx_tok_eq(caller->f, cxx_tok_next(caller->f, t), "("))
                                continue;
                        for (size_t b = 0; b < s->n_fns; b++) {
                                if (!same_name(caller->f, t, s->fns[b].f, s->fns[b].func.name))
                                        continue;
                                if (s->n_calls == SPREAD_MAX_CALLS)
                                        return -E2BIG;
                                s->calls[s->n_calls++] =
                                    (struct spread_call){ .caller = a, .callee = b, .tok = t };
                        }
                }
        }
        return 0;
}

/* ------------------------------------------------------------ writes to global memory */

static bool is_global_tensor(const struct spread *s, const struct cxx_file *f, size_t name)
{
        for (size_t k = 0; k < s->scan->n_files; k++) {
                const struct cxx_file *g = &s->scan->files[k];
                struct motif_decl d;
                if (scan_is_kernel(g) && g->tokens.n &&
                    decl_find(g, 0, g->tokens.n - 1, cxx_tok_text(f, name), cxx_tok_len(f, name),
                              &d) &&
                    decl_is(g, &d, "GlobalTensor"))
                        return true;
        }
        return false;
}

/* At token t: 1 a DMA copy into global memory, 2 a scalar store into it, 0 neither. */
static int gm_write_at(const struct spread *s, const struct cxx_file *f, size_t t)
{
        size_t open = cxx_tok_next(f, t), dot, obj;
        struct cxx_arg args[CXX_MAX_ARGS];

        if (!cxx_tok_eq(f, open, "("))
                return 0;
        if (cxx_tok_eq(f, t, "DataCopy") || cxx_tok_eq(f, t, "DataCopyPad")) {
                size_t base;
                if (cxx_args_split(f, open, args, CXX_MAX_ARGS) < 2)
                        return 0;
                base = cxx_arg_base(f, &args[0]);
                return base != CXX_NONE && is_global_tensor(s, f, base) ? 1 : 0;
        }
        if (!cxx_tok_eq(f, t, "SetValue"))
                return 0;
        dot = cxx_tok_prev(f, t);
        obj = dot == CXX_NONE ? CXX_NONE : cxx_tok_prev(f, dot);
        return dot != CXX_NONE && cxx_tok_eq(f, dot, ".") && obj != CXX_NONE &&
                       cxx_tok_is_ident(f, obj) && is_global_tensor(s, f, obj)
                   ? 2
                   : 0;
}

/* Whether [a, b] of f writes global memory, itself or through a kernel function it calls. */
static bool range_writes_gm(const struct spread *s, const struct cxx_file *f, size_t a, size_t b)
{
        for (size_t t = a; t <= b && t < f->tokens.n; t++)
                if (gm_write_at(s, f, t))
                        return true;
        for (size_t c = 0; c < s->n_calls; c++)
                if (s->fns[s->calls[c].caller].f == f && s->calls[c].tok >= a &&
                    s->calls[c].tok <= b && s->fns[s->calls[c].callee].writes_gm)
                        return true;
        return false;
}

/* ------------------------------------------------------------ the loops */

/* Whether identifier tok is assigned at its use (x = , x += , x++, ++x). */
static bool assigned_at(const struct cxx_file *f, size_t tok)
{
        size_t prev = cxx_tok_prev(f, tok);

        if (tok_assigns(f, cxx_tok_next(f, tok)))
                return true;
        return prev != CXX_NONE && (cxx_tok_eq(f, prev, "++") || cxx_tok_eq(f, prev, "--"));
}

/* Whether a bound's top-level tokens hold an operator binding looser than '<'. */
static bool bound_is_plain(const struct cxx_file *f, size_t a, size_t b)
{
        static const char *const loose[] = { "?",  ":",  "||", "&&", ",", "<",  ">",  "<=", ">=",
                                             "==", "!=", "|",  "&",  "^", "<<", ">>", NULL };
        int depth = 0;

        for (size_t i = a; i <= b; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "["))
                        depth++;
                else if (cxx_tok_eq(f, i, ")") || cxx_tok_eq(f, i, "]"))
                        depth--;
                else if (depth == 0 && (tok_assigns(f, i) || cxx_tok_eq(f, i, "<<")))
                        return false;
                for (size_t k = 0; depth == 0 && loose[k]; k++)
                        if (cxx_tok_eq(f, i, loose[k]))
                                return false;
                if (i == b)
                        break;
        }
        return depth == 0;
}

/* Whether the body leaves the loop other than by its end: return, goto, or a break of its own. */
static bool body_escapes(const struct cxx_file *f, size_t a, size_t b)
{
        for (size_t i = a; i <= b && i < f->tokens.n; i++) {
                bool nested = false;
                if (cxx_tok_eq(f, i, "return") || cxx_tok_eq(f, i, "goto"))
                        return true;
                if (!cxx_tok_eq(f, i, "break"))
                        continue;
                for (size_t k = a + 1; k < i && !nested; k++) {
                        size_t first, last;
                        nested = (is_loop_keyword(f, k) || cxx_tok_eq(f, k, "switch")) &&
                                 body_of(f, k, &first, &last) && i >= first && i <= last;
                }
                if (!nested)
                        return true;
        }
        return false;
}

/* The parentheses and the two top-level ';' of the for statement at first. */
static bool for_header(const struct cxx_file *f, size_t first, size_t *ret_open, size_t *ret_close,
                       size_t *ret_semi1, size_t *ret_semi2)
{
        size_t open = cxx_tok_next(f, first), close, semi1 = CXX_NONE, semi2 = CXX_NONE;

        if (!cxx_tok_eq(f, first, "for") || !cxx_tok_eq(f, open, "("))
                return false;
        close = token_match(&f->tokens, open);
        for (size_t i = cxx_tok_next(f, open); i < close; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "[") || cxx_tok_eq(f, i, "{")) {
                        i = token_match(&f->tokens, i);
                        continue;
                }
                if (!cxx_tok_eq(f, i, ";"))
                        continue;
                if (semi1 == CXX_NONE)
                        semi1 = i;
                else if (semi2 == CXX_NONE)
                        semi2 = i;
        }
        *ret_open = open;
        *ret_close = close;
        *ret_semi1 = semi1;
        *ret_semi2 = semi2;
        return close < f->tokens.n && semi1 != CXX_NONE && semi2 != CXX_NONE;
}

/*
 * Reads "for (T i = 0; i < N; i++)" at first into *ret (body included);
 * false when it is not of that form or its body is not one a core can
 * take a run of.
 */
static bool canonical_loop(const struct cxx_file *f, const struct spread_fn *fn, size_t first,
                           struct spread_loop *ret)
{
        size_t open, close, semi1, semi2, var, eq, zero, lt, inc, after_inc;

        if (!for_header(f, first, &open, &close, &semi1, &semi2))
                return false;
        /* T i = 0 */
        zero = cxx_tok_prev(f, semi1);
        eq = cxx_tok_prev(f, zero);
        var = cxx_tok_prev(f, eq);
        if (!cxx_tok_is_number(f, zero, "0") || !cxx_tok_eq(f, eq, "=") ||
            !cxx_tok_is_ident(f, var) || var <= cxx_tok_next(f, open))
                return false;
        for (size_t i = cxx_tok_next(f, open); i < var; i = cxx_tok_next(f, i))
                if (!cxx_tok_is_ident(f, i) && !cxx_tok_eq(f, i, "::"))
                        return false;
        /* i < N */
        lt = cxx_tok_next(f, cxx_tok_next(f, semi1));
        if (!tok_same(f, cxx_tok_next(f, semi1), var) || !cxx_tok_eq(f, lt, "<") ||
            cxx_tok_next(f, lt) >= semi2 ||
            !bound_is_plain(f, cxx_tok_next(f, lt), cxx_tok_prev(f, semi2)) ||
            ident_count(f, cxx_tok_next(f, lt), cxx_tok_prev(f, semi2), var))
                return false;
        /* i++, ++i, i += 1 */
        inc = cxx_tok_next(f, semi2);
        after_inc = cxx_tok_next(f, inc);
        if (!((tok_same(f, inc, var) && cxx_tok_eq(f, after_inc, "++") &&
               cxx_tok_next(f, after_inc) == close) ||
              (cxx_tok_eq(f, inc, "++") && tok_same(f, after_inc, var) &&
               cxx_tok_next(f, after_inc) == close) ||
              (tok_same(f, inc, var) && cxx_tok_eq(f, after_inc, "+=") &&
               cxx_tok_is_number(f, cxx_tok_next(f, after_inc), "1") &&
               cxx_tok_next(f, cxx_tok_next(f, after_inc)) == close)))
                return false;
        *ret = (struct spread_loop){ .first = first,
                                     .init_zero = zero,
                                     .type_first = cxx_tok_next(f, open),
                                     .var = var,
                                     .bound_first = cxx_tok_next(f, lt),
                                     .bound_last = cxx_tok_prev(f, semi2) };
        if (!body_of(f, first, &ret->body_first, &ret->body_last))
                return false;
        ret->last = ret->body_last;
        if (body_escapes(f, ret->body_first, ret->body_last))
                return false;
        /* nothing it assigns is read after it: i itself, or what one iteration hands the next */
        for (size_t i = ret->body_first; i <= ret->body_last; i++) {
                if (!cxx_tok_is_ident(f, i) || !assigned_at(f, i))
                        continue;
                if (tok_same(f, i, var) || ident_count(f, ret->last + 1, fn->func.close, i))
                        return false;
        }
        return true;
}

struct loop_walk {
        struct spread *s;
        size_t fn;
};

static int loop_stmt(const struct cxx_file *f, const struct cxx_func *funcs,
                     const struct cxx_stmt *stmt, void *userdata)
{
        struct loop_walk *w = userdata;
        struct spread *s = w->s;
        const struct spread_fn *fn = &s->fns[w->fn];
        struct spread_loop loop;

        if (funcs[stmt->func].open != fn->func.open || stmt->loop != CXX_NONE ||
            stmt->block == CXX_NONE || s->n_loops == SPREAD_MAX_LOOPS ||
            !canonical_loop(f, fn, stmt->first, &loop))
                return 0;
        loop.fn = w->fn;
        if (range_writes_gm(s, f, loop.body_first, loop.body_last))
                s->loops[s->n_loops++] = loop;
        return 0;
}

/* ------------------------------------------------------------ the host */

/* Called with each "SetBlockDim(" of a tiling function: its '(' at open; false stops the walk. */
typedef bool (*launch_fn)(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                          size_t open, void *userdata);

/* Visits every launch of every tiling function of the host files; false when a visit said so. */
static bool for_each_launch(struct motif_scan *scan, launch_fn visit, void *userdata)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                struct cxx_file *f = &scan->files[k];
                struct tiling_fn fn;
                if (!scan_is_host(f))
                        continue;
                for (size_t after = CXX_NONE; tiling_function_after(f, after, &fn);
                     after = fn.close)
                        for (size_t i = fn.open + 1; i < fn.close; i++)
                                if (cxx_tok_eq(f, i, "SetBlockDim") &&
                                    cxx_tok_eq(f, cxx_tok_next(f, i), "(") &&
                                    !visit(scan, f, &fn, cxx_tok_next(f, i), userdata))
                                        return false;
        }
        return true;
}

/*
 * A launch of one core: a literal 1, or a local of the tiling function set
 * to 1 once and never again.  Counts it in *(size_t *)userdata.
 */
static bool one_core_launch(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                            size_t open, void *userdata)
{
        size_t arg = cxx_tok_next(f, open), sets = 0;
        bool one = false;

        (void)scan;
        if (!cxx_tok_eq(f, cxx_tok_next(f, arg), ")"))
                return false;
        if (cxx_tok_is_number(f, arg, "1")) {
                ++*(size_t *)userdata;
                return true;
        }
        if (!cxx_tok_is_ident(f, arg))
                return false;
        for (size_t j = fn->open + 1; j < fn->close; j++) {
                size_t value = cxx_tok_next(f, cxx_tok_next(f, j));
                if (!tok_same(f, j, arg) || !assigned_at(f, j))
                        continue;
                sets++;
                one = cxx_tok_eq(f, cxx_tok_next(f, j), "=") && cxx_tok_is_number(f, value, "1") &&
                      cxx_tok_eq(f, cxx_tok_next(f, value), ";");
        }
        if (sets != 1 || !one)
                return false;
        ++*(size_t *)userdata;
        return true;
}

#define ALL_CORES "platform_ascendc::PlatformAscendC(%s->GetPlatformInfo()).GetCoreNumAiv()"

/* The forward's launch: the platform's vector cores. */
static bool launch_all_cores(struct motif_scan *scan, struct cxx_file *f,
                             const struct tiling_fn *fn, size_t open, void *userdata)
{
        char *call = str_printf(ALL_CORES, fn->context);

        (void)userdata;
        site_replace(scan, f, cxx_tok_next(f, open), cxx_tok_next(f, open), call);
        ensure_include(scan, f, PLATFORM_HEADER);
        free(call);
        return true;
}

/* The inverse's: a launch as the forward wrote it goes back to one core. */
static bool launch_one_core(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                            size_t open, void *userdata)
{
        size_t close = token_match(&f->tokens, open);
        char *want = str_printf(ALL_CORES, fn->context), *got = NULL;

        (void)userdata;
        if (want && close < fn->close && cxx_tok_next(f, open) < close) {
                got = cxx_range_dup(f, cxx_tok_next(f, open), cxx_tok_prev(f, close));
                if (got && strcmp(got, want) == 0)
                        site_replace(scan, f, cxx_tok_next(f, open), cxx_tok_prev(f, close), "1");
        }
        free(want);
        free(got);
        return true;
}

/* ------------------------------------------------------------ forward */

/* The cast a loop variable's start takes: its declared type, int for auto. */
static char *type_text(const struct cxx_file *f, const struct spread_loop *l)
{
        size_t last = cxx_tok_prev(f, l->var);

        if (last == l->type_first && cxx_tok_eq(f, last, "auto"))
                return strdup("int");
        return cxx_range_dup(f, l->type_first, last);
}

static void spread_loop_edits(struct motif_scan *scan, struct cxx_file *f,
                              const struct spread_loop *l, const char *chunk)
{
        char *bound = cxx_range_dup(f, l->bound_first, l->bound_last);
        char *var = cxx_range_dup(f, l->var, l->var), *type = type_text(f, l);
        char *line = NULL, *start = NULL, *cond = NULL;

        if (bound && var && type) {
                line = str_printf(
                    "const uint64_t %s = ((uint64_t)(%s) + %d * AscendC::GetBlockNum() - "
                    "1) / (%d * AscendC::GetBlockNum()) * %d;",
                    chunk, bound, SPREAD_UNIT, SPREAD_UNIT, SPREAD_UNIT);
                start = str_printf("(%s)(AscendC::GetBlockIdx() * %s)", type, chunk);
                cond = str_printf(" && (uint64_t)(%s) < (AscendC::GetBlockIdx() + 1) * %s", var,
                                  chunk);
        }
        if (line && start && cond) {
                site_insert_before(scan, f, l->first, line);
                site_replace(scan, f, l->init_zero, l->init_zero, start);
                site_edit(scan, f, cxx_tok_end(f, l->bound_last), 0, cond);
        } else {
                site_fail(scan);
        }
        free(bound);
        free(var);
        free(type);
        free(line);
        free(start);
        free(cond);
}

/* Whether a function holding a loop taken also writes global memory outside them. */
static bool writes_beside_loops(const struct spread *s)
{
        for (size_t k = 0; k < s->n_loops; k++) {
                const struct spread_fn *fn = &s->fns[s->loops[k].fn];
                for (size_t t = fn->func.open + 1; t < fn->func.close; t++) {
                        bool call = false;
                        if (inside_taken(s, fn->f, t))
                                continue;
                        for (size_t c = 0; c < s->n_calls && !call; c++)
                                call = s->fns[s->calls[c].caller].f == fn->f &&
                                       s->calls[c].tok == t && s->fns[s->calls[c].callee].writes_gm;
                        if (call || gm_write_at(s, fn->f, t))
                                return true;
                }
        }
        return false;
}

/* Whether the function's return type is void (the tokens before its name). */
static bool returns_void(const struct spread_fn *fn)
{
        size_t i = cxx_tok_prev(fn->f, fn->func.name);

        for (int k = 0; k < 8 && i != CXX_NONE; k++, i = cxx_tok_prev(fn->f, i)) {
                if (cxx_tok_eq(fn->f, i, "void"))
                        return true;
                if (cxx_tok_eq(fn->f, i, ";") || cxx_tok_eq(fn->f, i, "{") ||
                    cxx_tok_eq(fn->f, i, "}") || cxx_tok_eq(fn->f, i, ")") ||
                    cxx_tok_eq(fn->f, i, ":"))
                        break;
        }
        return false;
}

/*
 * The functions that write global memory where no loop taken covers them
 * are left to core 0 alone (fn->guard): the others would write the same
 * bytes again.  false when one cannot be: a scalar store (other cores'
 * stale cache lines), a function that also leads to a loop taken, or one
 * returning a value.
 */
static bool plan_guards(struct spread *s)
{
        for (size_t a = 0; a < s->n_fns; a++) {
                struct spread_fn *fn = &s->fns[a];
                bool uncovered = false;
                if (fn->covered)
                        continue;
                for (size_t t = fn->func.open + 1; t < fn->func.close; t++) {
                        int w = gm_write_at(s, fn->f, t);
                        if (!w || inside_taken(s, fn->f, t))
                                continue;
                        if (w == 2)
                                return false;
                        uncovered = true;
                }
                if (!uncovered)
                        continue;
                if (fn->reaches || !returns_void(fn))
                        return false;
                fn->guard = true;
        }
        return true;
}

#define GUARD "if (AscendC::GetBlockIdx() != 0) { return; }"

static void guard_edits(struct motif_scan *scan, const struct spread *s)
{
        for (size_t a = 0; a < s->n_fns; a++) {
                const struct spread_fn *fn = &s->fns[a];
                size_t first = cxx_tok_next(fn->f, fn->func.open);
                if (fn->guard && first < fn->func.close)
                        site_insert_before(scan, fn->f, first, GUARD);
        }
}

/* Fixed points over the calls: in_loop (0), writes_gm (1), covered (2), reaches (3). */
static void propagate(struct spread *s, int what)
{
        bool changed = true;

        if (what == 2)
                for (size_t a = 0; a < s->n_fns; a++)
                        s->fns[a].covered = true;
        while (changed) {
                changed = false;
                for (size_t a = 0; a < s->n_fns; a++) {
                        struct spread_fn *fn = &s->fns[a];
                        bool v = what == 2 ? fn->covered : false, called = false;
                        for (size_t c = 0; c < s->n_calls; c++) {
                                const struct spread_call *call = &s->calls[c];
                                const struct spread_fn *caller = &s->fns[call->caller];
                                if (what == 0 && call->callee == a &&
                                    (caller->in_loop ||
                                     inside_a_loop(caller->f, caller->func.open, caller->func.close,
                                                   call->tok)))
                                        v = true;
                                if (what == 1 && call->caller == a &&
                                    s->fns[call->callee].writes_gm)
                                        v = true;
                                if (what == 3 && call->caller == a && s->fns[call->callee].reaches)
                                        v = true;
                                if (what == 2 && call->callee == a) {
                                        called = true;
                                        if (!caller->covered &&
                                            !inside_taken(s, caller->f, call->tok))
                                                v = false;
                                }
                        }
                        if (what == 1 && !v)
                                for (size_t t = fn->func.open + 1; t < fn->func.close && !v; t++)
                                        v = gm_write_at(s, fn->f, t) != 0;
                        if (what == 2 && !called)
                                v = false;
                        for (size_t k = 0; what == 3 && k < s->n_loops; k++)
                                v = v || s->loops[k].fn == a;
                        if (what == 0 && v && !fn->in_loop) {
                                fn->in_loop = true;
                                changed = true;
                        } else if (what == 1 && v && !fn->writes_gm) {
                                fn->writes_gm = true;
                                changed = true;
                        } else if (what == 2 && !v && fn->covered) {
                                fn->covered = false;
                                changed = true;
                        } else if (what == 3 && v && !fn->reaches) {
                                fn->reaches = true;
                                changed = true;
                        }
                }
        }
}

static bool mentions_any(const struct motif_scan *scan, const char *const *words)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                const struct cxx_file *f = &scan->files[k];
                if (!scan_is_kernel(f) || !f->tokens.n)
                        continue;
                for (size_t w = 0; words[w]; w++)
                        if (cxx_range_mentions(f, 0, f->tokens.n - 1, words[w], strlen(words[w])))
                                return true;
        }
        return false;
}

int motif_spread_forward(struct motif_scan *scan)
{
        struct spread *s = calloc(1, sizeof(*s));
        size_t launches = 0;
        int r;

        if (!s)
                return -ENOMEM;
        s->scan = scan;
        r = 0;
        if (mentions_any(scan, one_core_only) ||
            !for_each_launch(scan, one_core_launch, &launches) || launches == 0)
                goto out;
        r = collect(s);
        if (r == -E2BIG) {
                r = 0; /* too large to read whole: no site */
                goto out;
        }
        if (r < 0)
                goto out;
        propagate(s, 0);
        propagate(s, 1);
        for (size_t a = 0; a < s->n_fns; a++) {
                struct loop_walk w = { s, a };
                if (s->fns[a].in_loop)
                        continue;
                /* the walk numbers functions itself: loop_stmt matches this one by its brace */
                r = cxx_walk_statements(s->fns[a].f, loop_stmt, &w);
                if (r < 0)
                        goto out;
        }
        if (s->n_loops == 0)
                goto out;
        propagate(s, 2);
        propagate(s, 3);
        if (writes_beside_loops(s) || !plan_guards(s))
                goto out;
        {
                struct spread_loop *l0 = &s->loops[0];
                struct cxx_file *f0 = s->fns[l0->fn].f;
                char *bound = cxx_range_dup(f0, l0->bound_first, l0->bound_last);
                site_begin(scan, f0, l0->first,
                           "spread the loop over %s (and %zu more) across the vector cores, %d "
                           "iterations at a time",
                           bound ? bound : "?", s->n_loops - 1, SPREAD_UNIT);
                free(bound);
        }
        for (size_t k = 0; k < s->n_loops; k++) {
                struct cxx_file *f = s->fns[s->loops[k].fn].f;
                char base[32], chunk[64];
                size_t same_file = 0;
                for (size_t j = 0; j < k; j++)
                        same_file += s->fns[s->loops[j].fn].f == f;
                snprintf(base, sizeof(base), same_file ? "coreChunk%c" : "coreChunk",
                         (char)('A' + same_file));
                cxx_fresh_name(f, base, chunk, sizeof(chunk));
                spread_loop_edits(scan, f, &s->loops[k], chunk);
        }
        guard_edits(scan, s);
        for_each_launch(scan, launch_all_cores, NULL);
        r = site_end(scan);
out:
        free(s);
        return r;
}

/* ------------------------------------------------------------ inverse */

/* Tokens [a, b] as one string without spaces or comments (a new string, or NULL). */
static char *squeezed(const struct cxx_file *f, size_t a, size_t b)
{
        size_t len = 0;
        char *out;

        for (size_t i = a; i <= b && i < f->tokens.n; i = cxx_tok_next(f, i))
                len += cxx_tok_len(f, i);
        out = malloc(len + 1);
        if (!out)
                return NULL;
        len = 0;
        for (size_t i = a; i <= b && i < f->tokens.n; i = cxx_tok_next(f, i)) {
                memcpy(out + len, cxx_tok_text(f, i), cxx_tok_len(f, i));
                len += cxx_tok_len(f, i);
        }
        out[len] = '\0';
        return out;
}

static bool squeezed_is(const struct cxx_file *f, size_t a, size_t b, const char *want)
{
        char *got = squeezed(f, a, b);
        bool same = got && want && strcmp(got, want) == 0;

        free(got);
        return same;
}

struct unspread {
        struct motif_scan *scan;
        size_t n;
        bool guards; /* the second pass: the forward's guards */
};

/*
 * The forward's form at stmt: "const uint64_t C = ...;" and right after it
 * the for statement it bounds.  Records the edits that give the loop back.
 */
static int unspread_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                         const struct cxx_stmt *stmt, void *userdata)
{
        struct unspread *u = userdata;
        size_t name = cxx_tok_next(f, cxx_tok_next(f, stmt->first)), loop, open, close, semi1,
               semi2, and = CXX_NONE, lt, var, eq, type_last;
        char *c = NULL, *bound = NULL, *type = NULL, *v = NULL, *want_decl = NULL,
             *want_start = NULL, *want_cond = NULL;
        int depth = 0;

        (void)funcs;
        if (u->guards) {
                if (cxx_tok_eq(f, stmt->first, "if") &&
                    squeezed_is(f, stmt->first, stmt->last,
                                "if(AscendC::GetBlockIdx()!=0){return;}"))
                        site_delete_stmt(scan, f, stmt->first, stmt->last);
                return 0;
        }
        if (!cxx_tok_eq(f, stmt->first, "const") ||
            !cxx_tok_eq(f, cxx_tok_next(f, stmt->first), "uint64_t") ||
            !cxx_tok_is_ident(f, name) || stmt->block == CXX_NONE)
                return 0;
        loop = cxx_stmt_after(f, stmt->last, stmt->block);
        if (loop == CXX_NONE || !for_header(f, loop, &open, &close, &semi1, &semi2))
                return 0;
        for (size_t i = cxx_tok_next(f, semi1); i < semi2; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "["))
                        depth++;
                else if (cxx_tok_eq(f, i, ")") || cxx_tok_eq(f, i, "]"))
                        depth--;
                else if (depth == 0 && cxx_tok_eq(f, i, "&&"))
                        and = i;
        }
        var = cxx_tok_next(f, semi1);
        lt = cxx_tok_next(f, var);
        eq = CXX_NONE;
        for (size_t i = cxx_tok_next(f, open); i < semi1; i = cxx_tok_next(f, i))
                if (cxx_tok_eq(f, i, "=") && eq == CXX_NONE)
                        eq = i;
        if (and == CXX_NONE || !cxx_tok_eq(f, lt, "<") || eq == CXX_NONE ||
            cxx_tok_next(f, lt) >= and || !tok_same(f, cxx_tok_prev(f, eq), var))
                return 0;
        type_last = cxx_tok_prev(f, cxx_tok_prev(f, eq));
        if (type_last == CXX_NONE || type_last < cxx_tok_next(f, open))
                return 0;
        c = squeezed(f, name, name);
        bound = squeezed(f, cxx_tok_next(f, lt), cxx_tok_prev(f, and));
        v = squeezed(f, var, var);
        type = cxx_tok_eq(f, type_last, "auto") && type_last == cxx_tok_next(f, open)
                   ? strdup("int")
                   : squeezed(f, cxx_tok_next(f, open), type_last);
        if (c && bound && v && type) {
                want_decl = str_printf("constuint64_t%s=((uint64_t)(%s)+%d*AscendC::GetBlockNum()-"
                                       "1)/(%d*AscendC::GetBlockNum())*%d;",
                                       c, bound, SPREAD_UNIT, SPREAD_UNIT, SPREAD_UNIT);
                want_start = str_printf("(%s)(AscendC::GetBlockIdx()*%s)", type, c);
                want_cond = str_printf("&&(uint64_t)(%s)<(AscendC::GetBlockIdx()+1)*%s", v, c);
        }
        if (want_decl && want_start && want_cond &&
            squeezed_is(f, stmt->first, stmt->last, want_decl) &&
            squeezed_is(f, cxx_tok_next(f, eq), cxx_tok_prev(f, semi1), want_start) &&
            squeezed_is(f, and, cxx_tok_prev(f, semi2), want_cond)) {
                if (u->n++ == 0)
                        site_begin(scan, f, loop, "run the loop over %s on one core again", bound);
                site_delete_stmt(scan, f, stmt->first, stmt->last);
                site_replace(scan, f, cxx_tok_next(f, eq), cxx_tok_prev(f, semi1), "0");
                site_edit(scan, f, cxx_tok_end(f, cxx_tok_prev(f, and)),
                          cxx_tok_end(f, cxx_tok_prev(f, semi2)) -
                              cxx_tok_end(f, cxx_tok_prev(f, and)),
                          "");
        }
        free(c);
        free(bound);
        free(v);
        free(type);
        free(want_decl);
        free(want_start);
        free(want_cond);
        return 0;
}

int motif_spread_inverse(struct motif_scan *scan)
{
        struct unspread u = { scan, 0, false };
        int r = 0;

        for (int pass = 0; pass < 2; pass++) {
                u.guards = pass == 1;
                for (size_t k = 0; k < scan->n_files && r >= 0; k++)
                        if (scan_is_kernel(&scan->files[k]))
                                r = walk_statements(scan, &scan->files[k], unspread_stmt, &u);
                if (r < 0 || u.n == 0)
                        return r;
        }
        for_each_launch(scan, launch_one_core, NULL);
        return site_end(scan);
}
