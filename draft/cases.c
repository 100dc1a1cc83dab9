/* SPDX-License-Identifier: MIT */
/*
 * Where a draft's cases come from, in order: the operator's msOpSt cases
 * (st-cases.c), else its examples (examples.c), then the caller's --case
 * shapes, parsed here; with the names a manifest takes and the element
 * counts that pick the smallest and the largest case.
 */
#include "draft-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses "4096x4096" (or "1") into a JSON list of dimensions. */
static json_t *parse_dims(const char *s, size_t len)
{
        json_t *dims = json_array();
        size_t i = 0;

        while (dims && i < len) {
                char *end;
                unsigned long long d;
                if (s[i] < '0' || s[i] > '9')
                        goto bad;
                d = strtoull(s + i, &end, 10);
                if (d == 0 || d > NPU_MAX_CASE_ELEMENTS || json_array_size(dims) == NPU_MAX_DIMS)
                        goto bad;
                json_array_append_new(dims, json_integer((json_int_t)d));
                i = (size_t)(end - s);
                if (i < len && s[i] != 'x' && s[i] != 'X')
                        goto bad;
                if (i < len && ++i == len)
                        goto bad; /* a trailing 'x' */
        }
        if (json_array_size(dims) == 0)
                goto bad;
        return dims;
bad:
        json_decref(dims);
        return NULL;
}

/* A shape for param p: dims, or for a dynamic list "100;2x50;4099" a list of dims. */
static json_t *parse_shape(const char *s, size_t len, const struct param *p)
{
        json_t *list;

        if (p->type != PARAM_DYNAMIC)
                return parse_dims(s, len);
        list = json_array();
        while (list && len) {
                size_t item = strcspn(s, ";");
                json_t *dims = parse_dims(s, item < len ? item : len);
                if (!dims || json_array_size(list) == NPU_MAX_LIST_ITEMS) {
                        json_decref(dims);
                        json_decref(list);
                        return NULL;
                }
                json_array_append_new(list, dims);
                if (item >= len)
                        break;
                s += item + 1;
                len -= item + 1;
        }
        return list;
}

/*
 * One --case: "[NAME:]x=8x2048,y=8x2048", or "[NAME:]8x2048" for every
 * input alike; a dynamic input takes a list, "x=100;2x50".  A dynamic
 * output gets the shapes of the first dynamic input, as foreach operators
 * have them.  Appends {name, shapes} to cases.
 */
int draft_parse_flag_case(const char *spec, const struct opdef *def, json_t *cases, char *err,
                          size_t size)
{
        const char *colon = strchr(spec, ':'), *body = colon ? colon + 1 : spec;
        json_t *shapes = json_object(), *first_list = NULL;
        char name[129];

        if (colon && (colon == spec || colon - spec > 128)) {
                json_decref(shapes);
                return format_error(err, size, -EINVAL,
                                    "--case %s: a case name is 1 to 128 characters", spec);
        }
        if (colon)
                snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
        else
                snprintf(name, sizeof(name), "case%zu", json_array_size(cases) + 1);
        if (!strchr(body, '=')) {
                for (size_t i = 0; i < def->n_inputs; i++) {
                        json_t *shape = parse_shape(body, strlen(body), &def->inputs[i]);
                        if (!shape)
                                goto bad;
                        json_object_set_new(shapes, def->inputs[i].name, shape);
                }
        } else {
                const char *p = body;
                while (*p) {
                        size_t item = strcspn(p, ","), key = strcspn(p, "=");
                        const struct param *input;
                        json_t *shape;
                        char tensor[128];
                        if (key >= item || key == 0 || key >= sizeof(tensor))
                                goto bad;
                        snprintf(tensor, sizeof(tensor), "%.*s", (int)key, p);
                        input = draft_find_input(def, tensor);
                        for (size_t k = 0; !input && k < def->n_outputs; k++)
                                if (strcmp(def->outputs[k].name, tensor) == 0)
                                        input = &def->outputs[k]; /* an output's shape */
                        if (!input) {
                                char names[512];
                                size_t len = 0;
                                names[0] = '\0';
                                for (size_t k = 0;
                                     k < def->n_inputs + def->n_outputs && len + 1 < sizeof(names);
                                     k++)
                                        len += (size_t)snprintf(
                                            names + len, sizeof(names) - len, "%s%s", k ? ", " : "",
                                            k < def->n_inputs
                                                ? def->inputs[k].name
                                                : def->outputs[k - def->n_inputs].name);
                                json_decref(shapes);
                                return format_error(err, size, -EINVAL,
                                                    "--case %s: %s has no input or output \"%s\" "
                                                    "(its inputs, then outputs: %s)",
                                                    spec, def->type, tensor, names);
                        }
                        shape = parse_shape(p + key + 1, item - key - 1, input);
                        if (!shape)
                                goto bad;
                        json_object_set_new(shapes, tensor, shape);
                        p += item + (p[item] == ',');
                }
        }
        for (size_t i = 0; i < def->n_inputs && !first_list; i++)
                if (def->inputs[i].type == PARAM_DYNAMIC)
                        first_list = json_object_get(shapes, def->inputs[i].name);
        for (size_t i = 0; i < def->n_outputs && first_list; i++)
                if (def->outputs[i].type == PARAM_DYNAMIC)
                        json_object_set_new(shapes, def->outputs[i].name,
                                            json_deep_copy(first_list));
        if (json_array_append_new(cases, json_pack("{s:s, s:o}", "name", name, "shapes", shapes)) <
            0)
                return format_error(err, size, -ENOMEM, "--case %s: out of memory", spec);
        return 0;
bad:
        json_decref(shapes);
        return format_error(err, size, -EINVAL,
                            "--case %s: give shapes as [NAME:]x=8x2048,y=8x2048 or [NAME:]8x2048, "
                            "a dynamic input as x=100;2x50 (dimensions > 0, at most %d)",
                            spec, NPU_MAX_DIMS);
}

