/* SPDX-License-Identifier: MIT */
/*
 * The motif library: the table of known kernel rewrites, the public API
 * that detects and applies them on an operator's file set, and what the
 * scanners share on top of cxx/'s statement view: the scan, its walk and
 * its site builder (sites-internal.h, which the tiling moves use too), and
 * AscendC's vector APIs and tensor and queue declarations
 * (motifs-internal.h, the motif scanners' own).
 */
#include "motifs-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ the table */

/*
 * Rewind walks this table in order, so where one motif's inverse also
 * undoes another's, the finer one comes first: double_buffer's inverse
 * unwinds prefetching loops too (they need the second buffers), and
 * taken first it would credit a prefetch's gain to double buffering and
 * leave the bank without a single prefetch_tile entry.
 */
static const struct motif motifs[] = {
        {
            .name = "spread_over_cores",
            .title = "Spread a one-core kernel's loop over every vector core",
            .description = "Where every launch of the host is SetBlockDim(1) and the kernel never "
                           "reads its block index, give each vector core its own run of the "
                           "iterations of the top-level loop that writes the output, in multiples "
                           "of 64 so that no two cores share a 64-byte cache line of scalar "
                           "writes, and launch on the platform's vector cores.  The inverse runs "
                           "the loop on one core again.",
            .bottleneck = "bound=s bound=v bound=mte2 bound=mte3 bound=launch",
            .forward = motif_spread_forward,
            .inverse = motif_spread_inverse,
            .whole_operator = true,
        },
        {
            .name = "prefetch_tile",
            .title = "Fetch the next tile before computing this one",
            .description =
                "In a loop 'for (i = 0; i < N; i++) { CopyIn(i); Compute(i); CopyOut(i); }' "
                "issue tile i+1's copy-in ahead of tile i's compute ('if (0 < N) CopyIn(0);' "
                "before the loop, 'if (i + 1 < N) CopyIn(i + 1);' in it), and give the "
                "queues CopyIn fills two buffers (TQue depth and InitBuffer count).  Helps "
                "when the compute waits on the vector unit (a reduction read back with "
                "GetValue), which otherwise holds the next copy back until it is done.  "
                "A loop that allocates, copies in and enqueues its tile in its own body, or "
                "copies into a TBuf tensor taken before it (which becomes a depth-2 queue), "
                "gets the same: tile i+1's fetch right after tile i is dequeued.  Needs UB "
                "room for the second buffers.  The inverse issues each copy-in in its turn "
                "again.",
            .bottleneck = "stall=mte2_v stall=scalar_issue scalar=high stall=buffer_free",
            .forward = motif_prefetch_forward,
            .inverse = motif_prefetch_inverse,
        },
        {
            .name = "tbuf_queues",
            .title = "Move tiles through queues instead of PIPE_ALL barriers",
            .description =
                "A tile loop 'copy-in to a TBuf tensor; PipeBarrier<PIPE_ALL>(); compute; "
                "PipeBarrier<PIPE_ALL>(); copy-out; PipeBarrier<PIPE_ALL>();' drains every pipe "
                "three times a tile.  The input TBuf becomes a depth-2 VECIN queue and the output "
                "one a depth-2 VECOUT queue (a new one when the loop computes in place: its last "
                "write goes there), with AllocTensor, EnQue, DeQue and FreeTensor in place of the "
                "barriers, so the next tile's copy-in runs under this tile's compute.  Needs UB "
                "room for the second buffers.  The inverse turns such queues back into TBufs and "
                "barriers.",
            .bottleneck = "stall=pipe_all stall=mte2_v stall=v_mte3 v_util=low",
            .forward = motif_queues_forward,
            .inverse = motif_queues_inverse,
        },
        {
            .name = "double_buffer",
            .title = "Double-buffer the queues",
            .description =
                "Give each TQue two buffers (InitBuffer's buffer count, or the BUFFER_NUM "
                "constant it uses, 1 -> 2; a tiling constant of the same name follows) so "
                "that the copy-in of tile i+1 overlaps the compute of tile i.  Needs at "
                "least two tiles per core and UB room for the second buffers.  The inverse "
                "changes the kernel only and turns a loop that prefetches tile i+1 back into "
                "copy-in, compute, copy-out per tile.",
            .bottleneck = "stall=mte2_v stall=v_mte3 stall=buffer_free v_util=low",
            .forward = motif_double_buffer_forward,
            .inverse = motif_double_buffer_inverse,
        },
        {
            .name = "barrier_removal",
            .title = "Remove PIPE_ALL and redundant PIPE_V barriers",
            .description = "Delete PipeBarrier<PIPE_ALL>() (every pipe drains, nothing overlaps) "
                           "where queue EnQue/DeQue or auto-sync already order the pipes, and "
                           "PipeBarrier<PIPE_V>() that does not sit between a vector instruction "
                           "and one that reads its result.  The inverse inserts PIPE_ALL after "
                           "copy-ins and before copy-outs.",
            .bottleneck = "stall=pipe_all stall=v_dependency stall=auto_sync",
            .forward = motif_barriers_forward,
            .inverse = motif_barriers_inverse,
        },
        {
            .name = "datacopy_aligned",
            .title = "DataCopy instead of DataCopyPad when the length is 32-byte aligned",
            .description =
                "Guard a one-block DataCopyPad with a test that its byte length is a "
                "multiple of 32 and take a plain DataCopy then, keeping DataCopyPad only "
                "for the unaligned tail.  The inverse drops such guards and turns plain "
                "DataCopy into the equivalent DataCopyPad.",
            .bottleneck = "bound=mte2 mte2_util=high align=32",
            .forward = motif_pad_copy_forward,
            .inverse = motif_pad_copy_inverse,
        },
        {
            .name = "strided_copy",
            .title = "One strided copy instead of a loop of row copies",
            .description = "Merge a loop that copies one row per iteration into a single "
                           "DataCopyPad whose DataCopyExtParams carry the row count and the gaps "
                           "between rows, so the per-copy overhead is paid once.  The inverse "
                           "splits a multi-row copy into a loop of row copies.",
            .bottleneck = "copy=small bound=mte2 scalar=high",
            .forward = motif_strided_copy_forward,
            .inverse = motif_strided_copy_inverse,
        },
        {
            .name = "vectorize_scalar_loop",
            .title = "Vectorise a scalar GetValue/SetValue loop",
            .description = "Replace a loop that computes z[i] = x[i] op y[i] (or x[i] op s) one "
                           "element at a time on the scalar unit with the vector instruction "
                           "(Add, Sub, Mul, Div, Adds, Muls) over the whole count.  The inverse "
                           "expands such an instruction into the scalar loop.",
            .bottleneck = "bound=s scalar=high stall=scalar_issue v_util=low",
            .forward = motif_vectorize_forward,
            .inverse = motif_vectorize_inverse,
        },
        {
            .name = "vector_accumulator",
            .title = "Add per-tile reductions in a vector, read the sum once",
            .description =
                "In a loop 'ReduceSum(part, ...); acc += part.GetValue(0);' with a local float "
                "acc the loop reads nowhere else, add part into element 0 of a 32-byte UB "
                "accumulator on the vector unit instead ('Add(accVec, accVec, part, 1)'; "
                "zeroed before the loop) and read it once after the loop.  The scalar read "
                "made the scalar unit wait for every tile's reduction, which held the next "
                "copy-in back: the motif pays with double-buffered input queues.  The "
                "inverse reads each tile's reduction back again.",
            .bottleneck = "stall=scalar_issue scalar=high stall=mte2_v stall=other_flag",
            .forward = motif_accumulate_forward,
            .inverse = motif_accumulate_inverse,
        },
        {
            .name = "hoist_duplicate",
            .title = "Hoist a loop-invariant Duplicate out of the loop",
            .description = "A Duplicate whose value, count and destination do not change inside "
                           "the loop, and whose destination the loop only reads, runs once before "
                           "the loop instead of every iteration.  The inverse moves it into the "
                           "loop that follows.",
            .bottleneck = "bound=v v_util=high stall=v_dependency",
            .forward = motif_hoist_forward,
            .inverse = motif_hoist_inverse,
        },
        {
            .name = "fuse_axpy",
            .title = "Fuse Muls + Add into Axpy",
            .description = "Muls(t, x, s, n) followed by Add(d, d, t, n) (d += s * x), with t "
                           "dead afterwards, becomes one Axpy(d, x, s, n): one vector pass instead "
                           "of two and no PIPE_V barrier between.  The inverse splits Axpy into "
                           "Muls in place on x, a barrier and Add.",
            .bottleneck = "bound=v v_util=high stall=v_dependency",
            .forward = motif_axpy_forward,
            .inverse = motif_axpy_inverse,
        },
        {
            .name = "inplace_buffer",
            .title = "Compute a temporary in place to free a UB buffer",
            .description =
                "A scratch TBuf that first receives a function of an input tile that is "
                "not read again is replaced by that input's own buffer, and the TBuf and "
                "its InitBuffer are removed, freeing UB for larger tiles.  The inverse "
                "gives an in-place instruction a separate buffer.",
            .bottleneck = "ub_headroom=low copy=small",
            .forward = motif_inplace_forward,
            .inverse = motif_inplace_inverse,
        },
        {
            .name = "out_of_place",
            .title = "Write an in-place vector instruction into a second buffer",
            .description =
                "Op(t, t, ...) reads and writes the same UB bank on every repeat, a "
                "read/write bank conflict.  Two such instructions in a row go through a "
                "buffer of t's type and size that is dead between them; a single one writes "
                "a twin of t instead (a dead buffer, so that a chain alternates between two; "
                "a new TBuf when there is none) and t's later reads follow it.  The inverse "
                "writes an instruction, or a pair, into its source when that source is dead "
                "afterwards.",
            .bottleneck = "ub_banks=conflict bound=v v_util=high",
            .forward = motif_place_forward,
            .inverse = motif_place_inverse,
        },
        {
            .name = "tbuf_temporaries",
            .title = "TBuf instead of a TQue for temporaries",
            .description = "A queue that is only allocated and freed, never enqueued, carries "
                           "flag traffic for nothing: make it a TBuf and Get its tensor.  The "
                           "inverse turns a TBuf into a depth-1 VECCALC queue with AllocTensor and "
                           "FreeTensor.",
            .bottleneck = "scalar=high stall=buffer_free stall=other_flag",
            .forward = motif_tbuf_forward,
            .inverse = motif_tbuf_inverse,
        },
        {
            .name = "aiv_only",
            .title = "Launch as an AIV-only kernel",
            .description = "Start the entry with KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY) so "
                           "no cube cores are launched with the vector cores, cutting launch "
                           "overhead.  The inverse removes it.",
            .bottleneck = "launch=mix bound=launch",
            .forward = motif_aiv_only_forward,
            .inverse = motif_aiv_only_inverse,
        },
        {
            .name = "remainder_first_cores",
            .title = "Give the remainder to the first cores",
            .description = "Split the work in aligned units and give the r leftover units one "
                           "each to the first r cores instead of leaving one short or long tail "
                           "core; the kernel computes its range from the total and GetBlockNum().  "
                           "The inverse moves the whole remainder to the last core.",
            .bottleneck = "tail_core=yes",
            .forward = motif_balance_forward,
            .inverse = motif_balance_inverse,
        },
        {
            .name = "bank_conflict_pad",
            .title = "Space UB buffers 256 bytes apart against bank conflicts",
            .description = "Insert a 256-byte TBuf between two buffers that are set up one after "
                           "the other, so the two operands of a vector instruction fall in "
                           "different UB bank groups (the tiling's UB budget shrinks by as much).  "
                           "The inverse removes such pads.",
            .bottleneck = "ub_banks=conflict bound=v v_util=high",
            .forward = motif_bank_pad_forward,
            .inverse = motif_bank_pad_inverse,
        },
        {
            .name = "l2_bypass",
            .title = "Bypass L2 for tensors streamed once",
            .description = "Mark each GM tensor that is read or written exactly once with "
                           "SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE) after its "
                           "SetGlobalBuffer, so streaming does not thrash L2.  Workspace and "
                           "read-modify-write tensors are left alone.  The inverse removes hints.",
            .bottleneck = "bound=mte2 mte2_util=high mte3_util=high",
            .forward = motif_l2_bypass_forward,
            .inverse = motif_l2_bypass_inverse,
        },
};

