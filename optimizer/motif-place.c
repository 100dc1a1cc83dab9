/* SPDX-License-Identifier: MIT */
/*
 * The out_of_place motif: a vector instruction that writes the tensor it
 * reads ("Mul(t, t, x)") reads and writes the same Unified Buffer bank on
 * every repeat, a read/write bank conflict by the CANN best-practice
 * guide's rule ("Avoiding Bank Conflicts in the Unified Buffer": a read
 * and a write of one bank at the same time queue).  The forward writes
 * such an instruction into a second buffer of the same size instead, a
 * twin that is dead at that point when the kernel has one (a chain of
 * in-place instructions then ping-pongs between two buffers), else a new
 * TBuf; two in-place instructions in a row can also go through a buffer
 * dead between them, which needs no new one.  The inverse writes an
 * instruction (or such a pair) into its dead source again.
 * Both work at the top of a function, in a branch, and in the body of a
 * loop whose every pass writes the tensors afresh.
 */
#include "motifs-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cxx_file *kernel_of(struct motif_scan *scan)
{
        return &scan->files[scan->kernel];
}

/* Instructions whose destination is also an operand (dst += ...): never moved. */
static bool reads_destination(const struct cxx_file *f, size_t name)
{
        return cxx_tok_eq(f, name, "Axpy") || cxx_tok_eq(f, name, "MulAddDst") ||
               cxx_tok_eq(f, name, "FusedMulAdd") || cxx_tok_eq(f, name, "MulAddRelu");
}

/*
 * Where a value written at statement S can be read: the rest of S's
 * block, then what follows the if/else chain that block is one branch of
 * (the chain's other branches never run with S).  alts are those
 * branches' braces.
 */
#define PLACE_MAX_ALTS 16

struct scope {
        size_t first, close;   /* S's first token, its block's '}' */
        size_t resume;         /* the first token after the chain or loop; func->close when none */
        size_t body;           /* S's block when it is a loop's body, else CXX_NONE */
        size_t unit, unit_end; /* the class (else the file) holding S's function: its members */
        size_t alts[PLACE_MAX_ALTS][2];
        size_t n_alts;
};

/* The '{' of the branch before the one opening at open in an if/else chain, or CXX_NONE. */
static size_t branch_before(const struct cxx_file *f, size_t open)
{
        size_t p = cxx_tok_prev(f, open), q;

        if (cxx_tok_eq(f, p, ")")) {
                q = cxx_tok_prev(f, cxx_bracket_open(f, p));
                if (cxx_tok_eq(f, q, "constexpr"))
                        q = cxx_tok_prev(f, q);
                if (!cxx_tok_eq(f, q, "if"))
                        return CXX_NONE;
                p = cxx_tok_prev(f, q);
                if (!cxx_tok_eq(f, p, "else"))
                        return CXX_NONE;
        } else if (!cxx_tok_eq(f, p, "else")) {
                return CXX_NONE;
        }
        p = cxx_tok_prev(f, p);
        return cxx_tok_eq(f, p, "}") ? cxx_bracket_open(f, p) : CXX_NONE;
}

/* The '{' of the branch after the one closing at close, or CXX_NONE. */
static size_t branch_after(const struct cxx_file *f, size_t close)
{
        size_t n = cxx_tok_next(f, close);

        if (!cxx_tok_eq(f, n, "else"))
                return CXX_NONE;
        n = cxx_tok_next(f, n);
        if (cxx_tok_eq(f, n, "if")) {
                n = cxx_tok_next(f, n);
                if (cxx_tok_eq(f, n, "constexpr"))
                        n = cxx_tok_next(f, n);
                if (!cxx_tok_eq(f, n, "("))
                        return CXX_NONE;
                n = cxx_tok_next(f, token_match(&f->tokens, n));
        }
        return cxx_tok_eq(f, n, "{") ? n : CXX_NONE;
}

/* Whether the block opening at open is the body of a for, while or do loop. */
static bool is_loop_body(const struct cxx_file *f, size_t open)
{
        size_t p = cxx_tok_prev(f, open), q;

        if (cxx_tok_eq(f, p, "do"))
                return true;
        if (!cxx_tok_eq(f, p, ")"))
                return false;
        q = cxx_tok_prev(f, cxx_bracket_open(f, p));
        return cxx_tok_eq(f, q, "for") || cxx_tok_eq(f, q, "while");
}

