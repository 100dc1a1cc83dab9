/* SPDX-License-Identifier: MIT */
/*
 * Motifs about data movement and work split: DataCopy for aligned
 * lengths, strided multi-row copies, and giving the remainder of the work
 * to the first cores.  Lengths are recovered from DataCopyExtParams
 * written inline or declared earlier in the function.
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

static bool arg_is_gm(const struct cxx_file *f, const struct cxx_func *func,
                      const struct cxx_arg *a)
{
        struct motif_decl d;
        size_t base = cxx_arg_base(f, a);

        return base != CXX_NONE && decl_of(f, func, base, &d) && decl_is(f, &d, "GlobalTensor");
}

/* The element type of a LocalTensor argument, as a new string. */
static char *local_type(const struct cxx_file *f, const struct cxx_func *func,
                        const struct cxx_arg *a)
{
        struct motif_decl d;
        size_t base = cxx_arg_base(f, a);

        if (base == CXX_NONE || !decl_of(f, func, base, &d) || !decl_is(f, &d, "LocalTensor") ||
            cxx_tok_next(f, d.lt) >= d.gt)
                return NULL;
        return cxx_range_dup(f, cxx_tok_next(f, d.lt), cxx_tok_prev(f, d.gt));
}

static char *arg_dup(const struct cxx_file *f, const struct cxx_arg *a)
{
        return a->first == CXX_NONE ? NULL : cxx_range_dup(f, a->first, a->last);
}

/*
 * The fields of a parameter struct argument: "Type{...}", "Type(...)",
 * "{...}", or a variable declared "Type name{...}" / "(...)" / "= {...}"
 * earlier in the function.
 */
static size_t params_fields(const struct cxx_file *f, const struct cxx_func *func,
                            const struct cxx_arg *a, const char *type, size_t before,
                            struct cxx_arg *fields, size_t max)
{
        size_t j = a->first, var;

        if (j == CXX_NONE)
                return 0;
        if (cxx_tok_eq(f, j, type)) {
                j = cxx_tok_next(f, j);
                if (cxx_tok_eq(f, j, "<"))
                        j = cxx_tok_next(f, cxx_angle_match(f, j));
        }
        if ((cxx_tok_eq(f, j, "{") || cxx_tok_eq(f, j, "(")) &&
            token_match(&f->tokens, j) == a->last)
                return cxx_args_split(f, j, fields, max);
        var = cxx_arg_ident(f, a);
        if (var == CXX_NONE)
                return 0;
        for (size_t i = cxx_tok_prev(f, before); i != CXX_NONE && i > func->open;
             i = cxx_tok_prev(f, i)) {
                size_t p, nx;
                if (cxx_tok_len(f, i) != cxx_tok_len(f, var) ||
                    memcmp(cxx_tok_text(f, i), cxx_tok_text(f, var), cxx_tok_len(f, var)) != 0)
                        continue;
                p = cxx_tok_prev(f, i);
                if (!(cxx_tok_eq(f, p, type) ||
                      (cxx_tok_eq(f, p, ">") && cxx_tok_eq(f, cxx_tok_prev(f, p), type)) ||
                      (cxx_tok_eq(f, p, ">") &&
                       cxx_tok_eq(f, cxx_tok_prev(f, cxx_tok_prev(f, cxx_tok_prev(f, p))), type))))
                        continue;
                nx = cxx_tok_next(f, i);
                if (cxx_tok_eq(f, nx, "="))
                        nx = cxx_tok_next(f, nx);
                if (cxx_tok_eq(f, nx, type)) {
                        nx = cxx_tok_next(f, nx);
                        if (cxx_tok_eq(f, nx, "<"))
                                nx = cxx_tok_next(f, cxx_angle_match(f, nx));
                }
                if (cxx_tok_eq(f, nx, "{") || cxx_tok_eq(f, nx, "("))
                        return cxx_args_split(f, nx, fields, max);
                return 0;
        }
        return 0;
}

/* Splits "(uint32_t)(count * sizeof(T))" into count and T. */
static bool length_parts(const struct cxx_file *f, const struct cxx_arg *len,
                         struct cxx_arg *ret_count, struct cxx_arg *ret_type)
{
        size_t a = len->first, b = len->last, o, sz, star;