size_t motif_count(void)
{
        return sizeof(motifs) / sizeof(*motifs);
}

const struct motif *motif_at(size_t i)
{
        return i < motif_count() ? &motifs[i] : NULL;
}

const struct motif *motif_find(const char *name)
{
        for (size_t i = 0; name && i < motif_count(); i++)
                if (strcmp(motifs[i].name, name) == 0)
                        return &motifs[i];
        return NULL;
}

/* ================================================================ statements */

struct scan_walk {
        struct motif_scan *scan;
        struct cxx_file *f;
        motif_stmt_fn fn;
        void *userdata;
};

static int scan_walk_stmt(const struct cxx_file *f, const struct cxx_func *funcs,
                          const struct cxx_stmt *stmt, void *userdata)
{
        struct scan_walk *w = userdata;

        (void)f; /* w->f, which the site builder may edit */
        return w->fn(w->scan, w->f, funcs, stmt, w->userdata);
}

int walk_statements(struct motif_scan *scan, struct cxx_file *f, motif_stmt_fn fn, void *userdata)
{
        struct scan_walk w = { scan, f, fn, userdata };

        return cxx_walk_statements(f, scan_walk_stmt, &w);
}

bool is_vector_api(const struct cxx_file *f, size_t name)
{
        static const char *const apis[] = {
                "Add",
                "Sub",
                "Mul",
                "Div",
                "Max",
                "Min",
                "Adds",
                "Muls",
                "Maxs",
                "Mins",
                "Exp",
                "Ln",
                "Abs",
                "Relu",
                "Sqrt",
                "Rsqrt",
                "Reciprocal",
                "Cast",
                "Duplicate",
                "Axpy",
                "ReduceSum",
                "ReduceMax",
                "ReduceMin",
                "WholeReduceSum",
                "WholeReduceMax",
                "BlockReduceSum",
                "Select",
                "Compare",
                "CompareScalar",
                "Sigmoid",
                "Tanh",
                "And",
                "Or",
                "Not",
                "ShiftLeft",
                "ShiftRight",
                "Brcb",
                "LeakyRelu",
                "Power",
                "Gelu",
        };

        for (size_t i = 0; i < sizeof(apis) / sizeof(*apis); i++)
                if (cxx_tok_eq(f, name, apis[i]))
                        return true;
        return false;
}