/*
 * S directly in the body of a loop that no other loop encloses: its
 * value is read in the rest of that pass, and what follows is the loop's
 * end.  false for any other place in a loop.
 */
static bool loop_scope(const struct cxx_file *f, const struct cxx_func *func,
                       const struct cxx_stmt *st, struct scope *sc)
{
        size_t b = st->block, end;

        if (!is_loop_body(f, b))
                return false;
        for (size_t o = block_enclosing(f, b); o != CXX_NONE && o != func->open;
             o = block_enclosing(f, o))
                if (is_loop_body(f, o))
                        return false;
        end = cxx_tok_eq(f, cxx_tok_prev(f, b), "do") ? cxx_stmt_last(f, cxx_tok_prev(f, b))
                                                      : sc->close;
        sc->body = b;
        sc->resume = cxx_tok_next(f, end);
        return sc->resume <= func->close;
}

static bool scope_of(const struct cxx_file *f, const struct cxx_func *func,
                     const struct cxx_stmt *st, struct scope *sc)
{
        size_t b = st->block, close, last;

        memset(sc, 0, sizeof(*sc));
        sc->body = CXX_NONE;
        /* two kernel classes of one file may name their members alike */
        sc->unit = block_enclosing(f, func->open);
        sc->unit_end = sc->unit == CXX_NONE ? f->tokens.n : token_match(&f->tokens, sc->unit);
        if (sc->unit == CXX_NONE)
                sc->unit = 0;
        if (b == CXX_NONE)
                return false;
        close = token_match(&f->tokens, b);
        if (close >= f->tokens.n)
                return false;
        sc->first = st->first;
        sc->close = close;
        if (st->loop != CXX_NONE)
                return loop_scope(f, func, st, sc);
        if (b == func->open) {
                sc->resume = func->close;
                return true;
        }
        for (size_t o = branch_before(f, b); o != CXX_NONE; o = branch_before(f, o)) {
                if (sc->n_alts == PLACE_MAX_ALTS)
                        return false;
                sc->alts[sc->n_alts][0] = o;
                sc->alts[sc->n_alts++][1] = token_match(&f->tokens, o);
        }
        last = close;
        for (size_t o = branch_after(f, close); o != CXX_NONE; o = branch_after(f, last)) {
                if (sc->n_alts == PLACE_MAX_ALTS)
                        return false;
                last = token_match(&f->tokens, o);
                sc->alts[sc->n_alts][0] = o;
                sc->alts[sc->n_alts++][1] = last;
        }
        sc->resume = cxx_tok_next(f, last);
        return sc->resume <= func->close;
}

/* Whether token k is in another branch of S's if/else chain. */
static bool in_other_branch(const struct scope *sc, size_t k)
{
        for (size_t i = 0; i < sc->n_alts; i++)
                if (k > sc->alts[i][0] && k < sc->alts[i][1])
                        return true;
        return false;
}

static bool freed_here(const struct cxx_file *f, size_t k)
{
        return cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
               cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "FreeTensor");
}

/* Whether x is mentioned from token from to the end of the scope, FreeTensor(x) aside. */
static bool mentioned_from(const struct cxx_file *f, const struct cxx_func *func,
                           const struct scope *sc, size_t from, size_t x)
{
        for (size_t k = from; k < func->close; k = cxx_tok_next(f, k)) {
                if (k > sc->close && k < sc->resume)
                        continue;
                if (tok_same(f, k, x) && !freed_here(f, k))
                        return true;
        }
        return false;
}

/* Whether x is mentioned after S's block (past its chain), FreeTensor(x) aside. */
static bool outlives_block(const struct cxx_file *f, const struct cxx_func *func,
                           const struct scope *sc, size_t x)
{
        return sc->resume < func->close && mentioned_from(f, func, sc, sc->resume, x);
}

/* Where a LocalTensor comes from: "LocalTensor<T> x = obj.Get<T>();" or obj.DeQue. */
struct tensor_origin {
        size_t decl_first, decl_last; /* the defining statement */
        size_t obj;                   /* the TBuf or TQue */
        bool queue;                   /* DeQue'd, not Get */
        char *type;                   /* element type, a new string */
        char *size;                   /* the size argument of obj's InitBuffer, a new string */
};

static void origin_release(struct tensor_origin *o)
{
        free(o->type);
        free(o->size);
        o->type = o->size = NULL;
}