        if (a == CXX_NONE)
                return false;
        for (;;) {
                if (cxx_tok_eq(f, a, "(") && token_match(&f->tokens, a) == b) {
                        a = cxx_tok_next(f, a);
                        b = cxx_tok_prev(f, b);
                } else if (cxx_tok_eq(f, a, "(") && cxx_tok_is_ident(f, cxx_tok_next(f, a)) &&
                           cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, a)), ")")) {
                        a = cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, a)));
                } else {
                        break;
                }
                if (a == CXX_NONE || b == CXX_NONE || a > b)
                        return false;
        }
        if (!cxx_tok_eq(f, b, ")"))
                return false;
        o = cxx_bracket_open(f, b);
        sz = cxx_tok_prev(f, o);
        star = cxx_tok_prev(f, sz);
        if (o == CXX_NONE || !cxx_tok_eq(f, sz, "sizeof") || !cxx_tok_eq(f, star, "*") || star <= a)
                return false;
        for (size_t j = a; j < star; j = cxx_tok_next(f, j))
                if (cxx_tok_eq(f, j, "+") || cxx_tok_eq(f, j, "-") || cxx_tok_eq(f, j, "?") ||
                    cxx_tok_eq(f, j, "<") || cxx_tok_eq(f, j, ">"))
                        return false;
        *ret_count = (struct cxx_arg){ a, cxx_tok_prev(f, star) };
        *ret_type = (struct cxx_arg){ cxx_tok_next(f, o), cxx_tok_prev(f, b) };
        return ret_type->first <= ret_type->last;
}

/* ================================================================ DataCopyPad -> DataCopy */

static int pad_copy_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        struct cxx_arg ext[6], pad[5], count, type;
        char *a = NULL, *b = NULL, *cnt = NULL, *ty = NULL, *orig = NULL, *indent = NULL,
             *text = NULL;
        const char *unit = cxx_indent_unit(f);
        bool in;
        int r;

        if (st->block == CXX_NONE || st->in_branch || !cxx_stmt_call(f, st->first, st->last, &c) ||
            !cxx_call_is(f, &c, "DataCopyPad") || c.n_args < 3 || c.n_args > 4)
                return 0;
        in = c.n_args == 4;
        if (in ? !arg_is_gm(f, func, &c.args[1]) : !arg_is_gm(f, func, &c.args[0]))
                return 0;
        if (params_fields(f, func, &c.args[2], "DataCopyExtParams", st->first, ext, 6) != 5 ||
            !cxx_tok_is_number(f, ext[0].first, "1") || ext[0].first != ext[0].last ||
            !cxx_tok_is_number(f, ext[2].first, "0") || !cxx_tok_is_number(f, ext[3].first, "0") ||
            !length_parts(f, &ext[1], &count, &type))
                return 0;
        if (in &&
            (params_fields(f, func, &c.args[3], "DataCopyPadExtParams", st->first, pad, 5) < 1 ||
             !cxx_tok_eq(f, pad[0].first, "false")))
                return 0;
        a = arg_dup(f, &c.args[0]);
        b = arg_dup(f, &c.args[1]);
        cnt = cxx_range_dup(f, count.first, count.last);
        ty = cxx_range_dup(f, type.first, type.last);
        orig = cxx_range_dup(f, st->first, st->last);
        indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
        if (a && b && cnt && ty && orig && indent)
                text = str_printf("if ((%s) * sizeof(%s) %% 32 == 0) {\n%s%sDataCopy(%s, %s, %s);\n"
                                  "%s} else {\n%s%s%s\n%s}",
                                  cnt, ty, indent, unit, a, b, cnt, indent, indent, unit, orig,
                                  indent);
        site_begin(scan, f, st->first, "DataCopy when %s elements of %s are whole 32-byte blocks",
                   cnt ? cnt : "?", ty ? ty : "?");
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        r = site_end(scan);
        free(a);
        free(b);
        free(cnt);
        free(ty);
        free(orig);
        free(indent);
        free(text);
        return r;
}

int motif_pad_copy_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), pad_copy_forward_stmt, NULL);
}