/* ================================================================ declarations */

static bool is_decl_kind(const struct cxx_file *f, size_t i)
{
        return cxx_tok_eq(f, i, "GlobalTensor") || cxx_tok_eq(f, i, "LocalTensor") ||
               cxx_tok_eq(f, i, "TQue") || cxx_tok_eq(f, i, "TQueBind") || cxx_tok_eq(f, i, "TBuf");
}

/* The statement start of the declaration whose kind token is at i. */
static size_t decl_first(const struct cxx_file *f, size_t i)
{
        size_t p = i, q;

        for (q = cxx_tok_prev(f, p); q != CXX_NONE; q = cxx_tok_prev(f, q)) {
                if (cxx_tok_eq(f, q, ";") || cxx_tok_eq(f, q, "{") || cxx_tok_eq(f, q, "}") ||
                    cxx_tok_eq(f, q, ":") || cxx_tok_eq(f, q, "(") || cxx_tok_eq(f, q, ",") ||
                    f->tokens.tokens[q].in_directive)
                        break;
                p = q;
        }
        return p;
}

bool decl_find(const struct cxx_file *f, size_t a, size_t b, const char *name, size_t name_len,
               struct motif_decl *ret)
{
        for (size_t i = a; i <= b && i < f->tokens.n; i++) {
                size_t lt, gt, k;
                struct motif_decl d = { 0 };
                bool hit = false;

                if (!is_decl_kind(f, i))
                        continue;
                lt = cxx_tok_next(f, i);
                if (!cxx_tok_eq(f, lt, "<"))
                        continue;
                gt = cxx_angle_match(f, lt);
                if (gt == CXX_NONE)
                        continue;
                k = cxx_tok_next(f, gt);
                while (cxx_tok_eq(f, k, "&") || cxx_tok_eq(f, k, "*") || cxx_tok_eq(f, k, "const"))
                        k = cxx_tok_next(f, k);
                while (cxx_tok_is_ident(f, k)) {
                        size_t nx = cxx_tok_next(f, k);
                        d.n_declarators++;
                        if (cxx_tok_len(f, k) == name_len &&
                            memcmp(cxx_tok_text(f, k), name, name_len) == 0) {
                                d.name = k;
                                hit = true;
                        }
                        if (cxx_tok_eq(f, nx, "=") || cxx_tok_eq(f, nx, "(") ||
                            cxx_tok_eq(f, nx, "{")) {
                                int depth = 0;
                                for (nx = cxx_tok_next(f, nx); nx < f->tokens.n;
                                     nx = cxx_tok_next(f, nx)) {
                                        if (cxx_tok_eq(f, nx, "(") || cxx_tok_eq(f, nx, "{") ||
                                            cxx_tok_eq(f, nx, "["))
                                                depth++;
                                        else if (cxx_tok_eq(f, nx, ")") || cxx_tok_eq(f, nx, "}") ||
                                                 cxx_tok_eq(f, nx, "]"))
                                                depth--;
                                        if (depth <= 0 && (cxx_tok_eq(f, nx, ",") ||
                                                           cxx_tok_eq(f, nx, ";") || depth < 0))
                                                break;
                                }
                        }
                        if (cxx_tok_eq(f, nx, ",")) {
                                k = cxx_tok_next(f, nx);
                                continue;
                        }
                        d.last = nx;
                        break;
                }
                if (!hit || !cxx_tok_eq(f, d.last, ";"))
                        continue;
                d.kind = i;
                d.lt = lt;
                d.gt = gt;
                d.first = decl_first(f, i);
                *ret = d;
                return true;
        }
        return false;
}