/* The size argument of obj's InitBuffer calls, all alike ("(obj, size)", "(obj, num, size)"). */
static char *init_size(const struct cxx_file *f, const struct scope *sc, size_t obj, bool queue)
{
        char *size = NULL;

        for (size_t k = sc->unit; k < sc->unit_end; k = cxx_tok_next(f, k)) {
                struct cxx_call c;
                size_t s;
                char *this;
                if (!cxx_tok_eq(f, k, "InitBuffer") ||
                    !tok_same(f, cxx_tok_next(f, cxx_tok_next(f, k)), obj))
                        continue;
                s = cxx_stmt_first(f, k);
                if (!cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) || c.obj == CXX_NONE ||
                    c.n_args != (queue ? 3u : 2u))
                        goto fail;
                this = cxx_range_dup(f, c.args[c.n_args - 1].first, c.args[c.n_args - 1].last);
                if (!this || (size && strcmp(size, this) != 0)) {
                        free(this);
                        goto fail;
                }
                free(size);
                size = this;
        }
        return size;
fail:
        free(size);
        return NULL;
}

/* Whether identifier x is one of the call's arguments from the second on. */
static bool is_source(const struct cxx_file *f, const struct cxx_call *c, size_t x)
{
        for (size_t i = 1; i < c->n_args; i++)
                if (tok_same(f, cxx_arg_ident(f, &c->args[i]), x))
                        return true;
        return false;
}

/* Whether the call mentions x anywhere but as its destination. */
static bool reads(const struct cxx_file *f, const struct cxx_call *c, size_t x)
{
        for (size_t i = 1; i < c->n_args; i++)
                if (c->args[i].first != CXX_NONE &&
                    cxx_range_mentions(f, c->args[i].first, c->args[i].last, cxx_tok_text(f, x),
                                       cxx_tok_len(f, x)))
                        return true;
        return false;
}

/*
 * Whether the first statement in (from, to) that mentions x writes all of
 * it without reading it (true when none mentions it): x then holds
 * nothing that the code before from left in it.
 */
static bool first_use_writes(const struct cxx_file *f, size_t x, size_t from, size_t to)
{
        for (size_t k = cxx_tok_next(f, from); k < to; k = cxx_tok_next(f, k)) {
                struct cxx_call c;
                size_t s;
                if (!tok_same(f, k, x))
                        continue;
                s = cxx_stmt_first(f, k);
                /* its definition in a loop's body ("LocalTensor<T> x = buf.Get<T>();") */
                if (cxx_tok_eq(f, s, "LocalTensor") && cxx_tok_eq(f, cxx_tok_next(f, k), "=")) {
                        k = cxx_stmt_last(f, s);
                        continue;
                }
                return cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) && is_vector_api(f, c.name) &&
                       !reads_destination(f, c.name) && c.n_args >= 2 &&
                       tok_same(f, cxx_arg_ident(f, &c.args[0]), x) && !reads(f, &c, x);
        }
        return true;
}

/* Whether x (a Get tensor) holds nothing from one run of its function to the next. */
static bool written_first(const struct cxx_file *f, const struct cxx_func *func, size_t x,
                          const struct tensor_origin *o)
{
        return first_use_writes(f, x, o->decl_last, func->close);
}

/* In a loop, whether x holds nothing from one pass to the next (true outside loops). */
static bool fresh_each_pass(const struct cxx_file *f, const struct scope *sc, size_t x)
{
        return sc->body == CXX_NONE || first_use_writes(f, x, sc->body, sc->close);
}

/*
 * Whether the use of a TBuf at token k, outside S's function, gets a
 * tensor that its own block writes before reading
 * ("LocalTensor<T> y = buf.Get<T>();" then a vector instruction writing
 * y): such a function shares the buffer as scratch and reads nothing S's
 * function leaves there.
 */
static bool scratch_elsewhere(const struct cxx_file *f, size_t k)
{
        size_t s = cxx_stmt_first(f, k), y = cxx_tok_prev(f, cxx_tok_prev(f, k)), b;

        if (!cxx_tok_eq(f, s, "LocalTensor") || !cxx_tok_eq(f, cxx_tok_next(f, y), "=") ||
            !cxx_tok_is_ident(f, y) || !cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, k)), "Get"))
                return false;
        b = block_enclosing(f, s);
        return b != CXX_NONE &&
               first_use_writes(f, y, cxx_stmt_last(f, s), token_match(&f->tokens, b));
}

