/* SPDX-License-Identifier: MIT */
/*
 * The tbuf_queues motif: a tile loop that works on TBuf tensors and
 * orders its copy-in, compute and copy-out with PipeBarrier<PIPE_ALL>()
 * runs every pipe dry three times a tile, so nothing overlaps.  Moving the
 * input through a depth-2 VECIN queue and the output through a depth-2
 * VECOUT queue (a new one when the loop computes in place) lets tile i+1's
 * copy-in run under tile i's compute.  The inverse turns the forward's own
 * form back into TBufs and barriers.
 */
#include "motifs-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BODY 64

static struct cxx_file *kernel_of(struct motif_scan *scan)
{
        return &scan->files[scan->kernel];
}

static bool is_call(const struct cxx_file *f, size_t first, size_t last, const char *name,
                    struct cxx_call *c)
{
        return cxx_stmt_call(f, first, last, c) && cxx_call_is(f, c, name);
}

/* "PipeBarrier<PIPE_ALL>();" */
static bool pipe_all(const struct cxx_file *f, size_t first, size_t last)
{
        struct cxx_call c;

        return is_call(f, first, last, "PipeBarrier", &c) && c.n_args == 0 &&
               cxx_range_mentions(f, c.name, c.open, "PIPE_ALL", 8);
}

static bool is_copy(const struct cxx_file *f, size_t first, size_t last, struct cxx_call *c)
{
        return (is_call(f, first, last, "DataCopy", c) ||
                is_call(f, first, last, "DataCopyPad", c)) &&
               c->obj == CXX_NONE && c->n_args >= 3;
}

/* The '{' of the body of the for or while loop at first, else CXX_NONE. */
static size_t loop_body(const struct cxx_file *f, size_t first)
{
        size_t open;

        if (!(cxx_tok_eq(f, first, "for") || cxx_tok_eq(f, first, "while")))
                return CXX_NONE;
        open = cxx_tok_next(f, token_match(&f->tokens, cxx_tok_next(f, first)));
        return cxx_tok_eq(f, open, "{") ? open : CXX_NONE;
}

/* A branch of an if that is one copy, braced or not: *end is its last token. */
static bool branch_copy(const struct cxx_file *f, size_t start, struct cxx_call *c, size_t *end)
{
        size_t inner, last;

        if (cxx_tok_eq(f, start, "{")) {
                *end = token_match(&f->tokens, start);
                inner = cxx_tok_next(f, start);
                last = cxx_stmt_last(f, inner);
                return last != CXX_NONE && cxx_tok_next(f, last) == *end &&
                       is_copy(f, inner, last, c);
        }
        *end = cxx_stmt_last(f, start);
        return *end != CXX_NONE && is_copy(f, start, *end, c);
}

/*
 * A copy statement: one DataCopy or DataCopyPad, or "if (...) copy else
 * copy" with both between the same tensors (datacopy_aligned's form).
 * How many copies it holds (the first in *c), 0 when it is none.
 */
static int copy_stmt(const struct cxx_file *f, size_t first, size_t last, struct cxx_call *c)
{
        struct cxx_call other;
        size_t open = cxx_tok_next(f, first), end, e;

        if (is_copy(f, first, last, c))
                return 1;
        if (!cxx_tok_eq(f, first, "if") || !cxx_tok_eq(f, open, "(") ||
            !branch_copy(f, cxx_tok_next(f, token_match(&f->tokens, open)), c, &end))
                return 0;
        e = cxx_tok_next(f, end);
        if (!cxx_tok_eq(f, e, "else") || !branch_copy(f, cxx_tok_next(f, e), &other, &end) ||
            end != last ||
            !tok_same(f, cxx_arg_base(f, &c->args[0]), cxx_arg_base(f, &other.args[0])) ||
            !tok_same(f, cxx_arg_base(f, &c->args[1]), cxx_arg_base(f, &other.args[1])))
                return 0;
        return 2;
}

