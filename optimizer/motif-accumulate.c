/* SPDX-License-Identifier: MIT */
/*
 * The vector_accumulator motif: a loop that reduces each tile with
 * ReduceSum and adds the result to a float on the scalar unit
 * ("acc += part.GetValue(0);") makes the scalar unit wait for the vector
 * unit every tile, which holds back the next tile's copy-in.  Adding the
 * reduction into element 0 of a small UB accumulator instead, and reading
 * it once after the loop, lets the copies run ahead.
 */
#include "motifs-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of the accumulator: one 32-byte block. */
#define ACC_BYTES 32

static struct cxx_file *kernel_of(struct motif_scan *scan)
{
        return &scan->files[scan->kernel];
}

/* Token i, then the tokens spelled by words (NULL-terminated), each the next one: the last. */
static size_t spelled(const struct cxx_file *f, size_t i, const char *const *words)
{
        for (; *words; words++) {
                i = cxx_tok_next(f, i);
                if (i >= f->tokens.n || !cxx_tok_eq(f, i, *words))
                        return CXX_NONE;
        }
        return i;
}

/* "ACC += T.GetValue(0);" as [first, last]: *acc and *tensor. */
static bool scalar_add_of_reduction(const struct cxx_file *f, size_t first, size_t last,
                                    size_t *acc, size_t *tensor)
{
        size_t t = cxx_tok_next(f, cxx_tok_next(f, first)), zero;

        if (!cxx_tok_is_ident(f, first) || !cxx_tok_eq(f, cxx_tok_next(f, first), "+=") ||
            !cxx_tok_is_ident(f, t) ||
            spelled(f, t, (const char *const[]){ ".", "GetValue", "(", NULL }) == CXX_NONE)
                return false;
        zero = cxx_tok_next(f, spelled(f, t, (const char *const[]){ ".", "GetValue", "(", NULL }));
        if (!cxx_tok_is_number(f, zero, "0") ||
            spelled(f, zero, (const char *const[]){ ")", ";", NULL }) != last)
                return false;
        *acc = first;
        *tensor = t;
        return true;
}

/* A statement that only orders pipes for a scalar read: PipeBarrier<...>(), a V_S flag. */
static bool sync_stmt(const struct cxx_file *f, size_t first, size_t last)
{
        struct cxx_call c;

        if (!cxx_stmt_call(f, first, last, &c) || c.obj != CXX_NONE)
                return false;
        if (cxx_call_is(f, &c, "PipeBarrier"))
                return true;
        return (cxx_call_is(f, &c, "SetFlag") || cxx_call_is(f, &c, "WaitFlag")) &&
               cxx_range_mentions(f, c.name, c.open, "V_S", 3);
}

/* Whether the float named by token acc is declared in func before loop, in a block holding it. */
static bool float_local(const struct cxx_file *f, const struct cxx_func *func, size_t acc,
                        size_t loop)
{
        for (size_t i = cxx_tok_next(f, func->open); i < loop; i = cxx_tok_next(f, i)) {
                size_t nx = cxx_tok_next(f, i), b;
                if (!tok_same(f, i, acc) ||
                    !(cxx_tok_eq(f, nx, "=") || cxx_tok_eq(f, nx, ",") || cxx_tok_eq(f, nx, ";")) ||
                    !cxx_tok_eq(f, cxx_stmt_first(f, i), "float"))
                        continue;
                b = block_enclosing(f, i);
                if (b != CXX_NONE && token_match(&f->tokens, b) > loop)
                        return true;
        }
        return false;
}

/*
 * Where the accumulator's buffer goes: after the first TBuf/TQue member
 * declaration of the class holding func (*ret_decl, *ret_decl_last), and
 * after an InitBuffer call directly in one of the class's function bodies
 * (*ret_init, *ret_init_last; *ret_pipe is its "pipe." or "pipe->").
 */
struct buffer_place {
        size_t decl, decl_last, init, init_last;
        char *pipe;
};

static bool starts_statement(const struct cxx_file *f, size_t i)
{
        size_t p = cxx_tok_prev(f, i);

        return p == CXX_NONE || cxx_tok_eq(f, p, ";") || cxx_tok_eq(f, p, "{") ||
               cxx_tok_eq(f, p, "}") || cxx_tok_eq(f, p, ":");
}