/* Whether every statement of body (a block or one statement) is a call to name. */
static bool body_all_calls(const struct cxx_file *f, size_t body, const char *name,
                           bool allow_others, size_t *ret_count)
{
        size_t last = cxx_stmt_last(f, body), n = 0;
        struct cxx_call c;

        if (!cxx_tok_eq(f, body, "{")) {
                *ret_count = cxx_stmt_call(f, body, last, &c) && cxx_call_is(f, &c, name);
                return *ret_count == 1;
        }
        for (size_t s = cxx_tok_next(f, body); s < last; s = cxx_tok_next(f, cxx_stmt_last(f, s))) {
                if (cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) && cxx_call_is(f, &c, name))
                        n++;
                else if (!allow_others || cxx_tok_eq(f, s, "if") || cxx_tok_eq(f, s, "for"))
                        return false;
        }
        *ret_count = n;
        return n > 0;
}

static int pad_copy_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                                 const struct cxx_func *funcs, const struct cxx_stmt *st,
                                 void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        char *text = NULL, *a = NULL, *b = NULL, *cnt = NULL, *ty = NULL;
        int r;

        if (st->block == CXX_NONE)
                return 0;
        if (cxx_tok_eq(f, st->first, "if")) {
                size_t m = token_match(&f->tokens, cxx_tok_next(f, st->first)), then, e, els, body,
                       n_copy, n_pad, inner;
                then = cxx_tok_next(f, m);
                e = cxx_stmt_last(f, then);
                els = cxx_tok_next(f, e);
                if (!cxx_tok_eq(f, els, "else"))
                        return 0;
                body = cxx_tok_next(f, els);
                if (!body_all_calls(f, then, "DataCopy", false, &n_copy) ||
                    !body_all_calls(f, body, "DataCopyPad", true, &n_pad))
                        return 0;
                /* a block of one statement gives back that statement */
                inner = cxx_tok_eq(f, body, "{") ? cxx_tok_next(f, body) : CXX_NONE;
                if (inner != CXX_NONE &&
                    cxx_tok_next(f, cxx_stmt_last(f, inner)) == cxx_stmt_last(f, body))
                        text = cxx_range_dup(f, inner, cxx_stmt_last(f, inner));
                else
                        text = cxx_range_dup(f, body, cxx_stmt_last(f, body));
                site_begin(scan, f, st->first, "drop the aligned-length DataCopy fast path");
                if (text)
                        site_replace(scan, f, st->first, st->last, text);
                else
                        site_fail(scan);
                free(text);
                return site_end(scan);
        }
        if (st->in_branch || !cxx_stmt_call(f, st->first, st->last, &c) ||
            !cxx_call_is(f, &c, "DataCopy") || c.n_args != 3 ||
            cxx_tok_eq(f, c.args[2].first, "{") ||
            (c.args[2].first != CXX_NONE && cxx_tok_eq(f, c.args[2].first, "DataCopyParams")))
                return 0;
        a = arg_dup(f, &c.args[0]);
        b = arg_dup(f, &c.args[1]);
        cnt = arg_dup(f, &c.args[2]);
        if (arg_is_gm(f, func, &c.args[1]) && !arg_is_gm(f, func, &c.args[0])) {
                ty = local_type(f, func, &c.args[0]);
                if (ty && a && b && cnt)
                        text =
                            str_printf("DataCopyPad(%s, %s, DataCopyExtParams{1, (uint32_t)((%s) * "
                                       "sizeof(%s)), 0, 0, 0}, DataCopyPadExtParams<%s>{false, 0, "
                                       "0, 0});",
                                       a, b, cnt, ty, ty);
        } else if (arg_is_gm(f, func, &c.args[0]) && !arg_is_gm(f, func, &c.args[1])) {
                ty = local_type(f, func, &c.args[1]);
                if (ty && a && b && cnt)
                        text =
                            str_printf("DataCopyPad(%s, %s, DataCopyExtParams{1, (uint32_t)((%s) * "
                                       "sizeof(%s)), 0, 0, 0});",
                                       a, b, cnt, ty);
        }
        r = 0;
        if (text) {
                site_begin(scan, f, st->first, "DataCopy of %s elements as DataCopyPad", cnt);
                site_replace(scan, f, st->first, st->last, text);
                r = site_end(scan);
        }
        free(a);
        free(b);
        free(cnt);
        free(ty);
        free(text);
        return r;
}

int motif_pad_copy_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), pad_copy_inverse_stmt, NULL);
}

/* ================================================================ strided copies */