/*
 * The origin of LocalTensor x as S sees it: its last definition before S
 * in a block enclosing S, not assigned again in S's scope.  A TBuf's
 * other uses must be in other branches of S's if/else chain or in other
 * functions that use it as scratch, so that no other tensor shares its
 * storage with x and no other function reads what x leaves there.  false
 * when it is anything else.
 */
static bool origin_of(const struct cxx_file *f, const struct cxx_func *func, const struct scope *sc,
                      size_t x, struct tensor_origin *o)
{
        size_t def = CXX_NONE, method, lt, gt;

        memset(o, 0, sizeof(*o));
        for (size_t k = cxx_tok_next(f, func->open); k < sc->first; k = cxx_tok_next(f, k)) {
                size_t b, first;
                if (!tok_same(f, k, x) || !cxx_tok_eq(f, cxx_tok_next(f, k), "="))
                        continue;
                first = cxx_stmt_first(f, k);
                b = block_enclosing(f, first);
                if (cxx_tok_eq(f, first, "LocalTensor") && b != CXX_NONE && sc->first > b &&
                    sc->first < token_match(&f->tokens, b))
                        def = k;
        }
        if (def == CXX_NONE)
                return false;
        for (size_t k = sc->first; k < func->close; k = cxx_tok_next(f, k))
                if (tok_same(f, k, x) && cxx_tok_eq(f, cxx_tok_next(f, k), "=") &&
                    !(k > sc->close && k < sc->resume))
                        return false;
        o->decl_first = cxx_stmt_first(f, def);
        o->decl_last = cxx_stmt_last(f, o->decl_first);
        o->obj = cxx_tok_next(f, cxx_tok_next(f, def));
        if (!cxx_tok_is_ident(f, o->obj) || !cxx_tok_eq(f, cxx_tok_next(f, o->obj), "."))
                return false;
        method = cxx_tok_next(f, cxx_tok_next(f, o->obj));
        if (cxx_tok_eq(f, method, "DeQue")) {
                o->queue = true;
        } else if (cxx_tok_eq(f, method, "Get")) {
                for (size_t k = sc->unit; k < sc->unit_end; k = cxx_tok_next(f, k))
                        if (tok_same(f, k, o->obj) && cxx_tok_eq(f, cxx_tok_next(f, k), ".") &&
                            k != o->obj && !in_other_branch(sc, k) &&
                            !((k < func->open || k > func->close) && scratch_elsewhere(f, k)))
                                return false;
        } else {
                return false;
        }
        /* the type this definition gives (branches may declare x with others) */
        lt = cxx_tok_next(f, o->decl_first);
        gt = cxx_tok_eq(f, lt, "<") ? cxx_angle_match(f, lt) : CXX_NONE;
        if (gt == CXX_NONE || cxx_tok_next(f, lt) >= gt || cxx_tok_next(f, gt) != def)
                return false;
        o->type = cxx_range_dup(f, cxx_tok_next(f, lt), cxx_tok_prev(f, gt));
        o->size = init_size(f, sc, o->obj, o->queue);
        if (!o->type || !o->size) {
                origin_release(o);
                return false;
        }
        return true;
}

/* Renames x to name in S's block after token from, FreeTensor(x) aside. */
static void rename_after(struct motif_scan *scan, struct cxx_file *f, const struct scope *sc,
                         size_t from, size_t x, const char *name)
{
        for (size_t k = cxx_tok_next(f, from); k < sc->close; k = cxx_tok_next(f, k))
                if (tok_same(f, k, x) && !freed_here(f, k))
                        site_replace(scan, f, k, k, name);
}

/* The statement is one vector instruction outside any loop: *ret its call, *sc its scope. */
static bool instruction_at(const struct cxx_file *f, const struct cxx_func *func,
                           const struct cxx_stmt *st, struct cxx_call *ret, struct scope *sc)
{
        return cxx_stmt_call(f, st->first, st->last, ret) && is_vector_api(f, ret->name) &&
               !reads_destination(f, ret->name) && ret->obj == CXX_NONE && ret->n_args >= 2 &&
               scope_of(f, func, st, sc);
}

/*
 * A LocalTensor other than x, defined before S in a block enclosing it,
 * Get from another TBuf of x's type and size and holding nothing across
 * runs, that is dead where x's value is to go: with partner_last
 * CXX_NONE, not mentioned from S on (it takes x's value from S on);
 * else not mentioned from S to the end of the partner, and written again
 * before anything reads it after that (the pair form).  CXX_NONE if none.
 */
