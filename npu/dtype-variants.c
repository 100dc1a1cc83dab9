/* SPDX-License-Identifier: MIT */
/*
 * The dtype combinations an operator's OpDef registers beyond the one its
 * manifest runs (issue #26): read from what --describe printed
 * (npu_sim_describe_start), each one a variant of the manifest with those
 * dtypes and its small cases only, so that a candidate can be checked on
 * every combination the original passes and not on the manifest's alone.
 */
#include "manifest.h"

#include "common/common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every combination at once, when they cannot be told apart. */
#define EVERY_COMBINATION "every combination but the manifest's"

/* One tensor of the manifest and the OpDef parameter it is. */
struct slot {
        const struct npu_tensor *tensor;
        const json_t *dtypes; /* the parameter's "dtypes"; NULL or empty: any */
        bool output;
};

static int add_not_checkable(json_t *list, const char *dtypes, const char *why)
{
        return json_array_append_new(list, json_pack("{s:s, s:s}", "dtypes", dtypes, "why", why)) <
                       0
                   ? -ENOMEM
                   : 0;
}

/* The OpDef's parameter named name among params, or NULL. */
static const json_t *param_named(const json_t *params, const char *name)
{
        const json_t *p;
        size_t i;

        json_array_foreach(params, i, p)
        {
                if (strcmp(json_string_value(json_object_get(p, "name")) ?: "", name) == 0)
                        return p;
        }
        return NULL;
}

/* A dtype of a column as the label shows it: its name, or the ge number the simulator lacks. */
static void dtype_word(const json_t *dt, char *buf, size_t size)
{
        if (json_is_string(dt))
                snprintf(buf, size, "%s", json_string_value(dt));
        else if (json_is_integer(dt))
                snprintf(buf, size, "ge::DataType(%" JSON_INTEGER_FORMAT ")",
                         json_integer_value(dt));
        else
                snprintf(buf, size, "?");
}

static int append(char **label, size_t *len, const char *name, const char *dtype)
{
        size_t add = strlen(name) + strlen(dtype) + 2;
        char *grown = realloc(*label, *len + add + 1);

        if (!grown)
                return -ENOMEM;
        *label = grown;
        snprintf(grown + *len, add + 1, "%s%s:%s", *len ? " " : "", name, dtype);
        *len += add - (*len ? 0 : 1);
        return 0;
}

char *npu_manifest_dtype_label(const struct npu_manifest *m)
{
        char *label = strdup("");
        size_t len = 0;

        for (size_t i = 0; label && i < m->n_inputs + m->n_outputs; i++) {
                const struct npu_tensor *t =
                    i < m->n_inputs ? &m->inputs[i] : &m->outputs[i - m->n_inputs];
                if (t->ref)
                        continue;
                if (append(&label, &len, t->name, npu_dtype_name(t->dtype)) < 0) {
                        free(label);
                        return NULL;
                }
        }
        return label;
}

/* The elements a case's shapes hold, lists and absent inputs included. */
static double case_elements(const json_t *shape)
{
        const json_t *d;
        double n = 1, sum = 0;
        size_t i;

        if (!json_is_array(shape))
                return 0;
        if (json_array_size(shape) && json_is_array(json_array_get(shape, 0))) {
                json_array_foreach(shape, i, d) sum += case_elements(d);
                return sum;
        }
        json_array_foreach(shape, i, d) n *= (double)json_integer_value(d);
        return n;
}

/*
 * A case's golden for a variant, in place: the expected outputs go (they
 * are of the manifest's dtypes; a variant is judged against the
 * original's outputs), and so does every example input whose dtype the
 * variant changes.  The example's other inputs stay, so that a tiling
 * reading an input's values (paddings, strides) runs on those values in
 * every variant, as it does in the manifest's cases; with none left, the
 * golden goes and every input is seeded.
 */
static void variant_golden(json_t *c, const json_t *doc_inputs, const struct npu_manifest *m)
{
        json_t *golden = json_object_get(c, "golden");
        json_t *inputs = json_object_get(golden, "inputs");
        const json_t *t;
        size_t i;

        if (!json_object_get(golden, "example")) {
                json_object_del(c, "golden");
                return;
        }
        json_object_set_new(golden, "outputs", json_object()); /* compare nothing */
        json_array_foreach(doc_inputs, i, t)
        {
                const char *name = json_string_value(json_object_get(t, "name")) ?: "";
                const char *dtype = json_string_value(json_object_get(t, "dtype")) ?: "";
                for (size_t k = 0; k < m->n_inputs; k++)
                        if (strcmp(m->inputs[k].name, name) == 0 &&
                            strcmp(npu_dtype_name(m->inputs[k].dtype), dtype) != 0)
                                json_object_del(inputs, name);
        }
        if (!json_object_size(inputs))
                json_object_del(c, "golden");
}