static bool buffer_place(const struct cxx_file *f, const struct cxx_func *funcs, size_t n_funcs,
                         const struct cxx_func *func, struct buffer_place *ret)
{
        size_t cls = block_enclosing(f, func->open), cls_close;

        if (cls == CXX_NONE)
                return false;
        cls_close = token_match(&f->tokens, cls);
        ret->decl = ret->init = CXX_NONE;
        /* the class's own level: nested brackets (function bodies among them) skipped */
        for (size_t i = cxx_tok_next(f, cls); i < cls_close; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, "{") || cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "[")) {
                        i = token_match(&f->tokens, i);
                } else if ((cxx_tok_eq(f, i, "TBuf") || cxx_tok_eq(f, i, "TQue")) &&
                           starts_statement(f, i)) {
                        ret->decl = i;
                        ret->decl_last = cxx_stmt_last(f, i);
                        break;
                }
        }
        /*
         * the first statement directly in a body of the class that is or holds
         * an InitBuffer call: the new one goes after it, at the body's level,
         * so that it runs whichever branch set the other buffers up
         */
        for (size_t k = 0; k < n_funcs && ret->init == CXX_NONE; k++) {
                if (funcs[k].open < cls || funcs[k].close > cls_close)
                        continue;
                for (size_t i = cxx_tok_next(f, funcs[k].open); i < funcs[k].close;) {
                        size_t last = cxx_stmt_last(f, i);
                        if (last == CXX_NONE || last >= funcs[k].close)
                                break;
                        for (size_t j = i; j <= last; j = cxx_tok_next(f, j)) {
                                struct cxx_call c;
                                size_t s = cxx_stmt_first(f, j);
                                if (!cxx_tok_eq(f, j, "InitBuffer") ||
                                    !cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) ||
                                    c.obj == CXX_NONE || c.name != j)
                                        continue;
                                ret->init = i;
                                ret->init_last = last;
                                ret->pipe = cxx_range_dup(f, c.obj, cxx_tok_prev(f, c.name));
                                break;
                        }
                        if (ret->init != CXX_NONE)
                                break;
                        i = cxx_tok_next(f, last);
                }
        }
        return ret->decl != CXX_NONE && ret->init != CXX_NONE && ret->pipe;
}

/* Text of statement lines joined with a newline and indent (a new string). */
static char *lines(const char *indent, const char *a, const char *b, const char *c)
{
        if (c)
                return str_printf("%s\n%s%s\n%s%s", a, indent, b, indent, c);
        return str_printf("%s\n%s%s", a, indent, b);
}