static size_t find_twin(const struct cxx_file *f, const struct cxx_func *func,
                        const struct scope *sc, size_t x, const struct tensor_origin *xo,
                        size_t partner_last)
{
        for (size_t k = cxx_tok_next(f, func->open); k < sc->first; k = cxx_tok_next(f, k)) {
                struct tensor_origin wo;
                size_t gt, w;
                bool ok;
                if (!cxx_tok_eq(f, k, "LocalTensor"))
                        continue;
                gt = cxx_angle_match(f, cxx_tok_next(f, k));
                w = gt == CXX_NONE ? CXX_NONE : cxx_tok_next(f, gt);
                if (w == CXX_NONE || !cxx_tok_is_ident(f, w) || tok_same(f, w, x) ||
                    !cxx_tok_eq(f, cxx_tok_next(f, w), "=") || !origin_of(f, func, sc, w, &wo))
                        continue;
                ok = !wo.queue && wo.decl_first == cxx_stmt_first(f, w) &&
                     !tok_same(f, wo.obj, xo->obj) && strcmp(wo.type, xo->type) == 0 &&
                     strcmp(wo.size, xo->size) == 0 && written_first(f, func, w, &wo) &&
                     fresh_each_pass(f, sc, w) &&
                     (partner_last == CXX_NONE
                          ? !mentioned_from(f, func, sc, sc->first, w)
                          : !cxx_range_mentions(f, sc->first, partner_last, cxx_tok_text(f, w),
                                                cxx_tok_len(f, w)) &&
                                first_use_writes(f, w, partner_last, func->close));
                origin_release(&wo);
                if (ok)
                        return w;
        }
        return CXX_NONE;
}

/* Whether every InitBuffer(obj, ...) of the file has an InitBuffer(other, size) in its block. */
static bool initialised_beside(const struct cxx_file *f, const struct scope *sc, size_t obj,
                               size_t other, const char *size)
{
        for (size_t k = sc->unit; k < sc->unit_end; k = cxx_tok_next(f, k)) {
                size_t b;
                bool found = false;
                if (!cxx_tok_eq(f, k, "InitBuffer") ||
                    !tok_same(f, cxx_tok_next(f, cxx_tok_next(f, k)), obj))
                        continue;
                b = block_enclosing(f, k);
                for (size_t j = cxx_tok_next(f, b); j < token_match(&f->tokens, b) && !found;
                     j = cxx_tok_next(f, j)) {
                        struct cxx_call c;
                        size_t s;
                        if (!cxx_tok_eq(f, j, "InitBuffer") ||
                            !tok_same(f, cxx_tok_next(f, cxx_tok_next(f, j)), other))
                                continue;
                        char *text;
                        s = cxx_stmt_first(f, j);
                        if (block_enclosing(f, j) != b ||
                            !cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) || c.n_args != 2)
                                continue;
                        text = cxx_range_dup(f, c.args[1].first, c.args[1].last);
                        found = text && strcmp(text, size) == 0;
                        free(text);
                }
                if (!found)
                        return false;
        }
        return true;
}

/*
 * A TBuf idle in S's block, set up wherever x's buffer is and of its size:
 * every use of it is in another branch of S's chain (a new twin made for
 * one branch serves the others).  Its declaration's name, or CXX_NONE.
 */
static size_t idle_buffer(const struct cxx_file *f, const struct scope *sc,
                          const struct tensor_origin *xo)
{
        for (size_t i = sc->unit; i < sc->unit_end; i = cxx_tok_next(f, i)) {
                size_t gt, k;
                if (!cxx_tok_eq(f, i, "TBuf") || !cxx_tok_eq(f, cxx_tok_next(f, i), "<"))
                        continue;
                gt = cxx_angle_match(f, cxx_tok_next(f, i));
                for (k = gt == CXX_NONE ? CXX_NONE : cxx_tok_next(f, gt);
                     k != CXX_NONE && cxx_tok_is_ident(f, k);
                     k = cxx_tok_eq(f, cxx_tok_next(f, k), ",")
                             ? cxx_tok_next(f, cxx_tok_next(f, k))
                             : CXX_NONE) {
                        bool idle = !tok_same(f, k, xo->obj);
                        for (size_t j = sc->unit; j < sc->unit_end && idle; j = cxx_tok_next(f, j))
                                if (tok_same(f, j, k) && cxx_tok_eq(f, cxx_tok_next(f, j), ".") &&
                                    !in_other_branch(sc, j))
                                        idle = false;
                        if (idle && initialised_beside(f, sc, xo->obj, k, xo->size))
                                return k;
                }
        }
        return CXX_NONE;
}