/* The statements directly in the block opened at open: first tokens into s, how many. */
static size_t body_statements(const struct cxx_file *f, size_t open, size_t *s, size_t max)
{
        size_t close = token_match(&f->tokens, open), n = 0;

        for (size_t i = cxx_tok_next(f, open); i < close && n < max;) {
                size_t last = cxx_stmt_last(f, i);
                if (last == CXX_NONE || last >= close)
                        return 0;
                s[n++] = i;
                i = cxx_tok_next(f, last);
        }
        return n;
}

/*
 * A tensor of one TBuf: "LocalTensor<T> name = B.Get<T>();" alone in its
 * statement, in func before loop and in a block that holds it, B a TBuf
 * named three times in the file (declaration, InitBuffer, this Get).
 */
struct tbuf_tensor {
        size_t name;        /* in the declaration */
        size_t first, last; /* the declaration statement */
        char *type;         /* T */
        size_t buf;         /* B in the Get */
        struct motif_decl buf_decl;
        size_t init, init_last; /* B's InitBuffer statement */
        struct cxx_call init_call;
};

static void tbuf_tensor_release(struct tbuf_tensor *t)
{
        free(t->type);
        t->type = NULL;
}

/* The InitBuffer call of buf with n_args arguments: its statement (*c, *ret_last), else CXX_NONE. */
static size_t init_of(const struct cxx_file *f, size_t buf, size_t n_args, struct cxx_call *c,
                      size_t *ret_last)
{
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t s, last;
                if (!tok_same(f, i, buf) || !cxx_tok_eq(f, cxx_tok_prev(f, i), "("))
                        continue;
                s = cxx_stmt_first(f, i);
                last = cxx_stmt_last(f, s);
                if (is_call(f, s, last, "InitBuffer", c) && c->obj != CXX_NONE &&
                    c->n_args == n_args && tok_same(f, cxx_arg_ident(f, &c->args[0]), buf)) {
                        *ret_last = last;
                        return s;
                }
        }
        return CXX_NONE;
}

static bool tbuf_tensor_of(const struct cxx_file *f, const struct cxx_func *func, size_t ident,
                           size_t loop, struct tbuf_tensor *ret)
{
        struct motif_decl d;
        size_t eq, b, block;

        memset(ret, 0, sizeof(*ret));
        if (ident == CXX_NONE ||
            !decl_find(f, func->open, loop, cxx_tok_text(f, ident), cxx_tok_len(f, ident), &d) ||
            !decl_is(f, &d, "LocalTensor") || d.n_declarators != 1 || d.kind != d.first)
                return false;
        eq = cxx_tok_next(f, d.name);
        b = cxx_tok_next(f, eq);
        if (!cxx_tok_eq(f, eq, "=") || !cxx_tok_is_ident(f, b) ||
            !cxx_tok_eq(f, cxx_tok_next(f, b), ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, b)), "Get"))
                return false;
        block = block_enclosing(f, d.first);
        if (block == CXX_NONE || token_match(&f->tokens, block) < loop ||
            !decl_of(f, NULL, b, &ret->buf_decl) || !decl_is(f, &ret->buf_decl, "TBuf") ||
            ident_count(f, 0, f->tokens.n - 1, b) != 3)
                return false;
        ret->init = init_of(f, b, 2, &ret->init_call, &ret->init_last);
        if (ret->init == CXX_NONE)
                return false;
        ret->name = d.name;
        ret->first = d.first;
        ret->last = d.last;
        ret->buf = b;
        ret->type = cxx_range_dup(f, cxx_tok_next(f, d.lt), cxx_tok_prev(f, d.gt));
        return ret->type != NULL;
}

/* Whether name is read or written by the scalar unit (GetValue, SetValue, operator[]) in [a, b]. */
static bool scalar_access(const struct cxx_file *f, size_t a, size_t b, size_t name)
{
        for (size_t i = a; i <= b && i < f->tokens.n; i = cxx_tok_next(f, i)) {
                size_t nx = cxx_tok_next(f, i);
                if (!tok_same(f, i, name) || !cxx_tok_eq(f, nx, "."))
                        continue;
                if (cxx_tok_eq(f, cxx_tok_next(f, nx), "GetValue") ||
                    cxx_tok_eq(f, cxx_tok_next(f, nx), "SetValue"))
                        return true;
        }
        return false;
}