static int forward_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        size_t n_funcs = *(size_t *)userdata, acc, t, prev, loop_last, p;
        struct buffer_place place = { 0 };
        struct cxx_call reduce;
        char *type = NULL, vec[64], buf[64], base[80], *text = NULL, *indent = NULL;
        int r = 0;

        if (st->loop == CXX_NONE || st->block == CXX_NONE ||
            !scalar_add_of_reduction(f, st->first, st->last, &acc, &t))
                return 0;
        /* the reduction it reads, with nothing but syncs for the read between */
        for (prev = cxx_stmt_before(f, st->first, st->block);
             prev != CXX_NONE && sync_stmt(f, prev, cxx_stmt_last(f, prev));
             prev = cxx_stmt_before(f, prev, st->block))
                ;
        if (prev == CXX_NONE || !cxx_stmt_call(f, prev, cxx_stmt_last(f, prev), &reduce) ||
            !cxx_call_is(f, &reduce, "ReduceSum") || reduce.n_args < 3 ||
            !tok_same(f, cxx_arg_ident(f, &reduce.args[0]), t))
                return 0;
        type = local_tensor_type(f, func, t);
        loop_last = cxx_stmt_last(f, st->loop);
        p = cxx_tok_prev(f, st->loop);
        if (!type || strcmp(type, "float") != 0 || !float_local(f, func, acc, st->loop) ||
            ident_count(f, st->loop, loop_last, acc) != 1 || p == CXX_NONE ||
            !(cxx_tok_eq(f, p, ";") || cxx_tok_eq(f, p, "{") || cxx_tok_eq(f, p, "}")) ||
            !buffer_place(f, funcs, n_funcs, func, &place))
                goto out;
        snprintf(base, sizeof(base), "%.*sVec", (int)cxx_tok_len(f, acc), cxx_tok_text(f, acc));
        cxx_fresh_name(f, base, vec, sizeof(vec));
        snprintf(base, sizeof(base), "%sBuf", vec);
        cxx_fresh_name(f, base, buf, sizeof(buf));

        site_begin(scan, f, st->first, "add %.*s's per-tile ReduceSum in a vector, read it once",
                   (int)cxx_tok_len(f, acc), cxx_tok_text(f, acc));
        text = str_printf("TBuf<QuePosition::VECCALC> %s;", buf);
        if (text)
                site_insert_after(scan, f, place.decl, place.decl_last, text);
        free(text);
        text = str_printf("%sInitBuffer(%s, %d);", place.pipe, buf, ACC_BYTES);
        if (text)
                site_insert_after(scan, f, place.init, place.init_last, text);
        free(text);
        /* before the loop: the accumulator, zeroed */
        indent = cxx_indent_at(f, f->tokens.tokens[st->loop].start);
        {
                char *a = str_printf("LocalTensor<float> %s = %s.Get<float>();", vec, buf);
                char *b = str_printf("Duplicate(%s, 0.0f, %d);", vec, ACC_BYTES / 4);
                text = a && b && indent ? lines(indent, a, b, NULL) : NULL;
                free(a);
                free(b);
        }
        if (text)
                site_insert_before(scan, f, st->loop, text);
        free(text);
        /* in it: the syncs for the read go, the add stays on the vector unit */
        for (size_t s = cxx_stmt_after(f, cxx_stmt_last(f, prev), st->block); s != st->first;
             s = cxx_stmt_after(f, cxx_stmt_last(f, s), st->block))
                site_delete_stmt(scan, f, s, cxx_stmt_last(f, s));
        free(indent);
        indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
        {
                char *b = str_printf("Add(%s, %s, %.*s, 1);", vec, vec, (int)cxx_tok_len(f, t),
                                     cxx_tok_text(f, t));
                text = b && indent ? lines(indent, "PipeBarrier<PIPE_V>();", b, NULL) : NULL;
                free(b);
        }
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        free(text);
        /* after it: one read */
        free(indent);
        indent = cxx_indent_at(f, f->tokens.tokens[st->loop].start);
        {
                char *c = str_printf("%.*s += %s.GetValue(0);", (int)cxx_tok_len(f, acc),
                                     cxx_tok_text(f, acc), vec);
                text = c && indent ? lines(indent, "SetFlag<HardEvent::V_S>(EVENT_ID0);",
                                           "WaitFlag<HardEvent::V_S>(EVENT_ID0);", c)
                                   : NULL;
                free(c);
        }
        if (text)
                site_insert_after(scan, f, st->loop, loop_last, text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(text);
        free(indent);
        free(type);
        free(place.pipe);
        return r;
}

/*
 * The inverse undoes the forward's own form: in a loop,
 * "PipeBarrier<PIPE_V>(); Add(V, V, T, 1);" where the two statements
 * before the loop are "LocalTensor<float> V = B.Get<float>();" and
 * "Duplicate(V, ...);" and the three after it the V_S flag pair and
 * "ACC += V.GetValue(0);".  The add becomes "ACC += T.GetValue(0);"
 * again (after a V_S flag pair when the kernel syncs by hand), and B,
 * its InitBuffer and the statements around the loop go.
 */