/* Each InitBuffer(obj, ...) statement of the file gets text after it. */
static void init_beside(struct motif_scan *scan, struct cxx_file *f, const struct scope *sc,
                        size_t obj, const char *buf, const char *size)
{
        for (size_t k = sc->unit; k < sc->unit_end; k = cxx_tok_next(f, k)) {
                struct cxx_call c;
                size_t s;
                char *pipe, *text;
                if (!cxx_tok_eq(f, k, "InitBuffer") ||
                    !tok_same(f, cxx_tok_next(f, cxx_tok_next(f, k)), obj))
                        continue;
                s = cxx_stmt_first(f, k);
                if (!cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) || c.obj == CXX_NONE) {
                        site_fail(scan);
                        return;
                }
                pipe = cxx_range_dup(f, c.obj, cxx_tok_prev(f, c.name));
                text = pipe ? str_printf("%sInitBuffer(%s, %s);", pipe, buf, size) : NULL;
                if (text)
                        site_insert_after(scan, f, s, cxx_stmt_last(f, s), text);
                else
                        site_fail(scan);
                free(pipe);
                free(text);
        }
}

/*
 * The pair form: the next statement after S in its block that mentions x
 * is again a vector instruction writing x from x, over the same count.
 * The two can go through a buffer w that is dead between them, S writing
 * w and the partner reading it: no new buffer, and x holds the same value
 * after the partner as before.  The partner's first token, else CXX_NONE.
 */
static size_t partner_of(const struct cxx_file *f, const struct scope *sc,
                         const struct cxx_stmt *st, const struct cxx_call *c, size_t x, size_t w,
                         struct cxx_call *ret)
{
        for (size_t k = cxx_tok_next(f, st->last); k < sc->close; k = cxx_tok_next(f, k)) {
                size_t s;
                if (!tok_same(f, k, x) && !(w != CXX_NONE && tok_same(f, k, w)))
                        continue;
                s = cxx_stmt_first(f, k);
                if (block_enclosing(f, s) != st->block ||
                    !cxx_stmt_call(f, s, cxx_stmt_last(f, s), ret) ||
                    !is_vector_api(f, ret->name) || reads_destination(f, ret->name) ||
                    ret->obj != CXX_NONE || ret->n_args != c->n_args ||
                    !tok_same(f, cxx_arg_ident(f, &ret->args[0]), x) ||
                    !cxx_range_same(f, c->args[c->n_args - 1].first, c->args[c->n_args - 1].last,
                                    ret->args[ret->n_args - 1].first,
                                    ret->args[ret->n_args - 1].last))
                        return CXX_NONE;
                return s;
        }
        return CXX_NONE;
}

/* Whether x appears in the call's sources only as whole arguments (so each can be renamed). */
static bool whole_sources(const struct cxx_file *f, const struct cxx_call *c, size_t x)
{
        for (size_t i = 1; i < c->n_args; i++)
                if (c->args[i].first != CXX_NONE &&
                    !tok_same(f, cxx_arg_ident(f, &c->args[i]), x) &&
                    cxx_range_mentions(f, c->args[i].first, c->args[i].last, cxx_tok_text(f, x),
                                       cxx_tok_len(f, x)))
                        return false;
        return true;
}

/* The call's sources that are x alone become name. */
static void rename_sources(struct motif_scan *scan, struct cxx_file *f, const struct cxx_call *c,
                           size_t x, const char *name)
{
        for (size_t i = 1; i < c->n_args; i++)
                if (tok_same(f, cxx_arg_ident(f, &c->args[i]), x))
                        site_replace(scan, f, c->args[i].first, c->args[i].last, name);
}