/* "for (T v = 0; v < N; v++)": the variable and the bound. */
static bool simple_loop(const struct cxx_file *f, size_t s, size_t *ret_var,
                        struct cxx_arg *ret_bound, size_t *ret_close)
{
        size_t p = cxx_tok_next(f, s), close = token_match(&f->tokens, p), s1 = CXX_NONE,
               s2 = CXX_NONE, v, j;

        if (!cxx_tok_eq(f, s, "for") || !cxx_tok_eq(f, p, "(") || close >= f->tokens.n)
                return false;
        for (j = cxx_tok_next(f, p); j < close; j = cxx_tok_next(f, j)) {
                if (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "["))
                        j = token_match(&f->tokens, j);
                else if (cxx_tok_eq(f, j, ";"))
                        s1 == CXX_NONE ? (void)(s1 = j) : (void)(s2 = j);
        }
        if (s1 == CXX_NONE || s2 == CXX_NONE)
                return false;
        /* init: ... v = 0 */
        v = cxx_tok_prev(f, cxx_tok_prev(f, cxx_tok_prev(f, s1)));
        if (!cxx_tok_is_ident(f, v) || !cxx_tok_eq(f, cxx_tok_next(f, v), "=") ||
            !cxx_tok_is_number(f, cxx_tok_next(f, cxx_tok_next(f, v)), "0") ||
            v == cxx_tok_next(f, p) || !cxx_tok_is_ident(f, cxx_tok_prev(f, v)))
                return false;
        /* cond: v < N */
        j = cxx_tok_next(f, s1);
        if (cxx_tok_len(f, j) != cxx_tok_len(f, v) ||
            memcmp(cxx_tok_text(f, j), cxx_tok_text(f, v), cxx_tok_len(f, v)) ||
            !cxx_tok_eq(f, cxx_tok_next(f, j), "<") || cxx_tok_next(f, cxx_tok_next(f, j)) >= s2)
                return false;
        ret_bound->first = cxx_tok_next(f, cxx_tok_next(f, j));
        ret_bound->last = cxx_tok_prev(f, s2);
        if (cxx_range_mentions(f, ret_bound->first, ret_bound->last, cxx_tok_text(f, v),
                               cxx_tok_len(f, v)))
                return false;
        /* incr: v++, ++v or v += 1 */
        j = cxx_tok_next(f, s2);
        if (!((cxx_tok_eq(f, j, "++") && cxx_tok_next(f, cxx_tok_next(f, j)) == close) ||
              (cxx_tok_eq(f, cxx_tok_next(f, j), "++") &&
               cxx_tok_next(f, cxx_tok_next(f, j)) == close) ||
              (cxx_tok_eq(f, cxx_tok_next(f, j), "+=") &&
               cxx_tok_is_number(f, cxx_tok_next(f, cxx_tok_next(f, j)), "1") &&
               cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, j))) == close)))
                return false;
        *ret_var = v;
        *ret_close = close;
        return true;
}

/* "name[base + v * pitch]": the name, base text ("" when none) and pitch text. */
static bool linear_index(const struct cxx_file *f, const struct cxx_arg *a, size_t v,
                         char **ret_name, char **ret_base, char **ret_pitch)
{
        size_t name = a->first, open = cxx_tok_next(f, name), close, start, j;
        const char *vt = cxx_tok_text(f, v);
        size_t vl = cxx_tok_len(f, v);
        char *base = strdup(""), *pitch = NULL, *grown;
        int depth = 0;

        if (!base)
                return false;
        if (!cxx_tok_is_ident(f, name) || !cxx_tok_eq(f, open, "[") ||
            (close = token_match(&f->tokens, open)) != a->last)
                goto fail;
        start = cxx_tok_next(f, open);
        for (j = start; j <= close; j = cxx_tok_next(f, j)) {
                if (j < close && (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "[")))
                        depth++;
                else if (j < close && (cxx_tok_eq(f, j, ")") || cxx_tok_eq(f, j, "]")))
                        depth--;
                if (j == close || (depth == 0 && cxx_tok_eq(f, j, "+"))) {
                        size_t last = cxx_tok_prev(f, j);
                        if (start > last)
                                goto fail;
                        if (!cxx_range_mentions(f, start, last, vt, vl)) {
                                char *term = cxx_range_dup(f, start, last);
                                grown = term ? str_printf("%s%s%s", base, *base ? " + " : "", term)
                                             : NULL;
                                free(term);
                                free(base);
                                base = grown;
                                if (!base)
                                        goto fail;
                        } else if (pitch) {
                                goto fail;
                        } else if (cxx_tok_len(f, start) == vl &&
                                   !memcmp(cxx_tok_text(f, start), vt, vl) &&
                                   cxx_tok_eq(f, cxx_tok_next(f, start), "*") &&
                                   !cxx_range_mentions(f, cxx_tok_next(f, cxx_tok_next(f, start)),
                                                       last, vt, vl)) {
                                pitch =
                                    cxx_range_dup(f, cxx_tok_next(f, cxx_tok_next(f, start)), last);
                        } else if (cxx_tok_len(f, last) == vl &&
                                   !memcmp(cxx_tok_text(f, last), vt, vl) &&
                                   cxx_tok_eq(f, cxx_tok_prev(f, last), "*") &&
                                   !cxx_range_mentions(
                                       f, start, cxx_tok_prev(f, cxx_tok_prev(f, last)), vt, vl)) {
                                pitch =
                                    cxx_range_dup(f, start, cxx_tok_prev(f, cxx_tok_prev(f, last)));
                        } else {
                                goto fail;
                        }
                        start = cxx_tok_next(f, j);
                }
        }
        if (!pitch)
                goto fail;
        *ret_name = cxx_range_dup(f, name, name);
        *ret_base = base;
        *ret_pitch = pitch;
        return *ret_name != NULL;