bool decl_of(const struct cxx_file *f, const struct cxx_func *func, size_t ident,
             struct motif_decl *ret)
{
        if (ident == CXX_NONE)
                return false;
        if (func && decl_find(f, func->open, func->close, cxx_tok_text(f, ident),
                              cxx_tok_len(f, ident), ret))
                return true;
        return decl_find(f, 0, f->tokens.n - 1, cxx_tok_text(f, ident), cxx_tok_len(f, ident), ret);
}

bool decl_is(const struct cxx_file *f, const struct motif_decl *d, const char *kind)
{
        return cxx_tok_eq(f, d->kind, kind);
}

/* The LocalTensor element type of identifier i (a new string), or NULL. */
char *local_tensor_type(const struct cxx_file *f, const struct cxx_func *func, size_t i)
{
        struct motif_decl d;

        if (i == CXX_NONE || !decl_of(f, func, i, &d) || !decl_is(f, &d, "LocalTensor") ||
            cxx_tok_next(f, d.lt) >= d.gt)
                return NULL;
        return cxx_range_dup(f, cxx_tok_next(f, d.lt), cxx_tok_prev(f, d.gt));
}

/* Whether tokens a and b are spelled alike (false when either is CXX_NONE). */
bool tok_assigns(const struct cxx_file *f, size_t i)
{
        static const char *const ops[] = { "=",  "+=", "-=",  "*=",  "/=", "%=", "&=",
                                           "|=", "^=", "<<=", ">>=", "++", "--", NULL };

        for (size_t k = 0; ops[k]; k++)
                if (cxx_tok_eq(f, i, ops[k]))
                        return true;
        return false;
}