static int inverse_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        size_t n_funcs = *(size_t *)userdata, v, t, dup, decl, buf, set, wait, read, barrier;
        size_t loop_last, acc, vname, get;
        struct cxx_call add, c;
        struct motif_decl d;
        char *indent = NULL, *text = NULL;
        int r;

        (void)n_funcs;
        if (st->loop == CXX_NONE || st->block == CXX_NONE ||
            !cxx_stmt_call(f, st->first, st->last, &add) || !cxx_call_is(f, &add, "Add") ||
            add.obj != CXX_NONE || add.n_args != 4 || add.args[3].first != add.args[3].last ||
            !cxx_tok_is_number(f, add.args[3].first, "1"))
                return 0;
        v = cxx_arg_ident(f, &add.args[0]);
        t = cxx_arg_ident(f, &add.args[2]);
        if (v == CXX_NONE || t == CXX_NONE || !tok_same(f, v, cxx_arg_ident(f, &add.args[1])) ||
            block_enclosing(f, st->loop) == CXX_NONE)
                return 0;
        {
                size_t outer = block_enclosing(f, st->loop);
                loop_last = cxx_stmt_last(f, st->loop);
                dup = cxx_stmt_before(f, st->loop, outer);
                decl = dup == CXX_NONE ? CXX_NONE : cxx_stmt_before(f, dup, outer);
                set = cxx_stmt_after(f, loop_last, outer);
                wait = set == CXX_NONE ? CXX_NONE : cxx_stmt_after(f, cxx_stmt_last(f, set), outer);
                read =
                    wait == CXX_NONE ? CXX_NONE : cxx_stmt_after(f, cxx_stmt_last(f, wait), outer);
        }
        vname = decl == CXX_NONE
                    ? CXX_NONE
                    : spelled(f, decl, (const char *const[]){ "<", "float", ">", NULL });
        vname = vname == CXX_NONE ? CXX_NONE : cxx_tok_next(f, vname);
        if (read == CXX_NONE || !cxx_tok_eq(f, decl, "LocalTensor") || !tok_same(f, vname, v) ||
            !cxx_stmt_call(f, dup, cxx_stmt_last(f, dup), &c) || !cxx_call_is(f, &c, "Duplicate") ||
            !tok_same(f, cxx_arg_ident(f, &c.args[0]), v) ||
            !sync_stmt(f, set, cxx_stmt_last(f, set)) ||
            !sync_stmt(f, wait, cxx_stmt_last(f, wait)) ||
            !scalar_add_of_reduction(f, read, cxx_stmt_last(f, read), &acc, &buf) ||
            !tok_same(f, buf, v))
                return 0;
        /* "V = B.Get<float>();" with B a TBuf declared alone */
        get = cxx_tok_next(f, cxx_tok_next(f, vname));
        if (!cxx_tok_eq(f, cxx_tok_next(f, vname), "=") || !cxx_tok_is_ident(f, get) ||
            spelled(f, get, (const char *const[]){ ".", "Get", NULL }) == CXX_NONE ||
            !decl_of(f, NULL, get, &d) || !decl_is(f, &d, "TBuf") || d.n_declarators != 1)
                return 0;
        buf = get;
        barrier = cxx_stmt_before(f, st->first, st->block);

        site_begin(scan, f, st->first, "read %.*s back from %.*s every tile",
                   (int)cxx_tok_len(f, acc), cxx_tok_text(f, acc), (int)cxx_tok_len(f, t),
                   cxx_tok_text(f, t));
        site_delete_stmt(scan, f, d.first, d.last);
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t last;
                if (!tok_same(f, i, buf) || i == d.name || i == get)
                        continue;
                last = cxx_stmt_last(f, cxx_stmt_first(f, i));
                if (cxx_stmt_call(f, cxx_stmt_first(f, i), last, &c) &&
                    cxx_call_is(f, &c, "InitBuffer") &&
                    tok_same(f, cxx_arg_ident(f, &c.args[0]), buf))
                        site_delete_stmt(scan, f, cxx_stmt_first(f, i), last);
                else
                        site_fail(scan);
        }
        site_delete_stmt(scan, f, decl, cxx_stmt_last(f, decl));
        site_delete_stmt(scan, f, dup, cxx_stmt_last(f, dup));
        if (barrier != CXX_NONE && cxx_stmt_call(f, barrier, cxx_stmt_last(f, barrier), &c) &&
            cxx_call_is(f, &c, "PipeBarrier"))
                site_delete_stmt(scan, f, barrier, cxx_stmt_last(f, barrier));
        indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
        {
                char *c3 =
                    str_printf("%.*s += %.*s.GetValue(0);", (int)cxx_tok_len(f, acc),
                               cxx_tok_text(f, acc), (int)cxx_tok_len(f, t), cxx_tok_text(f, t));
                if (c3 && indent && !scan->auto_sync)
                        text = lines(indent, "SetFlag<HardEvent::V_S>(EVENT_ID0);",
                                     "WaitFlag<HardEvent::V_S>(EVENT_ID0);", c3);
                else if (c3)
                        text = strdup(c3);
                free(c3);
        }
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        site_delete_stmt(scan, f, set, cxx_stmt_last(f, set));
        site_delete_stmt(scan, f, wait, cxx_stmt_last(f, wait));
        site_delete_stmt(scan, f, read, cxx_stmt_last(f, read));
        r = site_end(scan);
        free(indent);
        free(text);
        return r;
}

static int accumulate_scan(struct motif_scan *scan, bool forward)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        int r = cxx_funcs_find(f, &funcs, &n);

        if (r == 0)
                r = walk_statements(scan, f, forward ? forward_stmt : inverse_stmt, &n);
        free(funcs);
        return r;
}

int motif_accumulate_forward(struct motif_scan *scan)
{
        return accumulate_scan(scan, true);
}

int motif_accumulate_inverse(struct motif_scan *scan)
{
        return accumulate_scan(scan, false);
}