/* A name the manifest takes (1 to 128 characters), unique among cases. */
void draft_case_name(const char *wanted, const json_t *cases, char *buf, size_t size)
{
        char base[120];
        bool taken;
        size_t i, k = 1;
        json_t *c;

        snprintf(base, sizeof(base), "%s", wanted && *wanted ? wanted : "case");
        snprintf(buf, size, "%s", base);
        do {
                taken = false;
                json_array_foreach(cases, i, c) taken |=
                    strcmp(json_string_value(json_object_get(c, "name")), buf) == 0;
                if (taken)
                        snprintf(buf, size, "%s_%zu", base, ++k);
        } while (taken);
}

/* Elements of all the inputs a case's shapes give. */
double draft_shapes_elements(const json_t *shapes)
{
        const json_t *dims;
        const char *key;
        double total = 0;

        json_object_foreach((json_t *)shapes, key, dims)
        {
                /* a dynamic list's shape is a list of dims */
                bool is_list = json_is_array(json_array_get(dims, 0));
                size_t n_items = is_list ? json_array_size(dims) : 1;
                for (size_t k = 0; k < n_items; k++) {
                        const json_t *item = is_list ? json_array_get(dims, k) : dims, *d;
                        double n = 1;
                        size_t i;
                        json_array_foreach(item, i, d) n *=
                            json_is_integer(d) ? (double)json_integer_value(d) : 1;
                        total += n;
                }
        }
        return total;
}

double draft_case_elements(const json_t *c)
{
        return draft_shapes_elements(json_object_get(c, "shapes"));
}

/* "x=4096x4096,y=4096x4096": every input of the OpDef, for a hint. */
static void case_hint(const struct opdef *def, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < def->n_inputs && len + 1 < size; i++)
                len += (size_t)snprintf(
                    buf + len, size - len, "%s%s=%s", i ? "," : "", def->inputs[i].name,
                    def->inputs[i].type == PARAM_DYNAMIC ? "4096x4096;4096x4096" : "4096x4096");
}

/* The cases: msOpSt's, else the examples', then --case's. */
int draft_gather_cases(const struct draft_options *o, const struct opdef *def,
                       struct draft_state *st, struct draft_notes *notes, char *err, size_t size)
{
        char hint[512], why[1024] = "";
        int r = draft_read_st_cases(o->opdir, def, st, err, size);

        if (r < 0)
                return r;
        case_hint(def, hint, sizeof(hint));
        if (st->files)
                draft_note(notes,
                           "%zu case%s from %zu msOpSt file%s in tests/st/ (shapes and dtypes "
                           "from input_desc), %zu with a golden (calc_expect_func_file)",
                           json_array_size(st->cases), json_array_size(st->cases) == 1 ? "" : "s",
                           st->files, st->files == 1 ? "" : "s", st->goldens);
        if (st->skipped)
                draft_note(notes, "%zu msOpSt case%s left out; the first: %s", st->skipped,
                           st->skipped == 1 ? "" : "s", st->skip_reason);
        if (json_array_size(st->cases) == 0 && o->n_flag_cases == 0)
                draft_read_examples(def, st, notes, why, sizeof(why));
        for (size_t f = 0; f < o->n_flag_cases; f++) {
                r = draft_parse_flag_case(o->flag_cases[f], def, st->cases, err, size);
                if (r < 0)
                        return r;
        }
        if (json_array_size(st->cases) == 0)
                return format_error(err, size, -EINVAL,
                                    "%s: .cases: %s%s%s%s; give one with --case, e.g. --case %s",
                                    o->opdir,
                                    st->skipped ? "no msOpSt case fits: "
                                                : "no msOpSt case in tests/st/ to take shapes from",
                                    st->skipped ? st->skip_reason : "",
                                    why[0] ? "; and the example does not say: " : "", why, hint);
        if (json_array_size(st->cases) > NPU_MAX_CASES)
                return format_error(err, size, -EINVAL, "%s: .cases: more than %d cases", o->opdir,
                                    NPU_MAX_CASES);
        return 0;
}