/*
 * The manifest's small cases for a variant: every case not marked bench,
 * or, when every case is a bench case, the smallest of them; each with
 * the golden variant_golden() leaves.
 */
static json_t *small_cases(const json_t *cases, const json_t *doc_inputs,
                           const struct npu_manifest *m)
{
        json_t *out = json_array(), *c, *smallest = NULL;
        double least = 0;
        size_t i;

        if (!out)
                return NULL;
        json_array_foreach(cases, i, c)
        {
                const char *key;
                const json_t *shape;
                double n = 0;

                json_object_foreach(json_object_get(c, "shapes"), key, shape)
                {
                        n += case_elements(shape);
                }
                if (!smallest || n < least) {
                        smallest = c;
                        least = n;
                }
                if (json_is_true(json_object_get(c, "bench")))
                        continue;
                if (json_array_append_new(out, json_deep_copy(c)) < 0)
                        goto oom;
        }
        if (!json_array_size(out) && smallest) {
                json_t *copy = json_deep_copy(smallest);
                if (!copy || json_object_set_new(copy, "bench", json_false()) < 0 ||
                    json_array_append_new(out, copy) < 0)
                        goto oom;
        }
        json_array_foreach(out, i, c) variant_golden(c, doc_inputs, m);
        return out;
oom:
        json_decref(out);
        return NULL;
}

/* Sets the dtype of the tensor named name in the doc's list (inputs or outputs). */
static void set_doc_dtype(json_t *list, const char *name, const char *dtype)
{
        json_t *t;
        size_t i;

        json_array_foreach(list, i, t)
        {
                if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", name) == 0)
                        json_object_set_new(t, "dtype", json_string(dtype));
        }
}

/*
 * Column v of the slots: its label, and whether the simulator has every
 * dtype in it (else why, into why).  A parameter listing one dtype has it
 * in every column; one listing none keeps the manifest's.
 */
static int column(const struct slot *slots, size_t n, size_t v, char **ret_label, bool *ret_ok,
                  char *why, size_t why_size)
{
        char *label = strdup("");
        size_t len = 0;
        bool ok = true;

        if (!label)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const json_t *list = slots[i].dtypes, *dt;
                size_t k = json_array_size(list);
                enum npu_dtype dtype;
                char word[64];

                if (k == 0) {
                        snprintf(word, sizeof(word), "%s", npu_dtype_name(slots[i].tensor->dtype));
                } else if (k > 1 && v >= k) {
                        snprintf(word, sizeof(word), "?");
                        if (ok)
                                snprintf(why, why_size,
                                         "the OpDef lists %zu dtypes for %s and more for others, "
                                         "so column %zu has none for it",
                                         k, slots[i].tensor->name, v);
                        ok = false;
                } else {
                        dt = json_array_get(list, k == 1 ? 0 : v);
                        dtype_word(dt, word, sizeof(word));
                        if (ok && (!json_is_string(dt) || npu_dtype_from_name(word, &dtype) < 0)) {
                                snprintf(why, why_size,
                                         "the simulator has no dtype %s (%s of the OpDef's %s)",
                                         word, slots[i].output ? "output" : "input",
                                         slots[i].tensor->name);
                                ok = false;
                        }
                }
                if (append(&label, &len, slots[i].tensor->name, word) < 0) {
                        free(label);
                        return -ENOMEM;
                }
        }
        *ret_label = label;
        *ret_ok = ok;
        return 0;
}

/* The variant's manifest: the doc with column v's dtypes and the small cases. */
static int variant_doc(const struct npu_manifest *m, const struct slot *slots, size_t n, size_t v,
                       json_t **ret)
{
        json_t *doc = json_deep_copy(m->doc), *cases;

        if (!doc)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const json_t *list = slots[i].dtypes;
                size_t k = json_array_size(list);
                const char *name = slots[i].tensor->name;
                const char *dtype = k == 0
                                        ? npu_dtype_name(slots[i].tensor->dtype)
                                        : json_string_value(json_array_get(list, k == 1 ? 0 : v));

                set_doc_dtype(json_object_get(doc, slots[i].output ? "outputs" : "inputs"), name,
                              dtype);
                /* a ref output is its input: same dtype */
                if (!slots[i].output)
                        for (size_t o = 0; o < m->n_outputs; o++)
                                if (m->outputs[o].ref && strcmp(m->outputs[o].name, name) == 0)
                                        set_doc_dtype(json_object_get(doc, "outputs"), name, dtype);
        }
        cases = small_cases(json_object_get(doc, "cases"), json_object_get(doc, "inputs"), m);
        if (!cases || json_object_set_new(doc, "cases", cases) < 0) {
                json_decref(doc);
                return -ENOMEM;
        }
        *ret = doc;
        return 0;
}