/* Whether any argument of c but the first mentions name. */
static bool read_by(const struct cxx_file *f, const struct cxx_call *c, size_t name)
{
        for (size_t k = 1; k < c->n_args; k++)
                if (c->args[k].first != CXX_NONE &&
                    ident_count(f, c->args[k].first, c->args[k].last, name) > 0)
                        return true;
        return false;
}

static char *joined(const char *indent, const char *a, const char *b, const char *c)
{
        if (c)
                return str_printf("%s\n%s%s\n%s%s", a, indent, b, indent, c);
        if (b)
                return str_printf("%s\n%s%s", a, indent, b);
        return strdup(a);
}

#define NONE ((size_t)-1)

/*
 * Lines a, b and c (each may be NULL after the first; all freed here)
 * indented like statement at: in place of it when replace, else after it.
 */
static void lines_at(struct motif_scan *scan, struct cxx_file *f, size_t at, bool replace, char *a,
                     char *b, char *c)
{
        char *indent = cxx_indent_at(f, f->tokens.tokens[at].start);
        char *text = indent && a && (b || !c) ? joined(indent, a, b, c) : NULL;

        if (!text)
                site_fail(scan);
        else if (replace)
                site_replace(scan, f, at, cxx_stmt_last(f, at), text);
        else
                site_insert_after(scan, f, at, cxx_stmt_last(f, at), text);
        free(indent);
        free(text);
        free(a);
        free(b);
        free(c);
}

/* The lines in place of barrier statement s[barrier], or after the statement at prev without one. */
static void put_lines(struct motif_scan *scan, struct cxx_file *f, size_t barrier, size_t prev,
                      const size_t *s, char *a, char *b, char *c)
{
        if (barrier != NONE)
                lines_at(scan, f, s[barrier], true, a, b, c);
        else
                lines_at(scan, f, prev, false, a, b, c);
}

