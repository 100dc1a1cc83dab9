/* SPDX-License-Identifier: MIT */
/*
 * The timed case of a draft: the caller's --bench-shape, else, when every
 * case is small, the largest grown to a realistic size along the first
 * axis (elementwise) or the last (an operator that works row by row), with
 * the attributes that restate the grown axis grown alike; else the largest
 * case.
 */
#include "draft-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define BENCH_MIN_ELEMENTS (8ull << 20)

/* Elements of one shape (a list of dims, or for a list input the largest element). */
static double max_item_elements(const json_t *shape)
{
        bool is_list = json_is_array(json_array_get(shape, 0));
        double best = 0;

        for (size_t k = 0; k < (is_list ? json_array_size(shape) : 1); k++) {
                const json_t *dims = is_list ? json_array_get(shape, k) : shape;
                double n = 1;
                for (size_t d = 0; d < json_array_size(dims); d++)
                        n *= (double)json_integer_value(json_array_get(dims, d));
                best = n > best ? n : best;
        }
        return best;
}

/*
 * Whether the operator works row by row along the last axis (norms,
 * softmax, reductions): by its name, an attribute naming the last axis, or
 * a lower-rank input that matches the trailing dimensions of the largest
 * (a gamma or beta).
 */
static bool row_wise(const struct opdef *def, const json_t *shapes, const json_t *attrs,
                     const char *largest)
{
        static const char *const words[] = { "norm",   "softmax", "reduce", "mean",      "topk",
                                             "argmax", "argmin",  "cumsum", "logsumexp", NULL };
        const json_t *big = json_object_get(shapes, largest), *v;
        char lower[128];
        const char *key;
        size_t i;

        for (i = 0; def->type[i] && i + 1 < sizeof(lower); i++)
                lower[i] = (char)tolower((unsigned char)def->type[i]);
        lower[i] = '\0';
        for (const char *const *w = words; *w; w++)
                if (strstr(lower, *w))
                        return true;
        json_object_foreach((json_t *)attrs, key, v)
        {
                if ((draft_same_name(key, "dim") || draft_same_name(key, "axis") ||
                     draft_same_name(key, "axes")) &&
                    ((json_is_integer(v) && json_integer_value(v) == -1) ||
                     (json_is_array(v) && json_array_size(v) == 1 &&
                      json_integer_value(json_array_get(v, 0)) == -1)))
                        return true;
        }
        json_object_foreach((json_t *)shapes, key, v)
        {
                size_t rank = json_array_size(v), big_rank = json_array_size(big);
                bool suffix = rank >= 1 && rank < big_rank && !json_is_array(json_array_get(v, 0));
                for (size_t d = 0; suffix && d < rank; d++)
                        suffix = json_integer_value(json_array_get(v, d)) ==
                                 json_integer_value(json_array_get(big, big_rank - rank + d));
                if (suffix && max_item_elements(v) > 1)
                        return true;
        }
        return false;
}

/* dims with the axis (0 or last) multiplied by factor; a list input, every element. */
static json_t *grow_shape(const json_t *shape, bool last, json_int_t factor, json_int_t match)
{
        bool is_list = json_is_array(json_array_get(shape, 0));
        json_t *out = json_deep_copy(shape);

        for (size_t k = 0; k < (is_list ? json_array_size(out) : 1); k++) {
                json_t *dims = is_list ? json_array_get(out, k) : out;
                size_t rank = json_array_size(dims);
                size_t axis = last ? rank - 1 : 0;
                if (!rank)
                        continue;
                /* a broadcast operand (gamma) grows only where it shares the axis;
                 * every entry of a list grows alike */
                if (match && !is_list && json_integer_value(json_array_get(dims, axis)) != match)
                        continue;
                json_array_set_new(
                    dims, axis,
                    json_integer(json_integer_value(json_array_get(dims, axis)) * factor));
        }
        return out;
}