bool tok_same(const struct cxx_file *f, size_t a, size_t b)
{
        return a != CXX_NONE && b != CXX_NONE && cxx_range_same(f, a, a, b, b);
}

/* How often the identifier spelled like token name occurs in [a, b]. */
size_t ident_count(const struct cxx_file *f, size_t a, size_t b, size_t name)
{
        size_t n = 0;

        for (size_t i = a; i <= b && i < f->tokens.n; i = cxx_tok_next(f, i))
                if (tok_same(f, i, name))
                        n++;
        return n;
}

/* The innermost '{' enclosing token i. */
size_t block_enclosing(const struct cxx_file *f, size_t i)
{
        int depth = 0;

        for (size_t j = cxx_tok_prev(f, i); j != CXX_NONE; j = cxx_tok_prev(f, j)) {
                if (cxx_tok_eq(f, j, "}"))
                        depth++;
                else if (cxx_tok_eq(f, j, "{") && depth-- == 0)
                        return j;
        }
        return CXX_NONE;
}

/* ================================================================ sites */

static char *str_vprintf(const char *fmt, va_list ap)
{
        char *out = NULL;

        return vasprintf(&out, fmt, ap) < 0 ? NULL : out;
}

char *str_printf(const char *fmt, ...)
{
        va_list ap;
        char *out;

        va_start(ap, fmt);
        out = str_vprintf(fmt, ap);
        va_end(ap);
        return out;
}

static size_t file_index(const struct motif_scan *scan, const struct cxx_file *f)
{
        return (size_t)(f - scan->files);
}

void site_begin(struct motif_scan *scan, struct cxx_file *f, size_t tok, const char *fmt, ...)
{
        va_list ap;

        memset(&scan->cur, 0, sizeof(scan->cur));
        scan->cur_cap = 0;
        scan->open = true;
        scan->failed = false;
        snprintf(scan->cur.site.file, sizeof(scan->cur.site.file), "%s", f->path);
        scan->cur.site.line = tok < f->tokens.n ? f->tokens.tokens[tok].line : 0;
        va_start(ap, fmt);
        vsnprintf(scan->cur.site.what, sizeof(scan->cur.site.what), fmt, ap);
        va_end(ap);
}

void site_edit(struct motif_scan *scan, struct cxx_file *f, size_t start, size_t len,
               const char *text)
{
        struct motif_found *c = &scan->cur;
        size_t fi = file_index(scan, f);

        if (!scan->open || scan->failed)
                return;
        if (!text) {
                scan->failed = true;
                return;
        }
        /* insertions at one place join in order */
        for (size_t i = 0; len == 0 && i < c->n_edits; i++) {
                if (c->edits[i].file == fi && c->edits[i].start == start && c->edits[i].len == 0) {
                        char *joined = str_printf("%s%s", c->edits[i].text, text);
                        if (!joined) {
                                scan->failed = true;
                                return;
                        }
                        free(c->edits[i].text);
                        c->edits[i].text = joined;
                        return;
                }
        }
        if (c->n_edits == scan->cur_cap) {
                size_t cap = scan->cur_cap ? 2 * scan->cur_cap : 8;
                struct motif_edit *grown = realloc(c->edits, cap * sizeof(*grown));
                if (!grown) {
                        scan->failed = true;
                        return;
                }
                c->edits = grown;
                scan->cur_cap = cap;
        }
        c->edits[c->n_edits].file = fi;
        c->edits[c->n_edits].start = start;
        c->edits[c->n_edits].len = len;
        c->edits[c->n_edits].text = strdup(text);
        if (!c->edits[c->n_edits].text) {
                scan->failed = true;
                return;
        }
        c->n_edits++;
}

void site_editf(struct motif_scan *scan, struct cxx_file *f, size_t start, size_t len,
                const char *fmt, ...)
{
        va_list ap;
        char *text;

        va_start(ap, fmt);
        text = str_vprintf(fmt, ap);
        va_end(ap);
        site_edit(scan, f, start, len, text);
        free(text);
}

void site_replace(struct motif_scan *scan, struct cxx_file *f, size_t a, size_t b, const char *text)
{
        size_t s = f->tokens.tokens[a].start;

        site_edit(scan, f, s, cxx_tok_end(f, b) - s, text);
}