static int forward_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        size_t s[MAX_BODY], n, open, close, i_in, i_out, c0, c1, b1, b2, b3, k;
        size_t writer = CXX_NONE, loop_last;
        int n_in = 0, n_out = 0;
        struct tbuf_tensor in = { 0 }, out = { 0 };
        struct cxx_call cin, cout, c;
        bool in_place;
        char out_name[64], out_buf[64], base[80];
        const char *on, *ob, *ot;
        int r = 0;

        (void)userdata;
        open = loop_body(f, st->first);
        if (open == CXX_NONE)
                return 0;
        close = token_match(&f->tokens, open);
        loop_last = close;
        n = body_statements(f, open, s, MAX_BODY);
        /*
         * copy-in, PIPE_ALL, compute..., PIPE_ALL, copy-out, PIPE_ALL at the
         * end; each barrier may be gone already (barrier_removal on a kernel
         * synchronised automatically), and then the queue calls are added
         */
        for (i_in = 0; i_in < n; i_in++)
                if ((n_in = copy_stmt(f, s[i_in], cxx_stmt_last(f, s[i_in]), &cin)) > 0)
                        break;
        if (i_in + 2 >= n)
                return 0;
        b1 = pipe_all(f, s[i_in + 1], cxx_stmt_last(f, s[i_in + 1])) ? i_in + 1 : NONE;
        c0 = b1 == NONE ? i_in + 1 : b1 + 1;
        b3 = pipe_all(f, s[n - 1], cxx_stmt_last(f, s[n - 1])) ? n - 1 : NONE;
        i_out = b3 == NONE ? n - 1 : n - 2;
        if (i_out <= c0 || (n_out = copy_stmt(f, s[i_out], cxx_stmt_last(f, s[i_out]), &cout)) == 0)
                return 0;
        b2 = pipe_all(f, s[i_out - 1], cxx_stmt_last(f, s[i_out - 1])) ? i_out - 1 : NONE;
        c1 = b2 == NONE ? i_out - 1 : b2 - 1;
        if (c1 < c0 || c1 == NONE)
                return 0;
        for (k = c0; k <= c1; k++)
                if (copy_stmt(f, s[k], cxx_stmt_last(f, s[k]), &c) ||
                    pipe_all(f, s[k], cxx_stmt_last(f, s[k])))
                        return 0;
        if (!tbuf_tensor_of(f, func, cxx_arg_ident(f, &cin.args[0]), st->first, &in) ||
            !tbuf_tensor_of(f, func, cxx_arg_ident(f, &cout.args[1]), st->first, &out))
                goto out;
        in_place = tok_same(f, in.name, out.name);
        /* the tensors live in the loop alone, and only the vector unit touches them */
        if (ident_count(f, func->open, func->close, in.name) !=
                ident_count(f, st->first, loop_last, in.name) + 1 ||
            ident_count(f, func->open, func->close, out.name) !=
                ident_count(f, st->first, loop_last, out.name) + 1 ||
            scalar_access(f, st->first, loop_last, in.name) ||
            scalar_access(f, st->first, loop_last, out.name) ||
            ident_count(f, s[i_in], cxx_stmt_last(f, s[i_in]), in.name) != (size_t)n_in ||
            ident_count(f, s[i_out], cxx_stmt_last(f, s[i_out]), out.name) != (size_t)n_out)
                goto out;
        if (in_place) {
                /* the last compute statement naming it writes it: that write goes to the new queue */
                for (k = c1 + 1; k-- > c0;)
                        if (ident_count(f, s[k], cxx_stmt_last(f, s[k]), in.name))
                                break;
                if (k == NONE || k < c0 || !cxx_stmt_call(f, s[k], cxx_stmt_last(f, s[k]), &c) ||
                    c.obj != CXX_NONE || !is_vector_api(f, c.name) ||
                    !tok_same(f, cxx_arg_ident(f, &c.args[0]), in.name))
                        goto out;
                writer = c.args[0].first;
                snprintf(base, sizeof(base), "%.*sOut", (int)cxx_tok_len(f, in.name),
                         cxx_tok_text(f, in.name));
                cxx_fresh_name(f, base, out_name, sizeof(out_name));
                snprintf(base, sizeof(base), "%.*sOut", (int)cxx_tok_len(f, in.buf),
                         cxx_tok_text(f, in.buf));
                cxx_fresh_name(f, base, out_buf, sizeof(out_buf));
                on = out_name;
                ob = out_buf;
        } else {
                /* the output's first use in the compute writes it and reads nothing of it */
                for (k = c0; k <= c1; k++)
                        if (ident_count(f, s[k], cxx_stmt_last(f, s[k]), out.name))
                                break;
                if (k > c1 || !cxx_stmt_call(f, s[k], cxx_stmt_last(f, s[k]), &c) ||
                    c.obj != CXX_NONE || !is_vector_api(f, c.name) ||
                    !tok_same(f, cxx_arg_ident(f, &c.args[0]), out.name) ||
                    read_by(f, &c, out.name) || tok_same(f, in.buf, out.buf))
                        goto out;
                snprintf(out_name, sizeof(out_name), "%.*s", (int)cxx_tok_len(f, out.name),
                         cxx_tok_text(f, out.name));
                snprintf(out_buf, sizeof(out_buf), "%.*s", (int)cxx_tok_len(f, out.buf),
                         cxx_tok_text(f, out.buf));
                on = out_name;
                ob = out_buf;
        }
        ot = out.type;

        site_begin(scan, f, st->first, "tiles of %.*s through depth-2 queues, not PIPE_ALL",
                   (int)cxx_tok_len(f, in.buf), cxx_tok_text(f, in.buf));
        {
                const char *ib = cxx_tok_text(f, in.buf), *iname = cxx_tok_text(f, in.name);
                int ibl = (int)cxx_tok_len(f, in.buf), inl = (int)cxx_tok_len(f, in.name);
                char *pipe = cxx_range_dup(f, in.init_call.obj, cxx_tok_prev(f, in.init_call.name));
                char *size =
                    cxx_range_dup(f, in.init_call.args[1].first, in.init_call.args[1].last);

                site_redeclare(scan, f, &in.buf_decl, "TQue<QuePosition::VECIN, 2>");
                site_edit(scan, f, f->tokens.tokens[in.init_call.args[1].first].start, 0, "2, ");
                site_delete_stmt(scan, f, in.first, in.last);
                if (in_place) {
                        char *decl = str_printf("TQue<QuePosition::VECOUT, 2> %s;", ob);
                        char *init = pipe && size
                                         ? str_printf("%sInitBuffer(%s, 2, %s);", pipe, ob, size)
                                         : NULL;
                        if (decl && init) {
                                site_insert_after(scan, f, in.buf_decl.first, in.buf_decl.last,
                                                  decl);
                                site_insert_after(scan, f, in.init, in.init_last, init);
                        } else {
                                site_fail(scan);
                        }
                        free(decl);
                        free(init);
                        site_replace(scan, f, writer, writer, on);
                        for (size_t i = s[i_out]; i <= cxx_stmt_last(f, s[i_out]);
                             i = cxx_tok_next(f, i))
                                if (tok_same(f, i, in.name))
                                        site_replace(scan, f, i, i, on);
                } else {
                        site_redeclare(scan, f, &out.buf_decl, "TQue<QuePosition::VECOUT, 2>");
                        site_edit(scan, f, f->tokens.tokens[out.init_call.args[1].first].start, 0,
                                  "2, ");
                        site_delete_stmt(scan, f, out.first, out.last);
                }
                {
                        char *alloc = str_printf("LocalTensor<%s> %.*s = %.*s.AllocTensor<%s>();",
                                                 in.type, inl, iname, ibl, ib, in.type);
                        if (alloc)
                                site_insert_before(scan, f, s[i_in], alloc);
                        else
                                site_fail(scan);
                        free(alloc);
                }
                put_lines(scan, f, b1, s[i_in], s,
                          str_printf("%.*s.EnQue(%.*s);", ibl, ib, inl, iname),
                          str_printf("%.*s = %.*s.DeQue<%s>();", inl, iname, ibl, ib, in.type),
                          str_printf("LocalTensor<%s> %s = %s.AllocTensor<%s>();", ot, on, ob, ot));
                put_lines(scan, f, b2, s[c1], s, str_printf("%s.EnQue(%s);", ob, on),
                          str_printf("%.*s.FreeTensor(%.*s);", ibl, ib, inl, iname),
                          str_printf("%s = %s.DeQue<%s>();", on, ob, ot));
                put_lines(scan, f, b3, s[i_out], s, str_printf("%s.FreeTensor(%s);", ob, on), NULL,
                          NULL);
                free(pipe);
                free(size);
        }
        r = site_end(scan);