/* Forward, pair form: "Op(x, x, ...); ... Op2(x, x, ...);" through a dead w: 1 for a site. */
static int forward_pair(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *func,
                        const struct cxx_stmt *st, const struct cxx_call *c, const struct scope *sc,
                        size_t x, const struct tensor_origin *xo)
{
        struct cxx_call p;
        size_t partner = partner_of(f, sc, st, c, x, CXX_NONE, &p), w;
        char name[64];
        int r;

        if (partner == CXX_NONE || !is_source(f, &p, x) || !whole_sources(f, &p, x))
                return 0;
        w = find_twin(f, func, sc, x, xo, cxx_stmt_last(f, partner));
        if (w == CXX_NONE)
                return 0;
        cxx_tok_copy(f, w, name, sizeof(name));
        site_begin(scan, f, st->first, "write %.*s and %.*s of %.*s through %s, not in place",
                   (int)cxx_tok_len(f, c->name), cxx_tok_text(f, c->name),
                   (int)cxx_tok_len(f, p.name), cxx_tok_text(f, p.name), (int)cxx_tok_len(f, x),
                   cxx_tok_text(f, x), name);
        site_replace(scan, f, c->args[0].first, c->args[0].last, name);
        rename_sources(scan, f, &p, x, name);
        r = site_end(scan);
        return r < 0 ? r : 1;
}

/* Forward: "Op(x, x, ...)" writes a dead twin of x, or a new TBuf, and x's later reads follow. */
static int forward_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct tensor_origin xo = { 0 };
        struct motif_decl od;
        struct scope sc;
        struct cxx_call c;
        char name[64], buf[64], *decl = NULL, *get = NULL;
        size_t x, w;
        int r = 0;

        (void)userdata;
        if (!instruction_at(f, func, st, &c, &sc))
                return 0;
        x = cxx_arg_ident(f, &c.args[0]);
        if (x == CXX_NONE || !is_source(f, &c, x) || !origin_of(f, func, &sc, x, &xo))
                return 0;
        /* a pair through a dead buffer first: it needs no new one, and x keeps its value */
        r = forward_pair(scan, f, func, st, &c, &sc, x, &xo);
        if (r != 0) {
                r = r < 0 ? r : 0;
                goto out;
        }
        /* x's value after S is read in S's block, and never handed on */
        if ((!xo.queue && !written_first(f, func, x, &xo)) || !fresh_each_pass(f, &sc, x) ||
            !mentioned_from(f, func, &sc, cxx_tok_next(f, st->last), x) ||
            outlives_block(f, func, &sc, x))
                goto out;
        for (size_t k = cxx_tok_next(f, st->last); k < sc.close; k = cxx_tok_next(f, k))
                if (tok_same(f, k, x) && cxx_tok_eq(f, cxx_tok_prev(f, k), "(") &&
                    cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, k)), "EnQue"))
                        goto out;
        w = find_twin(f, func, &sc, x, &xo, CXX_NONE);
        if (w != CXX_NONE) {
                cxx_tok_copy(f, w, name, sizeof(name));
                site_begin(scan, f, st->first, "write %.*s of %.*s into %s, not in place",
                           (int)cxx_tok_len(f, c.name), cxx_tok_text(f, c.name),
                           (int)cxx_tok_len(f, x), cxx_tok_text(f, x), name);
                site_replace(scan, f, c.args[0].first, c.args[0].last, name);
                rename_after(scan, f, &sc, st->last, x, name);
                r = site_end(scan);
                goto out;
        }
        /* no dead twin: a TBuf idle here, else a new one set up wherever x's buffer is */
        w = idle_buffer(f, &sc, &xo);
        if (w == CXX_NONE && !decl_find(f, sc.unit, sc.unit_end - 1, cxx_tok_text(f, xo.obj),
                                        cxx_tok_len(f, xo.obj), &od))
                goto out;
        if (w != CXX_NONE)
                cxx_tok_copy(f, w, buf, sizeof(buf));
        else
                cxx_fresh_name(f, "motifPlaceBuf", buf, sizeof(buf));
        cxx_fresh_name(f, "motifPlace", name, sizeof(name));
        decl = str_printf("TBuf<QuePosition::VECCALC> %s;", buf);
        get = str_printf("LocalTensor<%s> %s = %s.Get<%s>();", xo.type, name, buf, xo.type);
        site_begin(scan, f, st->first, "write %.*s of %.*s into %s buffer %s, not in place",
                   (int)cxx_tok_len(f, c.name), cxx_tok_text(f, c.name), (int)cxx_tok_len(f, x),
                   cxx_tok_text(f, x), w != CXX_NONE ? "the idle" : "a new", buf);
        if (!decl || !get) {
                site_fail(scan);
        } else {
                if (w == CXX_NONE) {
                        site_insert_after(scan, f, od.first, od.last, decl);
                        init_beside(scan, f, &sc, xo.obj, buf, xo.size);
                }
                site_insert_before(scan, f, st->first, get);
                site_replace(scan, f, c.args[0].first, c.args[0].last, name);
                rename_after(scan, f, &sc, st->last, x, name);
        }
        r = site_end(scan);