void site_delete_stmt(struct motif_scan *scan, struct cxx_file *f, size_t first, size_t last)
{
        size_t s = f->tokens.tokens[first].start, e = cxx_tok_end(f, last),
               ls = cxx_line_start(f, s), p = e;

        while (p < f->len && (f->text[p] == ' ' || f->text[p] == '\t'))
                p++;
        if (cxx_text_blank(f, ls, s) && (p == f->len || f->text[p] == '\n' || f->text[p] == '\r')) {
                while (p < f->len && f->text[p] != '\n')
                        p++;
                if (p < f->len)
                        p++;
                site_edit(scan, f, ls, p - ls, "");
        } else {
                site_edit(scan, f, s, p - s, "");
        }
}

void site_insert_before(struct motif_scan *scan, struct cxx_file *f, size_t first, const char *text)
{
        size_t s = f->tokens.tokens[first].start, ls = cxx_line_start(f, s);

        if (cxx_text_blank(f, ls, s))
                site_editf(scan, f, ls, 0, "%.*s%s\n", (int)(s - ls), f->text + ls, text);
        else
                site_editf(scan, f, s, 0, "%s ", text);
}

void site_insert_after(struct motif_scan *scan, struct cxx_file *f, size_t first, size_t last,
                       const char *text)
{
        size_t e = cxx_tok_end(f, last), p = e, nx = last + 1;
        char *indent;

        /* a comment that ends this line stays with its statement */
        while (nx < f->tokens.n && f->tokens.tokens[nx].kind == TOKEN_COMMENT &&
               f->tokens.tokens[nx].line == f->tokens.tokens[last].line &&
               !memchr(f->text + f->tokens.tokens[nx].start, '\n', f->tokens.tokens[nx].len)) {
                p = cxx_tok_end(f, nx);
                nx++;
        }
        while (p < f->len && (f->text[p] == ' ' || f->text[p] == '\t' || f->text[p] == '\r'))
                p++;
        if (p < f->len && f->text[p] != '\n') {
                site_editf(scan, f, e, 0, " %s", text);
                return;
        }
        indent = cxx_indent_at(f, f->tokens.tokens[first].start);
        if (!indent) {
                site_fail(scan);
                return;
        }
        if (p < f->len)
                site_editf(scan, f, p + 1, 0, "%s%s\n", indent, text);
        else
                site_editf(scan, f, p, 0, "\n%s%s", indent, text);
        free(indent);
}

void site_fail(struct motif_scan *scan)
{
        scan->failed = true;
}

static void found_release(struct motif_found *found)
{
        for (size_t i = 0; i < found->n_edits; i++)
                free(found->edits[i].text);
        free(found->edits);
        found->edits = NULL;
        found->n_edits = 0;
}

int site_end(struct motif_scan *scan)
{
        if (!scan->open)
                return 0;
        scan->open = false;
        if (scan->failed || scan->cur.n_edits == 0) {
                found_release(&scan->cur);
                return 0;
        }
        if (scan->n_found == scan->cap) {
                size_t cap = scan->cap ? 2 * scan->cap : 8;
                struct motif_found *grown = realloc(scan->found, cap * sizeof(*grown));
                if (!grown) {
                        found_release(&scan->cur);
                        return -ENOMEM;
                }
                scan->found = grown;
                scan->cap = cap;
        }
        scan->found[scan->n_found++] = scan->cur;
        memset(&scan->cur, 0, sizeof(scan->cur));
        return 0;
}

bool site_exists_at(const struct motif_scan *scan, const struct cxx_file *f, size_t pos)
{
        size_t fi = (size_t)(f - scan->files);

        for (size_t i = 0; i < scan->n_found; i++)
                for (size_t k = 0; k < scan->found[i].n_edits; k++)
                        if (scan->found[i].edits[k].file == fi &&
                            scan->found[i].edits[k].start == pos)
                                return true;
        return false;
}

/* ================================================================ the API */

static bool is_source(const char *path)
{
        const char *dot = strrchr(path, '.');

        return dot &&
               (strcmp(dot, ".cpp") == 0 || strcmp(dot, ".h") == 0 || strcmp(dot, ".hpp") == 0 ||
                strcmp(dot, ".cc") == 0 || strcmp(dot, ".c") == 0);
}

bool scan_is_kernel(const struct cxx_file *f)
{
        return is_source(f->path) && strncmp(f->path, "op_kernel/", 10) == 0;
}

bool scan_is_host(const struct cxx_file *f)
{
        return is_source(f->path) && strncmp(f->path, "op_host/", 8) == 0;
}

static void scan_release(struct motif_scan *scan)
{
        for (size_t i = 0; i < scan->n_files; i++)
                cxx_file_release(&scan->files[i]);
        free(scan->files);
        for (size_t i = 0; i < scan->n_found; i++)
                found_release(&scan->found[i]);
        free(scan->found);
        found_release(&scan->cur);
        memset(scan, 0, sizeof(*scan));
}