out:
        tbuf_tensor_release(&in);
        tbuf_tensor_release(&out);
        return r;
}

/* "Q.M(X);" or "X = Q.M<...>();" or "LocalTensor<T> X = Q.M<T>();": Q's token, else CXX_NONE. */
static size_t queue_call(const struct cxx_file *f, size_t first, size_t last, const char *method,
                         size_t x)
{
        struct cxx_call c;
        size_t eq;

        if (cxx_stmt_call(f, first, last, &c)) {
                if (!cxx_call_is(f, &c, method) || c.obj == CXX_NONE || c.n_args != 1 ||
                    !tok_same(f, cxx_arg_ident(f, &c.args[0]), x) ||
                    cxx_tok_next(f, cxx_tok_next(f, c.obj)) != c.name)
                        return CXX_NONE;
                return c.obj;
        }
        for (eq = first; eq < last && !cxx_tok_eq(f, eq, "="); eq = cxx_tok_next(f, eq))
                ;
        if (eq >= last || !tok_same(f, cxx_tok_prev(f, eq), x) ||
            !cxx_tok_is_ident(f, cxx_tok_next(f, eq)) ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, eq)), ".") ||
            !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, eq))), method))
                return CXX_NONE;
        if (cxx_tok_prev(f, eq) != first && !cxx_tok_eq(f, first, "LocalTensor"))
                return CXX_NONE;
        return cxx_tok_next(f, eq);
}