fail:
        free(base);
        free(pitch);
        return false;
}

static char *indexed(const char *name, const char *base)
{
        return *base ? str_printf("%s[%s]", name, base) : strdup(name);
}

static int strided_forward_stmt(struct motif_scan *scan, struct cxx_file *f,
                                const struct cxx_func *funcs, const struct cxx_stmt *st,
                                void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_arg bound, ext[6];
        struct cxx_call c;
        size_t v, close, body, s, ub, gm;
        char *un = NULL, *ubase = NULL, *up = NULL, *gn = NULL, *gbase = NULL, *gp = NULL,
             *n = NULL, *len = NULL, *ty = NULL, *q = NULL, *ua = NULL, *ga = NULL, *text = NULL;
        bool in;
        int r = 0;

        if (st->block == CXX_NONE || !simple_loop(f, st->first, &v, &bound, &close))
                return 0;
        body = cxx_tok_next(f, close);
        s = cxx_tok_eq(f, body, "{") ? cxx_tok_next(f, body) : body;
        if (cxx_tok_eq(f, body, "{") &&
            cxx_tok_next(f, cxx_stmt_last(f, s)) != cxx_stmt_last(f, body))
                return 0;
        if (!cxx_stmt_call(f, s, cxx_stmt_last(f, s), &c) || !cxx_call_is(f, &c, "DataCopyPad") ||
            c.n_args < 3 || c.n_args > 4)
                return 0;
        in = c.n_args == 4;
        ub = in ? 0 : 1;
        gm = in ? 1 : 0;
        if (!arg_is_gm(f, func, &c.args[gm]) || arg_is_gm(f, func, &c.args[ub]))
                return 0;
        if (params_fields(f, func, &c.args[2], "DataCopyExtParams", s, ext, 6) != 5 ||
            !cxx_tok_is_number(f, ext[0].first, "1") || ext[0].first != ext[0].last ||
            !cxx_tok_is_number(f, ext[2].first, "0") || !cxx_tok_is_number(f, ext[3].first, "0") ||
            cxx_range_mentions(f, ext[1].first, ext[1].last, cxx_tok_text(f, v),
                               cxx_tok_len(f, v)) ||
            (in && cxx_range_mentions(f, c.args[3].first, c.args[3].last, cxx_tok_text(f, v),
                                      cxx_tok_len(f, v))))
                return 0;
        if (!linear_index(f, &c.args[ub], v, &un, &ubase, &up))
                return 0;
        if (!linear_index(f, &c.args[gm], v, &gn, &gbase, &gp))
                goto out;
        n = cxx_range_dup(f, bound.first, bound.last);
        len = cxx_range_dup(f, ext[1].first, ext[1].last);
        ty = local_type(f, func, &(struct cxx_arg){ c.args[ub].first, c.args[ub].first });
        q = in ? arg_dup(f, &c.args[3]) : strdup("");
        ua = indexed(un, ubase);
        ga = indexed(gn, gbase);
        if (!n || !len || !ty || !q || !ua || !ga)
                goto out;
        if (in)
                text = str_printf("DataCopyPad(%s, %s, DataCopyExtParams{(uint16_t)(%s), %s, "
                                  "(uint32_t)((%s) * sizeof(%s) - (%s)), (uint32_t)(((%s) * "
                                  "sizeof(%s) - ((%s) + 31) / 32 * 32) / 32), 0}, %s);",
                                  ua, ga, n, len, gp, ty, len, up, ty, len, q);
        else
                text = str_printf("DataCopyPad(%s, %s, DataCopyExtParams{(uint16_t)(%s), %s, "
                                  "(uint32_t)(((%s) * sizeof(%s) - ((%s) + 31) / 32 * 32) / 32), "
                                  "(uint32_t)((%s) * sizeof(%s) - (%s)), 0});",
                                  ga, ua, n, len, up, ty, len, gp, ty, len);
        site_begin(scan, f, st->first, "one strided DataCopyPad of %s rows instead of a loop", n);
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(un);
        free(ubase);
        free(up);
        free(gn);
        free(gbase);
        free(gp);
        free(n);
        free(len);
        free(ty);
        free(q);
        free(ua);
        free(ga);
        free(text);
        return r;
}