static int scan_init(struct motif_scan *scan, const struct motif_file *files, size_t n)
{
        memset(scan, 0, sizeof(*scan));
        scan->kernel = CXX_NONE;
        scan->auto_sync = true;
        scan->files = calloc(n ? n : 1, sizeof(*scan->files));
        if (!scan->files)
                return -ENOMEM;
        scan->n_files = n;
        for (size_t i = 0; i < n; i++) {
                struct cxx_file *f = &scan->files[i];
                f->path = files[i].path;
                f->text = files[i].text;
                f->len = files[i].text ? strlen(files[i].text) : 0;
                f->tokens.text = f->text;
                if (!f->path || !f->text) {
                        scan_release(scan);
                        return -EINVAL;
                }
                if (strcmp(f->path, "ascendopt.json") == 0 ||
                    (strlen(f->path) > 15 &&
                     strcmp(f->path + strlen(f->path) - 15, "/ascendopt.json") == 0)) {
                        json_t *doc = json_loads(f->text, 0, NULL);
                        if (json_is_false(json_object_get(doc, "auto_sync")))
                                scan->auto_sync = false;
                        json_decref(doc);
                        continue;
                }
                if (!is_source(f->path))
                        continue;
                if (cxx_file_parse(f, f->path, f->text, f->len, NULL) < 0) {
                        scan_release(scan);
                        return -EINVAL;
                }
                if (scan_is_kernel(f) && scan->kernel == CXX_NONE)
                        scan->kernel = i;
        }
        if (scan->kernel == CXX_NONE) {
                scan_release(scan);
                return -EINVAL;
        }
        return 0;
}

static int scan_run(const struct motif *motif, enum motif_direction direction,
                    struct motif_scan *scan)
{
        int (*fn)(struct motif_scan *) =
            direction == MOTIF_FORWARD ? motif->forward : motif->inverse;
        int r;

        if (!fn)
                return -EINVAL;
        if (motif->whole_operator) {
                r = fn(scan);
                if (scan->open)
                        site_end(scan);
                return r;
        }
        /*
         * Real kernels keep their bodies in headers beside the entry file
         * (op_kernel/foo.cpp dispatching to op_kernel/foo_impl.h): every
         * op_kernel/ source is scanned in turn, in the set's order, so the
         * first file's sites keep the indices they had alone.
         */
        for (size_t i = 0; i < scan->n_files; i++) {
                if (!scan_is_kernel(&scan->files[i]))
                        continue;
                scan->kernel = i;
                r = fn(scan);
                if (scan->open)
                        site_end(scan);
                if (r < 0)
                        return r;
        }
        return 0;
}

int motif_detect(const struct motif *motif, enum motif_direction direction,
                 const struct motif_file *files, size_t n_files, struct motif_site **ret_sites,
                 size_t *ret_n)
{
        struct motif_scan scan;
        struct motif_site *sites = NULL;
        int r;

        if (!motif)
                return -EINVAL;
        r = scan_init(&scan, files, n_files);
        if (r < 0)
                return r;
        r = scan_run(motif, direction, &scan);
        if (r < 0)
                goto out;
        if (scan.n_found) {
                sites = calloc(scan.n_found, sizeof(*sites));
                if (!sites) {
                        r = -ENOMEM;
                        goto out;
                }
                for (size_t i = 0; i < scan.n_found; i++)
                        sites[i] = scan.found[i].site;
        }
        *ret_sites = sites;
        *ret_n = scan.n_found;
out:
        scan_release(&scan);
        return r;
}

static int compare_edits(const void *a, const void *b)
{
        const struct motif_edit *x = *(const struct motif_edit *const *)a;
        const struct motif_edit *y = *(const struct motif_edit *const *)b;

        if (x->start != y->start)
                return x->start < y->start ? -1 : 1;
        if ((x->len == 0) != (y->len == 0))
                return x->len == 0 ? -1 : 1;
        return x < y ? -1 : x > y;
}

/* Applies the edits of found that belong to file fi to text; *ret is new. */
static int edits_apply(const struct motif_found *found, size_t fi, const char *text, size_t len,
                       char **ret)
{
        const struct motif_edit **sorted = NULL;
        size_t n = 0, out_len = len, pos = 0, o = 0;
        char *out = NULL;
        int r = 0;

        sorted = calloc(found->n_edits ? found->n_edits : 1, sizeof(*sorted));
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < found->n_edits; i++)
                if (found->edits[i].file == fi)
                        sorted[n++] = &found->edits[i];
        qsort(sorted, n, sizeof(*sorted), compare_edits);
        for (size_t i = 0; i < n; i++) {
                if (sorted[i]->start + sorted[i]->len > len ||
                    (i && sorted[i - 1]->start + sorted[i - 1]->len > sorted[i]->start)) {
                        r = -EINVAL;
                        goto out;
                }
                out_len = out_len - sorted[i]->len + strlen(sorted[i]->text);
        }
        out = malloc(out_len + 1);
        if (!out) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < n; i++) {
                size_t keep = sorted[i]->start - pos, tl = strlen(sorted[i]->text);
                memcpy(out + o, text + pos, keep);
                o += keep;
                memcpy(out + o, sorted[i]->text, tl);
                o += tl;
                pos = sorted[i]->start + sorted[i]->len;
        }
        memcpy(out + o, text + pos, len - pos);
        o += len - pos;
        out[o] = '\0';
        *ret = out;