/* "InitBuffer(Q, 2, size)" back to "InitBuffer(Q, size)". */
static void drop_count(struct motif_scan *scan, struct cxx_file *f, const struct cxx_call *c)
{
        size_t from = f->tokens.tokens[c->args[1].first].start;

        site_edit(scan, f, from, f->tokens.tokens[c->args[2].first].start - from, "");
}

/* Whether b's spelling is a's followed by "Out". */
static bool named_out_of(const struct cxx_file *f, size_t a, size_t b)
{
        size_t la = cxx_tok_len(f, a);

        return cxx_tok_len(f, b) == la + 3 &&
               memcmp(cxx_tok_text(f, a), cxx_tok_text(f, b), la) == 0 &&
               memcmp(cxx_tok_text(f, b) + la, "Out", 3) == 0;
}

static int inverse_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        size_t s[MAX_BODY], n, open, a, b, q, q2, in, out, qi, qi_last, q2i, q2i_last, lt, gt;
        struct cxx_call c, ci, c2i;
        struct motif_decl dq, dq2;
        bool in_place;
        char *type = NULL, *text = NULL;
        int r;

        (void)funcs;
        (void)userdata;
        open = loop_body(f, st->first);
        if (open == CXX_NONE)
                return 0;
        n = body_statements(f, open, s, MAX_BODY);
        /* LocalTensor<T> IN = Q.AllocTensor<T>(); copy-in; Q.EnQue(IN); IN = Q.DeQue<T>(); ... */
        for (a = 0; a + 10 <= n; a++) {
                if (!cxx_tok_eq(f, s[a], "LocalTensor") ||
                    !copy_stmt(f, s[a + 1], cxx_stmt_last(f, s[a + 1]), &c))
                        continue;
                in = cxx_arg_ident(f, &c.args[0]);
                q = queue_call(f, s[a], cxx_stmt_last(f, s[a]), "AllocTensor", in);
                if (q != CXX_NONE)
                        break;
        }
        if (a + 10 > n)
                return 0;
        lt = cxx_tok_next(f, s[a]);
        gt = cxx_angle_match(f, lt);
        if (gt == CXX_NONE || !tok_same(f, cxx_tok_next(f, gt), in) ||
            !tok_same(f, queue_call(f, s[a + 2], cxx_stmt_last(f, s[a + 2]), "EnQue", in), q) ||
            !tok_same(f, queue_call(f, s[a + 3], cxx_stmt_last(f, s[a + 3]), "DeQue", in), q) ||
            !cxx_tok_eq(f, s[a + 4], "LocalTensor"))
                return 0;
        out = cxx_angle_match(f, cxx_tok_next(f, s[a + 4]));
        out = out == CXX_NONE ? CXX_NONE : cxx_tok_next(f, out);
        q2 = queue_call(f, s[a + 4], cxx_stmt_last(f, s[a + 4]), "AllocTensor", out);
        b = n - 5;
        if (q2 == CXX_NONE || b < a + 5 ||
            !tok_same(f, queue_call(f, s[b], cxx_stmt_last(f, s[b]), "EnQue", out), q2) ||
            !tok_same(f, queue_call(f, s[b + 1], cxx_stmt_last(f, s[b + 1]), "FreeTensor", in),
                      q) ||
            !tok_same(f, queue_call(f, s[b + 2], cxx_stmt_last(f, s[b + 2]), "DeQue", out), q2) ||
            !copy_stmt(f, s[b + 3], cxx_stmt_last(f, s[b + 3]), &c) ||
            !tok_same(f, cxx_arg_ident(f, &c.args[1]), out) ||
            !tok_same(f, queue_call(f, s[b + 4], cxx_stmt_last(f, s[b + 4]), "FreeTensor", out),
                      q2) ||
            !decl_of(f, NULL, q, &dq) || !decl_is(f, &dq, "TQue") || !decl_of(f, NULL, q2, &dq2) ||
            !decl_is(f, &dq2, "TQue") || dq.n_declarators != 1 || dq2.n_declarators != 1)
                return 0;
        qi = init_of(f, q, 3, &ci, &qi_last);
        q2i = init_of(f, q2, 3, &c2i, &q2i_last);
        in_place = named_out_of(f, in, out) && named_out_of(f, q, q2);
        if (qi == CXX_NONE || q2i == CXX_NONE || ci.args[1].first != ci.args[1].last ||
            !cxx_tok_is_number(f, ci.args[1].first, "2") || c2i.args[1].first != c2i.args[1].last ||
            !cxx_tok_is_number(f, c2i.args[1].first, "2") ||
            (in_place && ident_count(f, 0, f->tokens.n - 1, q2) != 6))
                return 0;
        type = cxx_range_dup(f, cxx_tok_next(f, lt), cxx_tok_prev(f, gt));

        site_begin(scan, f, st->first, "tiles of %.*s between PIPE_ALL barriers in a TBuf",
                   (int)cxx_tok_len(f, q), cxx_tok_text(f, q));
        site_replace(scan, f, dq.kind, dq.gt, "TBuf<QuePosition::VECCALC>");
        drop_count(scan, f, &ci);
        {
                char *indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
                char *gin = type ? str_printf("LocalTensor<%s> %.*s = %.*s.Get<%s>();", type,
                                              (int)cxx_tok_len(f, in), cxx_tok_text(f, in),
                                              (int)cxx_tok_len(f, q), cxx_tok_text(f, q), type)
                                 : NULL;
                char *gout = NULL;
                if (!in_place) {
                        size_t olt = cxx_tok_next(f, s[a + 4]), ogt = cxx_angle_match(f, olt);
                        char *otype = cxx_range_dup(f, cxx_tok_next(f, olt), cxx_tok_prev(f, ogt));
                        gout = otype
                                   ? str_printf("LocalTensor<%s> %.*s = %.*s.Get<%s>();", otype,
                                                (int)cxx_tok_len(f, out), cxx_tok_text(f, out),
                                                (int)cxx_tok_len(f, q2), cxx_tok_text(f, q2), otype)
                                   : NULL;
                        free(otype);
                        if (!gout)
                                site_fail(scan);
                }
                text = indent && gin ? joined(indent, gin, gout, NULL) : NULL;
                if (text)
                        site_insert_before(scan, f, st->first, text);
                else
                        site_fail(scan);
                free(indent);
                free(gin);
                free(gout);
        }
        site_delete_stmt(scan, f, s[a], cxx_stmt_last(f, s[a]));
        site_replace(scan, f, s[a + 2], cxx_stmt_last(f, s[a + 2]), "PipeBarrier<PIPE_ALL>();");
        site_delete_stmt(scan, f, s[a + 3], cxx_stmt_last(f, s[a + 3]));
        site_delete_stmt(scan, f, s[a + 4], cxx_stmt_last(f, s[a + 4]));
        site_replace(scan, f, s[b], cxx_stmt_last(f, s[b]), "PipeBarrier<PIPE_ALL>();");
        site_delete_stmt(scan, f, s[b + 1], cxx_stmt_last(f, s[b + 1]));
        site_delete_stmt(scan, f, s[b + 2], cxx_stmt_last(f, s[b + 2]));
        site_replace(scan, f, s[b + 4], cxx_stmt_last(f, s[b + 4]), "PipeBarrier<PIPE_ALL>();");
        if (in_place) {
                char *name = cxx_range_dup(f, in, in);
                site_delete_stmt(scan, f, dq2.first, dq2.last);
                site_delete_stmt(scan, f, q2i, q2i_last);
                for (size_t k = a + 5; k <= b + 3 && name; k++) {
                        if (k >= b && k < b + 3)
                                continue;
                        for (size_t i = s[k]; i <= cxx_stmt_last(f, s[k]); i = cxx_tok_next(f, i))
                                if (tok_same(f, i, out))
                                        site_replace(scan, f, i, i, name);
                }
                if (!name)
                        site_fail(scan);
                free(name);
        } else {
                site_replace(scan, f, dq2.kind, dq2.gt, "TBuf<QuePosition::VECCALC>");
                drop_count(scan, f, &c2i);
        }
        r = site_end(scan);
        free(text);
        free(type);
        return r;
}

int motif_queues_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), forward_stmt, NULL);
}

int motif_queues_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), inverse_stmt, NULL);
}