void npu_dtype_variants_release(struct npu_dtype_variant *variants, size_t n)
{
        for (size_t i = 0; variants && i < n; i++) {
                free(variants[i].label);
                json_decref(variants[i].doc);
                variants[i] = (struct npu_dtype_variant){ 0 };
        }
}

/* The OpDef of the manifest's name in description, or NULL with why. */
static const json_t *find_opdef(const struct npu_manifest *m, const json_t *description, char *why,
                                size_t why_size)
{
        const json_t *defs = json_object_get(description, "op_defs"), *d;
        size_t i;

        json_array_foreach(defs, i, d)
        {
                if (strcmp(json_string_value(json_object_get(d, "type")) ?: "", m->name) == 0)
                        return d;
        }
        if (json_array_size(defs))
                snprintf(why, why_size,
                         "op_host registers no OpDef named %s (the manifest's .name), only %s%s",
                         m->name,
                         json_string_value(json_object_get(json_array_get(defs, 0), "type")),
                         json_array_size(defs) > 1 ? " and others" : "");
        else
                snprintf(why, why_size, "op_host registers no OpDef (OP_ADD), so no dtype list");
        return NULL;
}

int npu_manifest_dtype_variants(const struct npu_manifest *m, const json_t *description,
                                struct npu_dtype_variant *variants, size_t max, size_t *ret_n,
                                json_t *not_checkable)
{
        struct slot slots[2 * NPU_MAX_TENSORS];
        const json_t *def;
        char why[1024], *own = NULL;
        size_t n = 0, columns = 1, found = 0;
        int r = 0;

        *ret_n = 0;
        def = find_opdef(m, description, why, sizeof(why));
        if (!def)
                return add_not_checkable(not_checkable, EVERY_COMBINATION, why);
        for (size_t i = 0; i < m->n_inputs + m->n_outputs; i++) {
                bool output = i >= m->n_inputs;
                const struct npu_tensor *t = output ? &m->outputs[i - m->n_inputs] : &m->inputs[i];
                const json_t *p;

                if (t->ref)
                        continue;
                p = param_named(json_object_get(def, output ? "outputs" : "inputs"), t->name);
                if (!p) {
                        snprintf(why, sizeof(why),
                                 "the OpDef of %s declares no %s named %s (the manifest's)",
                                 m->name, output ? "output" : "input", t->name);
                        return add_not_checkable(not_checkable, EVERY_COMBINATION, why);
                }
                slots[n] = (struct slot){ .tensor = t,
                                          .dtypes = json_object_get(p, "dtypes"),
                                          .output = output };
                if (json_array_size(slots[n].dtypes) > columns)
                        columns = json_array_size(slots[n].dtypes);
                n++;
        }
        own = npu_manifest_dtype_label(m);
        if (!own)
                return -ENOMEM;
        for (size_t v = 0; v < columns && r == 0; v++) {
                char *label = NULL, err[1024];
                struct npu_manifest *check = NULL;
                json_t *doc = NULL;
                bool ok, seen;

                r = column(slots, n, v, &label, &ok, why, sizeof(why));
                if (r < 0)
                        break;
                /* the manifest's own combination, or one listed before (it differs in format) */
                seen = strcmp(label, own) == 0;
                for (size_t k = 0; k < found && !seen; k++)
                        seen = strcmp(variants[k].label, label) == 0;
                if (!ok) {
                        r = add_not_checkable(not_checkable, label, why);
                } else if (!seen && found == max) {
                        snprintf(why, sizeof(why),
                                 "past the %zu dtype combinations checked (NPU_MAX_DTYPE_VARIANTS)",
                                 max);
                        r = add_not_checkable(not_checkable, label, why);
                } else if (!seen) {
                        r = variant_doc(m, slots, n, v, &doc);
                        if (r == 0 && npu_manifest_from_json(m->dir, doc, "ascendopt.json", &check,
                                                             err, sizeof(err)) < 0) {
                                r = add_not_checkable(not_checkable, label, err);
                                json_decref(doc);
                        } else if (r == 0) {
                                variants[found++] =
                                    (struct npu_dtype_variant){ .label = label, .doc = doc };
                                label = NULL;
                        }
                        npu_manifest_free(check);
                }
                free(label);
        }
        free(own);
        if (r < 0) {
                npu_dtype_variants_release(variants, found);
                return r;
        }
        *ret_n = found;
        return 0;
}