out:
        free(sorted);
        return r;
}

void motif_files_free(struct motif_file *files, size_t n)
{
        if (!files)
                return;
        for (size_t i = 0; i < n; i++) {
                free((void *)files[i].path);
                free((void *)files[i].text);
        }
        free(files);
}

/* Applies one site of the motif to texts[] (replacing the changed ones). */
static int apply_once(const struct motif *motif, enum motif_direction direction,
                      struct motif_file *current, size_t n, size_t site)
{
        struct motif_scan scan;
        int r;

        r = scan_init(&scan, current, n);
        if (r < 0)
                return r;
        r = scan_run(motif, direction, &scan);
        if (r < 0)
                goto out;
        if (site >= scan.n_found) {
                r = -ENOENT;
                goto out;
        }
        for (size_t fi = 0; fi < n; fi++) {
                bool touched = false;
                char *text = NULL;
                for (size_t k = 0; k < scan.found[site].n_edits; k++)
                        touched |= scan.found[site].edits[k].file == fi;
                if (!touched)
                        continue;
                r = edits_apply(&scan.found[site], fi, scan.files[fi].text, scan.files[fi].len,
                                &text);
                if (r < 0)
                        goto out;
                /* the scan borrows the old text; swap it only at the end */
                scan.files[fi].text = text;
        }
        for (size_t fi = 0; fi < n; fi++) {
                if (scan.files[fi].text != current[fi].text) {
                        free((void *)current[fi].text);
                        current[fi].text = scan.files[fi].text;
                }
        }
out:
        if (r < 0)
                for (size_t fi = 0; fi < n; fi++)
                        if (scan.files && scan.files[fi].text != current[fi].text)
                                free((void *)scan.files[fi].text);
        scan_release(&scan);
        return r;
}

int motif_apply(const struct motif *motif, enum motif_direction direction,
                const struct motif_file *files, size_t n_files, size_t site,
                struct motif_file **ret_changed, size_t *ret_n_changed)
{
        struct motif_file *current = NULL, *changed = NULL;
        size_t n_changed = 0, applied = 0;
        int r = 0;

        if (!motif || (!files && n_files))
                return -EINVAL;
        current = calloc(n_files ? n_files : 1, sizeof(*current));
        if (!current)
                return -ENOMEM;
        for (size_t i = 0; i < n_files; i++) {
                current[i].path = files[i].path;
                current[i].text = files[i].text ? strdup(files[i].text) : NULL;
                if (files[i].text && !current[i].text) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        if (site != MOTIF_ALL_SITES) {
                r = apply_once(motif, direction, current, n_files, site);
                if (r < 0)
                        goto out;
        } else {
                /* one site at a time, detecting again after each, so sites never collide */
                for (applied = 0; applied < 64; applied++) {
                        r = apply_once(motif, direction, current, n_files, 0);
                        if (r == -ENOENT)
                                break;
                        if (r < 0)
                                goto out;
                }
                r = applied ? 0 : -ENOENT;
                if (r < 0)
                        goto out;
        }
        changed = calloc(n_files ? n_files : 1, sizeof(*changed));
        if (!changed) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < n_files; i++) {
                if (!current[i].text || strcmp(current[i].text, files[i].text) == 0)
                        continue;
                changed[n_changed].path = strdup(files[i].path);
                changed[n_changed].text = current[i].text;
                current[i].text = NULL;
                if (!changed[n_changed].path) {
                        free((void *)changed[n_changed].text);
                        r = -ENOMEM;
                        goto out;
                }
                n_changed++;
        }
        *ret_changed = changed;
        *ret_n_changed = n_changed;
        changed = NULL;
out:
        if (changed)
                motif_files_free(changed, n_changed);
        for (size_t i = 0; i < n_files; i++)
                free((void *)current[i].text);
        free(current);
        return r;
}

int motif_detect_text(const struct motif *motif, enum motif_direction direction, const char *text,
                      struct motif_site **ret_sites, size_t *ret_n)
{
        struct motif_file file = { "op_kernel/kernel.cpp", text };

        return motif_detect(motif, direction, &file, 1, ret_sites, ret_n);
}

int motif_apply_text(const struct motif *motif, enum motif_direction direction, const char *text,
                     size_t site, char **ret_text)
{
        struct motif_file file = { "op_kernel/kernel.cpp", text };
        struct motif_file *changed = NULL;
        size_t n = 0;
        char *out;
        int r;

        r = motif_apply(motif, direction, &file, 1, site, &changed, &n);
        if (r < 0)
                return r;
        out = n ? (char *)changed[0].text : strdup(text);
        if (n)
                changed[0].text = NULL;
        motif_files_free(changed, n);
        if (!out)
                return -ENOMEM;
        *ret_text = out;
        return 0;
}