/* Whether an attribute's name says it holds a size: n, num_rows, length, batch_shape... */
static bool size_like(const char *name)
{
        static const char *const words[] = { "num",  "len",  "size",  "count", "shape",
                                             "rows", "cols", "batch", NULL };
        char n[128];

        draft_plain_name(name, n, sizeof(n));
        if (strcmp(n, "n") == 0 || strcmp(n, "m") == 0)
                return true;
        for (const char *const *w = words; *w; w++)
                if (strstr(n, *w))
                        return true;
        return false;
}

/*
 * The attributes of a grown case: those that restate the grown axis grow
 * with it, so that the case stays one operation (an element count n, a
 * batch_shape the leading dimensions repeat).  An attribute named as a
 * size that is an integer equal to the axis's old length or to the
 * tensor's element count, or a list equal to the tensor's leading or
 * trailing dimensions, is scaled by factor.  NULL when none is; the names
 * scaled go to ret_names.
 */
static json_t *grow_attrs(const json_t *attrs, const json_t *dims, bool last, json_int_t factor,
                          double elements, char *ret_names)
{
        size_t rank = json_array_size(dims), axis = last ? rank - 1 : 0;
        json_int_t old = rank ? json_integer_value(json_array_get(dims, axis)) : 0;
        json_t *out = json_deep_copy(attrs), *v;
        const char *key;
        bool changed = false;
        size_t len = 0;

        if (!out || !rank)
                goto none;
        json_object_foreach(out, key, v)
        {
                bool scaled = false;
                if (!size_like(key))
                        continue;
                if (json_is_integer(v) &&
                    ((old > 1 && json_integer_value(v) == old) ||
                     (elements > 1 && (double)json_integer_value(v) == elements))) {
                        json_object_set_new(out, key, json_integer(json_integer_value(v) * factor));
                        scaled = true;
                } else if (json_is_array(v) && json_array_size(v) && json_array_size(v) <= rank &&
                           old > 1) {
                        size_t n = json_array_size(v), at;
                        bool lead = true, trail = true;
                        for (size_t k = 0; k < n; k++) {
                                json_int_t e = json_integer_value(json_array_get(v, k));
                                lead &= json_is_integer(json_array_get(v, k)) &&
                                        e == json_integer_value(json_array_get(dims, k));
                                trail &=
                                    json_is_integer(json_array_get(v, k)) &&
                                    e == json_integer_value(json_array_get(dims, rank - n + k));
                        }
                        at = lead && axis < n            ? axis
                             : trail && axis >= rank - n ? axis - (rank - n)
                                                         : n;
                        if (at < n) {
                                json_array_set_new(
                                    v, at,
                                    json_integer(json_integer_value(json_array_get(v, at)) *
                                                 factor));
                                scaled = true;
                        }
                }
                changed |= scaled;
                if (scaled && len < 255)
                        len += (size_t)snprintf(ret_names + len, 256 - len, "%s%s", len ? ", " : "",
                                                key);
        }
        if (changed)
                return out;
none:
        json_decref(out);
        return NULL;
}

/*
 * When every case is small (its largest input under 8M elements), a bench
 * case at a realistic size from the largest: every input grown along the
 * first axis, or the last for a row-wise operator, until the largest input
 * has at least 8M elements; list inputs grow every element alike.  Output
 * shapes are dropped (InferShape gives them) unless they can be grown alike.
 * *ret is NULL when no case is grown; -ENOMEM.
 */