int motif_strided_copy_forward(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), strided_forward_stmt, NULL);
}

/* "x" -> "x[row * (pitch)]", "x[e]" -> "x[e + row * (pitch)]". */
static char *row_index(const struct cxx_file *f, const struct cxx_arg *a, const char *row,
                       const char *pitch)
{
        size_t open = cxx_tok_next(f, a->first);
        char *name, *inner, *out;

        if (a->first == a->last && cxx_tok_is_ident(f, a->first)) {
                name = cxx_range_dup(f, a->first, a->first);
                out = name ? str_printf("%s[%s * (%s)]", name, row, pitch) : NULL;
                free(name);
                return out;
        }
        if (!cxx_tok_is_ident(f, a->first) || !cxx_tok_eq(f, open, "[") ||
            token_match(&f->tokens, open) != a->last || cxx_tok_next(f, open) == a->last)
                return NULL;
        for (size_t j = open; j < a->last; j = cxx_tok_next(f, j))
                if (cxx_tok_eq(f, j, "?") || cxx_tok_eq(f, j, ","))
                        return NULL;
        name = cxx_range_dup(f, a->first, a->first);
        inner = cxx_range_dup(f, cxx_tok_next(f, open), cxx_tok_prev(f, a->last));
        out = name && inner ? str_printf("%s[%s + %s * (%s)]", name, inner, row, pitch) : NULL;
        free(name);
        free(inner);
        return out;
}