out:
        origin_release(&xo);
        free(decl);
        free(get);
        return r;
}

int motif_place_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), forward_stmt, NULL);
}

/*
 * Inverse, pair form: "Op(w, x, ...); ... Op2(x, w, ...);" where w is
 * dead afterwards (as forward_pair leaves it) writes both in place on x.
 * 1 for a site.
 */
static int inverse_pair(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *func,
                        const struct cxx_stmt *st, const struct cxx_call *c, const struct scope *sc,
                        size_t w, const struct tensor_origin *wo)
{
        for (size_t i = 1; i < c->n_args; i++) {
                struct tensor_origin xo;
                struct cxx_call p;
                size_t x = cxx_arg_ident(f, &c->args[i]), partner;
                bool ok;
                char name[64];
                int r;
                if (x == CXX_NONE || !origin_of(f, func, sc, x, &xo))
                        continue;
                partner = partner_of(f, sc, st, c, x, w, &p);
                ok = partner != CXX_NONE && is_source(f, &p, w) && whole_sources(f, &p, w) &&
                     !is_source(f, &p, x) && !tok_same(f, xo.obj, wo->obj) &&
                     strcmp(xo.type, wo->type) == 0 && strcmp(xo.size, wo->size) == 0 &&
                     first_use_writes(f, w, cxx_stmt_last(f, partner), func->close);
                origin_release(&xo);
                if (!ok)
                        continue;
                cxx_tok_copy(f, x, name, sizeof(name));
                site_begin(scan, f, st->first, "write %.*s and %.*s in place on %s",
                           (int)cxx_tok_len(f, c->name), cxx_tok_text(f, c->name),
                           (int)cxx_tok_len(f, p.name), cxx_tok_text(f, p.name), name);
                site_replace(scan, f, c->args[0].first, c->args[0].last, name);
                rename_sources(scan, f, &p, w, name);
                r = site_end(scan);
                return r < 0 ? r : 1;
        }
        return 0;
}

/*
 * Inverse: "Op(w, x, ...)" whose source x is dead afterwards writes x in
 * place, and w's later reads follow, where w and x are alike (type and
 * buffer size) and w holds nothing across runs.
 */
static int inverse_stmt(struct motif_scan *scan, struct cxx_file *f, const struct cxx_func *funcs,
                        const struct cxx_stmt *st, void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct tensor_origin wo;
        struct scope sc;
        struct cxx_call c;
        size_t w;
        int r = 0;

        (void)userdata;
        if (!instruction_at(f, func, st, &c, &sc))
                return 0;
        w = cxx_arg_ident(f, &c.args[0]);
        if (w == CXX_NONE || is_source(f, &c, w) || !origin_of(f, func, &sc, w, &wo))
                return 0;
        if (wo.queue || !written_first(f, func, w, &wo) || !fresh_each_pass(f, &sc, w))
                goto out;
        r = inverse_pair(scan, f, func, st, &c, &sc, w, &wo);
        if (r != 0) {
                r = r < 0 ? r : 0;
                goto out;
        }
        if (outlives_block(f, func, &sc, w))
                goto out;
        for (size_t i = 1; i < c.n_args; i++) {
                struct tensor_origin xo;
                size_t x = cxx_arg_ident(f, &c.args[i]);
                bool ok;
                char name[64];
                if (x == CXX_NONE || !origin_of(f, func, &sc, x, &xo))
                        continue;
                ok = !tok_same(f, xo.obj, wo.obj) && strcmp(xo.type, wo.type) == 0 &&
                     strcmp(xo.size, wo.size) == 0 &&
                     !mentioned_from(f, func, &sc, cxx_tok_next(f, st->last), x) &&
                     fresh_each_pass(f, &sc, x) && (xo.queue || written_first(f, func, x, &xo));
                origin_release(&xo);
                if (!ok)
                        continue;
                cxx_tok_copy(f, x, name, sizeof(name));
                site_begin(scan, f, st->first, "write %.*s into its source %s, in place",
                           (int)cxx_tok_len(f, c.name), cxx_tok_text(f, c.name), name);
                site_replace(scan, f, c.args[0].first, c.args[0].last, name);
                rename_after(scan, f, &sc, st->last, w, name);
                r = site_end(scan);
                break;
        }
out:
        origin_release(&wo);
        return r;
}

int motif_place_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), inverse_stmt, NULL);
}