static int bench_case(const struct opdef *def, const json_t *cases, const json_t *attrs, int axis,
                      bool *ret_last, char *ret_grown_attrs, json_t **ret)
{
        const json_t *base = NULL, *c, *v;
        const char *key, *largest = NULL;
        double best = 0, elements = 0;
        json_t *shapes, *out;
        size_t i;
        bool last;
        json_int_t factor, match_first = 0, match_last = 0;

        *ret = NULL;
        json_array_foreach(cases, i, c)
        {
                if (draft_case_elements(c) > best) {
                        best = draft_case_elements(c);
                        base = c;
                }
        }
        json_object_foreach(json_object_get(base, "shapes"), key, v)
        {
                if (max_item_elements(v) > elements) {
                        elements = max_item_elements(v);
                        largest = key;
                }
        }
        if (!base || !largest || elements >= (double)BENCH_MIN_ELEMENTS)
                return 0;
        last = axis >= 0 ? axis == 1
                         : row_wise(def, json_object_get(base, "shapes"),
                                    json_object_get(base, "attrs") ?: attrs, largest);
        factor = (json_int_t)((double)BENCH_MIN_ELEMENTS / elements);
        factor += (double)factor * elements < (double)BENCH_MIN_ELEMENTS;
        {
                const json_t *big = json_object_get(json_object_get(base, "shapes"), largest);
                if (json_is_array(json_array_get(big, 0)))
                        big = json_array_get(big, 0);
                if (!json_array_size(big))
                        return 0; /* a scalar does not grow */
                match_first = json_integer_value(json_array_get(big, 0));
                match_last = json_integer_value(json_array_get(big, json_array_size(big) - 1));
        }
        shapes = json_object();
        json_object_foreach(json_object_get(base, "shapes"), key, v)
        {
                bool is_input = draft_find_input(def, key) != NULL;
                if (json_is_null(v)) {
                        json_object_set_new(shapes, key, json_null()); /* absent stays absent */
                        continue;
                }
                size_t rank =
                    json_array_size(json_is_array(json_array_get(v, 0)) ? json_array_get(v, 0) : v);
                size_t big_rank = json_array_size(
                    json_is_array(json_array_get(
                        json_object_get(json_object_get(base, "shapes"), largest), 0))
                        ? json_array_get(json_object_get(json_object_get(base, "shapes"), largest),
                                         0)
                        : json_object_get(json_object_get(base, "shapes"), largest));
                if (!is_input)
                        continue; /* below, once the inputs have grown */
                if (!last && rank < big_rank) {
                        json_object_set(shapes, key, (json_t *)v); /* a broadcast operand */
                        continue;
                }
                json_object_set_new(shapes, key,
                                    grow_shape(v, last, factor, last ? match_last : match_first));
        }
        /*
         * An output of an input's shape keeps it.  Another one may be
         * reduced along the last axis: InferShape decides, when there is
         * one; otherwise it grows as the inputs do.
         */
        json_object_foreach(json_object_get(base, "shapes"), key, v)
        {
                const char *in_key;
                const json_t *in_v;
                bool done = false;
                if (draft_find_input(def, key) || json_is_null(v))
                        continue;
                json_object_foreach(json_object_get(base, "shapes"), in_key, in_v)
                {
                        if (!done && draft_find_input(def, in_key) && json_equal(in_v, v) &&
                            json_object_get(shapes, in_key)) {
                                json_object_set(shapes, key, json_object_get(shapes, in_key));
                                done = true;
                        }
                }
                if (!done && (!last || !def->has_infer_shape))
                        json_object_set_new(
                            shapes, key,
                            grow_shape(v, last, factor, last ? match_last : match_first));
        }
        out = json_pack("{s:s, s:o}", "name", "bench", "shapes", shapes);
        if (!out)
                return -ENOMEM;
        {
                const json_t *big = json_object_get(json_object_get(base, "shapes"), largest);
                json_t *grown =
                    grow_attrs(json_object_get(base, "attrs") ?: attrs,
                               json_is_array(json_array_get(big, 0)) ? json_array_get(big, 0) : big,
                               last, factor, elements, ret_grown_attrs);
                if (grown)
                        json_object_set_new(out, "attrs", grown);
                else if (json_object_get(base, "attrs"))
                        json_object_set(out, "attrs", json_object_get(base, "attrs"));
        }
        *ret_last = last;
        *ret = out;
        return 0;
}

/* ------------------------------------------------------------ the timed case */