static int strided_inverse_stmt(struct motif_scan *scan, struct cxx_file *f,
                                const struct cxx_func *funcs, const struct cxx_stmt *st,
                                void *userdata)
{
        const struct cxx_func *func = &funcs[st->func];
        struct cxx_call c;
        struct cxx_arg ext[6];
        char row[64], *cnt = NULL, *len = NULL, *src = NULL, *dst = NULL, *ty = NULL, *ug = NULL,
                      *gg = NULL, *ua = NULL, *ga = NULL, *q = NULL, *indent = NULL, *text = NULL;
        const char *unit = cxx_indent_unit(f);
        size_t ub, gm;
        bool in;
        int r = 0;

        if (st->block == CXX_NONE || !cxx_stmt_call(f, st->first, st->last, &c) ||
            !cxx_call_is(f, &c, "DataCopyPad") || c.n_args < 3 || c.n_args > 4)
                return 0;
        in = c.n_args == 4;
        ub = in ? 0 : 1;
        gm = in ? 1 : 0;
        if (!arg_is_gm(f, func, &c.args[gm]) || arg_is_gm(f, func, &c.args[ub]))
                return 0;
        if (params_fields(f, func, &c.args[2], "DataCopyExtParams", st->first, ext, 6) != 5 ||
            cxx_tok_is_number(f, ext[0].first, "1"))
                return 0;
        cxx_fresh_name(f, "motifRow", row, sizeof(row));
        cnt = cxx_range_dup(f, ext[0].first, ext[0].last);
        len = cxx_range_dup(f, ext[1].first, ext[1].last);
        src = cxx_range_dup(f, ext[2].first, ext[2].last);
        dst = cxx_range_dup(f, ext[3].first, ext[3].last);
        ty = local_type(f, func, &c.args[ub]);
        if (!cnt || !len || !src || !dst || !ty)
                goto out;
        {
                const char *ubgap = in ? dst : src, *gmgap = in ? src : dst;
                bool ub0 = strcmp(ubgap, "0") == 0, gm0 = strcmp(gmgap, "0") == 0;
                ug =
                    ub0 ? str_printf("((%s) + 31) / 32 * 32 / sizeof(%s)", len, ty)
                        : str_printf("(((%s) + 31) / 32 + (%s)) * 32 / sizeof(%s)", len, ubgap, ty);
                gg = gm0 ? str_printf("(%s) / sizeof(%s)", len, ty)
                         : str_printf("((%s) + (%s)) / sizeof(%s)", len, gmgap, ty);
        }
        if (!ug || !gg)
                goto out;
        ua = row_index(f, &c.args[ub], row, ug);
        ga = row_index(f, &c.args[gm], row, gg);
        q = in ? arg_dup(f, &c.args[3]) : strdup("");
        indent = cxx_indent_at(f, f->tokens.tokens[st->first].start);
        if (!ua || !ga || !q || !indent)
                goto out;
        text = str_printf("for (uint32_t %s = 0; %s < (%s); %s++) {\n%s%sDataCopyPad(%s, %s, "
                          "DataCopyExtParams{1, %s, 0, 0, 0}%s%s);\n%s}",
                          row, row, cnt, row, indent, unit, in ? ua : ga, in ? ga : ua, len,
                          in ? ", " : "", q, indent);
        site_begin(scan, f, st->first, "split the %s-row DataCopyPad into a loop of row copies",
                   cnt);
        if (text)
                site_replace(scan, f, st->first, st->last, text);
        else
                site_fail(scan);
        r = site_end(scan);
out:
        free(cnt);
        free(len);
        free(src);
        free(dst);
        free(ty);
        free(ug);
        free(gg);
        free(ua);
        free(ga);
        free(q);
        free(indent);
        free(text);
        return r;
}

int motif_strided_copy_inverse(struct motif_scan *scan)
{
        return walk_statements(scan, kernel_of(scan), strided_inverse_stmt, NULL);
}

/* ================================================================ remainder on the first cores */

/* A parenthesised "(I < B ? X : Y)" at open: the pieces, or false. */
struct ternary {
        size_t open, close, idx;
        struct cxx_arg bound, x, y;
};

static bool ternary_at(const struct cxx_file *f, size_t open, const char *op, struct ternary *ret)
{
        size_t close = token_match(&f->tokens, open), i = cxx_tok_next(f, open), q = CXX_NONE,
               c = CXX_NONE, j;
        int depth = 0;

        if (close >= f->tokens.n || !cxx_tok_is_ident(f, i) ||
            !cxx_tok_eq(f, cxx_tok_next(f, i), op))
                return false;
        for (j = cxx_tok_next(f, cxx_tok_next(f, i)); j < close; j = cxx_tok_next(f, j)) {
                if (cxx_tok_eq(f, j, "(") || cxx_tok_eq(f, j, "["))
                        depth++;
                else if (cxx_tok_eq(f, j, ")") || cxx_tok_eq(f, j, "]"))
                        depth--;
                else if (depth == 0 && cxx_tok_eq(f, j, "?") && q == CXX_NONE)
                        q = j;
                else if (depth == 0 && cxx_tok_eq(f, j, ":") && q != CXX_NONE && c == CXX_NONE)
                        c = j;
        }
        if (q == CXX_NONE || c == CXX_NONE || cxx_tok_next(f, cxx_tok_next(f, i)) >= q ||
            cxx_tok_next(f, q) >= c || cxx_tok_next(f, c) >= close)
                return false;
        ret->open = open;
        ret->close = close;
        ret->idx = i;
        ret->bound = (struct cxx_arg){ cxx_tok_next(f, cxx_tok_next(f, i)), cxx_tok_prev(f, q) };
        ret->x = (struct cxx_arg){ cxx_tok_next(f, q), cxx_tok_prev(f, c) };
        ret->y = (struct cxx_arg){ cxx_tok_next(f, c), cxx_tok_prev(f, close) };
        return true;
}