/* Marks the largest case (by input elements) as the timed one. */
void draft_mark_bench_case(json_t *cases, struct draft_notes *notes)
{
        size_t bench = 0;

        for (size_t i = 1; i < json_array_size(cases); i++)
                if (draft_case_elements(json_array_get(cases, i)) >
                    draft_case_elements(json_array_get(cases, bench)))
                        bench = i;
        for (size_t i = 0; i < json_array_size(cases); i++)
                json_object_set_new(json_array_get(cases, i), "bench", json_boolean(i == bench));
        draft_note(notes, "case %s is timed (the largest); the others check correctness",
                   json_string_value(json_object_get(json_array_get(cases, bench), "name")));
}

/*
 * The timed case: --bench-shape's, else the largest grown when the cases
 * are small (notes->grown_bench names it, notes->alt_bench holds it grown
 * along the other axis), else the largest.
 */
int draft_bench_case(const struct draft_options *o, const struct opdef *def, struct draft_state *st,
                     struct draft_notes *notes, char *err, size_t size)
{
        int r;

        if (o->bench_shape) {
                char name[129];
                json_t *b;
                draft_case_name("bench", st->cases, name, sizeof(name));
                r = draft_parse_flag_case(o->bench_shape, def, st->cases, err, size);
                if (r < 0)
                        return r;
                b = json_array_get(st->cases, json_array_size(st->cases) - 1);
                if (!strchr(o->bench_shape, ':'))
                        json_object_set_new(b, "name", json_string(name));
                snprintf(name, sizeof(name), "%s", json_string_value(json_object_get(b, "name")));
                for (size_t i = 0; i < json_array_size(st->cases); i++)
                        json_object_set_new(json_array_get(st->cases, i), "bench",
                                            json_boolean(i + 1 == json_array_size(st->cases)));
                draft_note(notes, "case %s (--bench-shape) is timed; the others check correctness",
                           name);
                return 0;
        }
        bool last = false, alt_last = false;
        char grown_attrs[256] = "", alt_attrs[256] = "";
        json_t *bench = NULL;

        r = json_array_size(st->cases) < NPU_MAX_CASES
                ? bench_case(def, st->cases, st->attrs, -1, &last, grown_attrs, &bench)
                : 0;
        /* the other axis, should the kernel not take this one (check_bench) */
        json_decref(notes->alt_bench);
        notes->alt_bench = NULL;
        if (r == 0 && bench)
                r = bench_case(def, st->cases, st->attrs, !last, &alt_last, alt_attrs,
                               &notes->alt_bench);
        if (r < 0) {
                json_decref(bench);
                return format_error(err, size, r, "the bench case: out of memory");
        }
        if (notes->alt_bench && json_equal(json_object_get(notes->alt_bench, "shapes"),
                                           json_object_get(bench, "shapes"))) {
                json_decref(notes->alt_bench); /* one axis: no other to try */
                notes->alt_bench = NULL;
        }
        if (bench) {
                char name[129];
                draft_case_name("bench", st->cases, name, sizeof(name));
                json_object_set_new(bench, "name", json_string(name));
                if (notes->alt_bench) {
                        json_object_set_new(notes->alt_bench, "name", json_string(name));
                        json_object_set_new(notes->alt_bench, "bench", json_true());
                }
                if (json_array_append_new(st->cases, bench) < 0)
                        return format_error(err, size, -ENOMEM, "the bench case: out of memory");
                snprintf(notes->grown_bench, sizeof(notes->grown_bench), "%s", name);
                for (size_t i = 0; i < json_array_size(st->cases); i++)
                        json_object_set_new(json_array_get(st->cases, i), "bench",
                                            json_boolean(i + 1 == json_array_size(st->cases)));
                draft_note(notes,
                           "case %s is timed: the largest case grown along the %s axis (%s) to at "
                           "least 8M elements (--bench-shape gives another); the others check "
                           "correctness",
                           name, last ? "last" : "first",
                           last ? "the operator works row by row" : "elementwise");
                if (grown_attrs[0])
                        draft_note(
                            notes,
                            "case %s: attributes that restate the grown axis grow with it (%s)",
                            name, grown_attrs);
                return 0;
        }
        draft_mark_bench_case(st->cases, notes);
        return 0;
}