static bool same_ident(const struct cxx_file *f, size_t a, size_t b)
{
        return cxx_tok_len(f, a) == cxx_tok_len(f, b) &&
               memcmp(cxx_tok_text(f, a), cxx_tok_text(f, b), cxx_tok_len(f, a)) == 0;
}

/* "(I == GetBlockNum() - 1 ? B : 0)": the tail form the inverse writes. */
static bool tail_form(const struct cxx_file *f, const struct ternary *t)
{
        size_t j = t->bound.first;

        return cxx_tok_eq(f, j, "GetBlockNum") && cxx_tok_eq(f, cxx_tok_next(f, j), "(") &&
               cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, j)), ")") &&
               cxx_tok_eq(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, j))), "-") &&
               cxx_tok_is_number(f, t->bound.last, "1") &&
               cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, cxx_tok_next(f, j)))) ==
                   t->bound.last &&
               cxx_tok_is_number(f, t->y.first, "0") && t->y.first == t->y.last;
}

static int balance(struct motif_scan *scan, bool forward)
{
        struct cxx_file *f = kernel_of(scan);
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        int r;

        r = cxx_funcs_find(f, &funcs, &n);
        if (r < 0)
                return r;
        for (size_t k = 0; k < n && r >= 0; k++) {
                struct ternary len[4], start[4], t;
                size_t n_len = 0, n_start = 0;

                if (!cxx_range_mentions(f, funcs[k].open, funcs[k].close, "GetBlockIdx", 11))
                        continue;
                for (size_t j = funcs[k].open; j < funcs[k].close; j++) {
                        if (!cxx_tok_eq(f, j, "("))
                                continue;
                        bool zeroed =
                            cxx_tok_eq(f, cxx_tok_next(f, token_match(&f->tokens, j)), "*") &&
                            cxx_tok_is_number(
                                f, cxx_tok_next(f, cxx_tok_next(f, token_match(&f->tokens, j))),
                                "0");
                        if (ternary_at(f, j, "<", &t)) {
                                if (cxx_tok_is_number(f, t.x.first, "1") && t.x.first == t.x.last &&
                                    cxx_tok_is_number(f, t.y.first, "0") && t.y.first == t.y.last &&
                                    !forward && n_len < 4)
                                        len[n_len++] = t;
                                else if (t.x.first == t.x.last && same_ident(f, t.x.first, t.idx) &&
                                         cxx_range_same(f, t.y.first, t.y.last, t.bound.first,
                                                        t.bound.last) &&
                                         zeroed == forward && n_start < 4)
                                        start[n_start++] = t;
                        } else if (forward && ternary_at(f, j, "==", &t) && tail_form(f, &t) &&
                                   n_len < 4) {
                                len[n_len++] = t;
                        }
                }
                if (!n_len || !n_start)
                        continue;
                site_begin(scan, f, len[0].open,
                           forward ? "give the remainder units one each to the first cores"
                                   : "move the whole remainder to the last core");
                for (size_t i = 0; i < n_len; i++) {
                        char *idx = cxx_range_dup(f, len[i].idx, len[i].idx);
                        char *b = forward ? cxx_range_dup(f, len[i].x.first, len[i].x.last)
                                          : cxx_range_dup(f, len[i].bound.first, len[i].bound.last);
                        char *text =
                            idx && b
                                ? forward ? str_printf("(%s < %s ? 1 : 0)", idx, b)
                                          : str_printf("(%s == GetBlockNum() - 1 ? %s : 0)", idx, b)
                                : NULL;
                        if (text)
                                site_replace(scan, f, len[i].open, len[i].close, text);
                        else
                                site_fail(scan);
                        free(idx);
                        free(b);
                        free(text);
                }
                for (size_t i = 0; i < n_start; i++) {
                        size_t close = start[i].close;
                        if (forward)
                                site_edit(scan, f, cxx_tok_end(f, close),
                                          cxx_tok_end(f, cxx_tok_next(f, cxx_tok_next(f, close))) -
                                              cxx_tok_end(f, close),
                                          "");
                        else
                                site_edit(scan, f, cxx_tok_end(f, close), 0, " * 0");
                }
                r = site_end(scan);
        }
        free(funcs);
        return r;
}

int motif_balance_forward(struct motif_scan *scan)
{
        return balance(scan, true);
}

int motif_balance_inverse(struct motif_scan *scan)
{
        return balance(scan, false);
}
