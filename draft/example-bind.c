/* SPDX-License-Identifier: MIT */
/*
 * Binding an example's aclnn call onto the OpDef: which argument is which
 * input, output or attribute.  Through a hand-written wrapper's launch
 * when op_host has one (launcher.c), else by the order CANN generates,
 * else by the names of main.cpp's variables and then in order; and whether
 * a value fits the attribute it is bound to.
 */
#include "draft-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Whether main.cpp's variable var stands for the OpDef's name: the same
 * words whatever the case style, with an input/output prefix or a Ref
 * suffix (inputX1, outputY, varRef), or a torch-style name aclnn examples
 * use for it (dim for axis, index for indices).
 */
static bool example_name_matches(const char *var, const char *name)
{
        static const char *const synonyms[][2] = { { "dim", "axis" }, { "index", "indices" } };
        static const char *const prefixes[] = { "input", "output", "" };
        static const char *const suffixes[] = { "ref", "tensor", "array", "list", "" };
        char v[128], n[128];

        draft_plain_name(var, v, sizeof(v));
        draft_plain_name(name, n, sizeof(n));
        if (!v[0] || !n[0])
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(synonyms); i++)
                if (strcmp(v, synonyms[i][0]) == 0 && strcmp(n, synonyms[i][1]) == 0)
                        return true;
        /* one plural, the other not: scalars and scalarList */
        if (n[strlen(n) - 1] == 's')
                n[strlen(n) - 1] = '\0';
        if (v[strlen(v) - 1] == 's')
                v[strlen(v) - 1] = '\0';
        if (!v[0] || !n[0])
                return false;
        for (size_t p = 0; p < ARRAY_SIZE(prefixes); p++)
                for (size_t q = 0; q < ARRAY_SIZE(suffixes); q++) {
                        size_t lp = strlen(prefixes[p]), lq = strlen(suffixes[q]), lv = strlen(v);
                        if (lv == lp + strlen(n) + lq && strncmp(v, prefixes[p], lp) == 0 &&
                            strncmp(v + lp, n, strlen(n)) == 0 &&
                            strcmp(v + lp + strlen(n), suffixes[q]) == 0)
                                return true;
                }
        return false;
}

/* A number or a list of numbers: what an aclScalar or aclIntArray argument holds. */
static bool numeric_value(const json_t *arg)
{
        const json_t *v = json_object_get(arg, "value");

        if (!draft_arg_is(arg, "value"))
                return false;
        if (json_is_number(v))
                return true;
        if (!json_is_array(v) || !json_array_size(v))
                return false;
        for (size_t i = 0; i < json_array_size(v); i++)
                if (!json_is_number(json_array_get(v, i)))
                        return false;
        return true;
}

static bool tensor_like(const json_t *arg)
{
        return draft_arg_is(arg, "tensor") || draft_arg_is(arg, "list") ||
               draft_arg_is(arg, "null");
}

/* The variable an argument names (its expression when that is one identifier). */
static const char *arg_var(const json_t *arg)
{
        const char *e = json_string_value(json_object_get(arg, "expr"));

        if (!e || !*e || isdigit((unsigned char)*e))
                return NULL;
        for (const char *p = e; *p; p++)
                if (!isalnum((unsigned char)*p) && *p != '_')
                        return NULL;
        return e;
}

/*
 * Whether main.cpp's variable var is an abbreviation of the attribute's
 * name or the other way round, the way aclnn and OpDef names differ: a
 * prefix (eps for epsilon, padding for pads), a flag's "is" or "use"
 * (training for is_training), or the letters of one in order in the other
 * with the same first and last letters (kernelSize for ksize).  Only for names of
 * three letters or more, and only where name matching left both unbound.
 */
static bool abbreviation_matches(const char *var, const char *name)
{
        static const char *const flags[] = { "is", "use", "has", "enable", "with" };
        char v[128], n[128];
        const char *shorter, *longer;

        draft_plain_name(var, v, sizeof(v));
        draft_plain_name(name, n, sizeof(n));
        if (strlen(v) > 3 && v[strlen(v) - 1] == 's')
                v[strlen(v) - 1] = '\0';
        if (strlen(n) > 3 && n[strlen(n) - 1] == 's')
                n[strlen(n) - 1] = '\0';
        shorter = strlen(v) <= strlen(n) ? v : n;
        longer = shorter == v ? n : v;
        if (strlen(shorter) < 3 || strcmp(v, n) == 0)
                return strlen(shorter) >= 3;
        if (strncmp(longer, shorter, strlen(shorter)) == 0)
                return true;
        for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
                if (strncmp(longer, flags[i], strlen(flags[i])) == 0 &&
                    strcmp(longer + strlen(flags[i]), shorter) == 0)
                        return true;
        /*
         * the letters in order: from the first to the last, and at least half
         * of the longer name's (top is not transpose_output, dim not
         * dilation_mode)
         */
        if (shorter[0] != longer[0] || shorter[strlen(shorter) - 1] != longer[strlen(longer) - 1] ||
            2 * strlen(shorter) < strlen(longer))
                return false;
        for (const char *p = shorter, *q = longer; *q; q++)
                if (*q == *p && !*++p)
                        return true;
        return false;
}

/* Whether value v is of the kind attribute a takes (0 and 1 do for a bool). */
static bool attr_fits(const struct attr *a, const json_t *v)
{
        const char *t = a->type;
        const json_t *e;
        size_t i;

        if (!t[0] || strcmp(t, "any") == 0)
                return true; /* an older runtime does not say */
        if (strcmp(t, "bool") == 0)
                return json_is_boolean(v) ||
                       (json_is_integer(v) && (json_integer_value(v) & ~(json_int_t)1) == 0);
        if (strcmp(t, "int") == 0)
                return json_is_integer(v) ||
                       (json_is_real(v) &&
                        json_real_value(v) == (double)(json_int_t)json_real_value(v));
        if (strcmp(t, "float") == 0)
                return json_is_number(v);
        if (strcmp(t, "string") == 0)
                return json_is_string(v);
        if (strncmp(t, "list_", 5) != 0 || !json_is_array(v))
                return false;
        json_array_foreach(v, i, e)
        {
                if (strcmp(t, "list_int") == 0 && !json_is_integer(e))
                        return false;
                if (strcmp(t, "list_float") == 0 && !json_is_number(e))
                        return false;
                if (strcmp(t, "list_bool") == 0 && !json_is_boolean(e) &&
                    !(json_is_integer(e) && (json_integer_value(e) & ~(json_int_t)1) == 0))
                        return false;
                if (strcmp(t, "list_list_int") == 0 && !json_is_array(e))
                        return false;
        }
        return true;
}

static bool value_fits(const struct attr *a, const json_t *arg)
{
        return draft_arg_is(arg, "value") && attr_fits(a, json_object_get(arg, "value"));
}

/*
 * Binds main.cpp's arguments to the OpDef.  Values go to attributes by
 * name, then by abbreviation, then the ones left in order to the
 * attributes left they fit (a list to a list attribute, 0 or false to a
 * bool).  Tensors go by name (unless by_name is false: the names misled),
 * then the others in order: to the inputs and then the outputs left (a ref
 * output takes its input when the call passes it once).  Where the call
 * passes more tensors than the kernel takes (aclnn takes a tensor only to
 * check or to size another), the last go to the outputs and the extra ones
 * before them are dropped; where it passes fewer, the trailing optional
 * inputs are left out.  -EINVAL and why when the tensors do not add up.
 */
int draft_bind_example(const struct opdef *def, const json_t *args, bool by_name,
                       struct example_binding *b, char *why, size_t why_size)
{
        size_t n = json_array_size(args), tensors = 0, free_in = 0, free_out = 0, free_ref = 0;
        size_t values = 0, numeric = 0, slots, drop = 0, absent = 0, trailing_optional = 0;
        bool used[64] = { false }, with_values = false, skip_refs = false;

        memset(b, 0, sizeof(*b));
        for (size_t i = 0; i < NPU_MAX_TENSORS; i++)
                b->input[i] = b->output[i] = -1;
        for (size_t i = 0; i < DRAFT_MAX_ATTRS; i++)
                b->attr[i] = -1;
        if (n > ARRAY_SIZE(used))
                n = ARRAY_SIZE(used);
        for (size_t a = 0; a < n; a++) {
                const json_t *arg = json_array_get(args, a);
                const char *var = arg_var(arg);
                bool tensor = tensor_like(arg);
                if (!var)
                        continue;
                for (size_t k = 0; k < def->n_inputs && !used[a] && (by_name || !tensor); k++)
                        if (b->input[k] < 0 && example_name_matches(var, def->inputs[k].name) &&
                            (tensor ||
                             (draft_arg_is(arg, "value") && def->inputs[k].type != PARAM_DYNAMIC &&
                              !json_is_string(json_object_get(arg, "value"))))) {
                                b->input[k] = (int)a;
                                used[a] = true;
                        }
                for (size_t k = 0; k < def->n_outputs && !used[a] && tensor && by_name; k++)
                        if (b->output[k] < 0 && !def->outputs[k].undeclared &&
                            example_name_matches(var, def->outputs[k].name)) {
                                b->output[k] = (int)a;
                                used[a] = true;
                        }
                for (size_t k = 0; k < def->n_attrs && !used[a] && !tensor; k++)
                        if (b->attr[k] < 0 && example_name_matches(var, def->attrs[k].name)) {
                                b->attr[k] = (int)a;
                                used[a] = true;
                        }
        }
        /* values by abbreviation: one attribute for one variable, of its kind */
        for (size_t a = 0; a < n; a++) {
                const json_t *arg = json_array_get(args, a);
                const char *var = arg_var(arg);
                size_t found = 0, pick = 0;
                if (used[a] || !var || tensor_like(arg))
                        continue;
                for (size_t k = 0; k < def->n_attrs; k++)
                        if (b->attr[k] < 0 && abbreviation_matches(var, def->attrs[k].name) &&
                            value_fits(&def->attrs[k], arg)) {
                                found++;
                                pick = k;
                        }
                if (found != 1)
                        continue;
                for (size_t o = 0; o < n; o++) /* and no other value abbreviates it */
                        found += o != a && !used[o] && arg_var(json_array_get(args, o)) &&
                                 !tensor_like(json_array_get(args, o)) &&
                                 abbreviation_matches(arg_var(json_array_get(args, o)),
                                                      def->attrs[pick].name);
                if (found == 1) {
                        b->attr[pick] = (int)a;
                        used[a] = true;
                }
        }
        for (size_t a = 0; a < n; a++) {
                const json_t *arg = json_array_get(args, a);
                if (used[a])
                        continue;
                if (tensor_like(arg))
                        tensors++;
                else
                        values++;
        }
        for (size_t k = 0; k < def->n_inputs; k++)
                free_in += b->input[k] < 0;

        for (size_t k = 0; k < def->n_outputs; k++) {
                if (b->output[k] >= 0 || def->outputs[k].undeclared)
                        continue;
                free_out++;
                free_ref += def->outputs[k].ref;
        }
        /*
         * When the tensors fall short, the numbers and number lists the call
         * passes stand for inputs too (an aclScalar, aclScalarList or
         * aclIntArray where the OpDef has a tensor), in their places.
         */
        for (size_t a = 0; a < n; a++)
                numeric += !used[a] && numeric_value(json_array_get(args, a));
        /* but not where the call leaves out trailing optional inputs: those are absent */
        for (size_t k = def->n_inputs; k-- > 0;) {
                if (b->input[k] >= 0)
                        continue;
                if (def->inputs[k].type != PARAM_OPTIONAL)
                        break;
                trailing_optional++;
        }
        if (tensors < free_in + free_out - free_ref &&
            free_in + free_out - free_ref - tensors <= trailing_optional)
                numeric = 0;
        if (tensors != free_in + free_out && tensors != free_in + free_out - free_ref &&
            (tensors + numeric == free_in + free_out ||
             tensors + numeric == free_in + free_out - free_ref)) {
                with_values = true;
                tensors += numeric;
                values -= numeric;
        }
        slots = free_in + free_out;
        if (tensors == slots - free_ref && free_ref)
                skip_refs = true;
        else if (tensors > slots && tensors > free_in + free_out - free_ref && free_out) {
                /* the call passes the ref tensors once: the outputs are the last tensors */
                skip_refs = free_ref > 0;
                drop = tensors - (slots - (skip_refs ? free_ref : 0));
        } else if (tensors < slots - free_ref) {
                /* trailing optional inputs the call does not pass */
                size_t short_by = slots - free_ref - tensors;
                skip_refs = free_ref > 0;
                for (size_t k = def->n_inputs; k-- > 0 && absent < short_by;) {
                        if (b->input[k] >= 0)
                                continue;
                        if (def->inputs[k].type != PARAM_OPTIONAL)
                                break;
                        absent++;
                }
                if (absent < short_by)
                        absent = 0;
        }
        if (tensors + absent != slots - (skip_refs ? free_ref : 0) + drop) {
                char left[256] = "";
                size_t len = 0;
                for (size_t k = 0; k < def->n_inputs + def->n_outputs && len + 1 < sizeof(left);
                     k++) {
                        bool input = k < def->n_inputs;
                        const struct param *p =
                            input ? &def->inputs[k] : &def->outputs[k - def->n_inputs];
                        if ((input ? b->input[k] : b->output[k - def->n_inputs]) >= 0 ||
                            p->undeclared)
                                continue;
                        len += (size_t)snprintf(left + len, sizeof(left) - len, "%s%s",
                                                len ? ", " : "", p->name);
                }
                snprintf(why, why_size,
                         "it passes %zu tensors for the %zu inputs and outputs of %s no argument "
                         "is named after (%s)%s",
                         tensors, slots, def->type, left,
                         tensors < slots ? ", and the ones it leaves out are not optional inputs"
                                         : "");
                return -EINVAL;
        }
        /* the absent inputs: the last free optional ones */
        for (size_t k = def->n_inputs, left = absent; k-- > 0 && left;)
                if (b->input[k] < 0) {
                        b->input[k] = EXAMPLE_ABSENT;
                        left--;
                }
        b->absent = absent;
        /* the tensors in order, the dropped ones between the inputs and the outputs */
        {
                size_t in_slots = 0, seen = 0;
                for (size_t k = 0; k < def->n_inputs; k++)
                        in_slots += b->input[k] == -1;
                for (size_t a = 0, k = 0; a < n; a++) {
                        const json_t *arg = json_array_get(args, a);
                        if (used[a] || (!tensor_like(arg) && !(with_values && numeric_value(arg))))
                                continue;
                        if (seen++ >= in_slots && drop && b->dropped < drop) {
                                size_t len = strlen(b->dropped_names);
                                snprintf(b->dropped_names + len, sizeof(b->dropped_names) - len,
                                         "%s%s", len ? ", " : "",
                                         json_string_value(json_object_get(arg, "expr")) ?: "?");
                                b->dropped++;
                                used[a] = true;
                                continue;
                        }
                        for (; k < def->n_inputs + def->n_outputs; k++) {
                                bool input = k < def->n_inputs;
                                const struct param *p =
                                    input ? &def->inputs[k] : &def->outputs[k - def->n_inputs];
                                int *slot = input ? &b->input[k] : &b->output[k - def->n_inputs];
                                if (*slot >= 0 || *slot == EXAMPLE_ABSENT || p->undeclared ||
                                    (skip_refs && !input && p->ref))
                                        continue;
                                *slot = (int)a;
                                used[a] = true;
                                k++;
                                break;
                        }
                }
        }
        /*
         * The values left, in order, to the attributes left: only where there
         * is one way of placing them in the OpDef's order with each of the
         * kind of its attribute (an argument init cannot read takes a place
         * of any kind, and binds nothing).  Where there are several ways (the
         * call leaves out attributes of the same kind) none is bound: an
         * attribute's default is better than a guess, and a note says so.
         */
        {
                size_t order[64], m = 0, free_k[DRAFT_MAX_ATTRS], nf = 0;
                unsigned char ways[65][DRAFT_MAX_ATTRS + 1]; /* 0, 1, or 2 for "more than one" */

                for (size_t a = 0; a < n; a++)
                        if (!used[a] && !tensor_like(json_array_get(args, a)))
                                order[m++] = a;
                for (size_t k = 0; k < def->n_attrs && nf < DRAFT_MAX_ATTRS; k++)
                        if (b->attr[k] < 0)
                                free_k[nf++] = k;
                for (size_t j = 0; j <= nf; j++)
                        ways[0][j] = 1;
                for (size_t i = 1; i <= m; i++) {
                        const json_t *arg = json_array_get(args, order[i - 1]);
                        ways[i][0] = 0;
                        for (size_t j = 1; j <= nf; j++) {
                                unsigned w = ways[i][j - 1];
                                if (!draft_arg_is(arg, "value") ||
                                    value_fits(&def->attrs[free_k[j - 1]], arg))
                                        w += ways[i - 1][j - 1];
                                ways[i][j] = (unsigned char)(w > 2 ? 2 : w);
                        }
                }
                if (m <= nf && ways[m][nf] == 1) {
                        for (size_t i = m, j = nf; i > 0; j--) {
                                const json_t *arg = json_array_get(args, order[i - 1]);
                                if (ways[i][j - 1])
                                        continue; /* the i-th value is placed before j */
                                if (draft_arg_is(arg, "value"))
                                        b->attr[free_k[j - 1]] = (int)order[i - 1];
                                i--;
                        }
                } else
                        b->values_left = values;
        }
        return 0;
}

/* A value main.cpp passes as the attribute's type says: 0/1 for a bool, 2 for a float. */
json_t *draft_attr_value(const struct attr *a, const json_t *v)
{
        const char *type = a->type;

        if (!type[0] && a->default_value) /* an older runtime: the default says */
                type = json_is_boolean(a->default_value) ? "bool"
                       : json_is_real(a->default_value)  ? "float"
                                                         : "";
        if (strcmp(type, "bool") == 0 && json_is_integer(v))
                return json_boolean(json_integer_value(v) != 0);
        if (strcmp(type, "float") == 0 && json_is_integer(v))
                return json_real((double)json_integer_value(v));
        if (strcmp(type, "int") == 0 && json_is_real(v) &&
            json_real_value(v) == (double)(json_int_t)json_real_value(v))
                return json_integer((json_int_t)json_real_value(v));
        if (strcmp(type, "list_float") == 0 && json_is_array(v)) {
                json_t *out = json_array(), *e;
                size_t i;
                json_array_foreach(v, i, e)
                    json_array_append_new(out, json_real(json_number_value(e)));
                return out;
        }
        if ((strncmp(type, "list_", 5) == 0 && !json_is_array(v)) ||
            (strcmp(type, "string") == 0 && !json_is_string(v)))
                return NULL; /* not what the attribute takes: its default stays */
        return json_deep_copy(v);
}

/*
 * Whether every tensor bound to an input has a dtype of the kind the input
 * takes (an integer tensor for an integer input, a float one for a float).
 */
bool draft_binding_kinds_agree(const struct opdef *def, const json_t *args,
                               const struct example_binding *b)
{
        for (size_t k = 0; k < def->n_inputs; k++) {
                const json_t *arg =
                    b->input[k] >= 0 ? json_array_get(args, (size_t)b->input[k]) : NULL;
                const char *dtype = arg ? draft_arg_dtype(arg) : NULL;
                if (dtype && def->inputs[k].n_dtypes &&
                    !draft_param_lists(&def->inputs[k], dtype) &&
                    !draft_same_kind(&def->inputs[k], dtype))
                        return false;
        }
        return true;
}

/*
 * Binds main.cpp's arguments by the order of the aclnn call CANN generates
 * for an OpDef: every input, then every attribute, then every output (a
 * ref output, which shares its input's tensor, only once), each in the
 * OpDef's order, nullptr for an optional input left out.  Only where the
 * count is exactly that and every argument is of its place's kind: a
 * tensor (or a number standing for one) at an input, nullptr only at an
 * optional one; a value the attribute can take, or one init cannot read,
 * at an attribute; a tensor at an output.  A hand-written aclnn wrapper
 * with another order seldom fits all of that, and then names bind instead.
 * -ENOENT when it does not fit.
 */
int draft_bind_signature(const struct opdef *def, const json_t *args, struct example_binding *b)
{
        size_t n = json_array_size(args), outs = 0, a = 0;
        bool skip_refs;

        for (size_t k = 0; k < def->n_outputs; k++)
                outs += !def->outputs[k].undeclared;
        if (n == def->n_inputs + def->n_attrs + outs)
                skip_refs = false;
        else if (n == def->n_inputs + def->n_attrs + def->n_outputs_declared &&
                 def->n_outputs_declared < outs)
                skip_refs = true;
        else
                return -ENOENT;
        memset(b, 0, sizeof(*b));
        for (size_t i = 0; i < NPU_MAX_TENSORS; i++)
                b->input[i] = b->output[i] = -1;
        for (size_t i = 0; i < DRAFT_MAX_ATTRS; i++)
                b->attr[i] = -1;
        for (size_t k = 0; k < def->n_inputs; k++, a++) {
                const json_t *arg = json_array_get(args, a);
                if (draft_arg_is(arg, "null")) {
                        if (def->inputs[k].type != PARAM_OPTIONAL)
                                return -ENOENT;
                        b->input[k] = EXAMPLE_ABSENT;
                        b->absent++;
                } else if (draft_arg_is(arg, "tensor") || draft_arg_is(arg, "list") ||
                           (numeric_value(arg) && def->inputs[k].type != PARAM_DYNAMIC)) {
                        b->input[k] = (int)a;
                } else
                        return -ENOENT;
        }
        for (size_t k = 0; k < def->n_attrs; k++, a++) {
                const json_t *arg = json_array_get(args, a);
                if (tensor_like(arg))
                        return -ENOENT;
                if (draft_arg_is(arg, "value") && !value_fits(&def->attrs[k], arg))
                        return -ENOENT;
                if (draft_arg_is(arg, "value"))
                        b->attr[k] = (int)a;
        }
        for (size_t k = 0; k < def->n_outputs; k++) {
                const json_t *arg;
                if (def->outputs[k].undeclared || (skip_refs && def->outputs[k].ref))
                        continue;
                arg = json_array_get(args, a++);
                if (!draft_arg_is(arg, "tensor") && !draft_arg_is(arg, "list"))
                        return -ENOENT;
                b->output[k] = (int)a - 1;
        }
        return draft_binding_kinds_agree(def, args, b) ? 0 : -ENOENT;
}

/* Where name is among the first n of the aclnn declaration's parameters, once: its index, else -1. */
static int launch_param(const json_t *params, const json_t *name, size_t n)
{
        int at = -1;

        if (!json_is_string(name))
                return -1;
        for (size_t i = 0; i < n; i++)
                if (json_equal(json_array_get(params, i), name)) {
                        if (at >= 0)
                                return -1;
                        at = (int)i;
                }
        return at;
}

/*
 * Binds main.cpp's arguments through a hand-written aclnn wrapper (launch,
 * from draft_read_launcher): the call's arguments are the declaration's
 * parameters in order, and a parameter the level-0 launch hands the kernel
 * under its own name is the OpDef input, output or attribute at its place
 * in OP_INPUT, OP_OUTPUT or OP_ATTR.  Every input the launch passes must be
 * such a parameter (one the wrapper computes -- sorted indices, a shape
 * tensor -- cannot be read from the example), OP_INPUT must have as many
 * tensors as the OpDef has inputs, OP_OUTPUT as many as its outputs (or its
 * outputs that are not refs), and no parameter may stand for two places.
 * An attribute the launch converts (an expression) or whose value does not
 * fit keeps the OpDef's default.  The shapes are the example's: a wrapper
 * that reshapes a tensor and passes it on under the same name is not
 * followed.  -ENOENT and why when it does not fit.
 */
int draft_bind_launcher(const struct opdef *def, const json_t *args, const json_t *launch,
                        struct example_binding *b, char *why, size_t why_size)
{
        const json_t *params = json_object_get(launch, "params");
        const json_t *inputs = json_object_get(launch, "inputs");
        const json_t *outputs = json_object_get(launch, "outputs");
        const json_t *attrs = json_object_get(launch, "attrs");
        const char *launcher = json_string_value(json_object_get(launch, "launcher"));
        size_t n = json_array_size(args), outs = 0, plain = 0, m = json_array_size(outputs);
        bool used[64] = { false }, all_outputs;

        if (json_array_size(params) != n + 2 || n > ARRAY_SIZE(used))
                return snprintf(why, why_size,
                                "%s declares %zu parameters besides the workspace size and "
                                "executor, the call passes %zu",
                                json_string_value(json_object_get(launch, "header")),
                                json_array_size(params) >= 2 ? json_array_size(params) - 2 : 0, n),
                       -ENOENT;
        if (json_array_size(inputs) != def->n_inputs)
                return snprintf(why, why_size,
                                "%s launches %s with %zu input tensors where the OpDef has %zu",
                                launcher, def->type, json_array_size(inputs), def->n_inputs),
                       -ENOENT;
        for (size_t k = 0; k < def->n_outputs; k++) {
                outs += !def->outputs[k].undeclared;
                plain += !def->outputs[k].undeclared && !def->outputs[k].ref;
        }
        if (m != outs && m != plain)
                return snprintf(why, why_size,
                                "%s launches %s with %zu output tensors where the OpDef has %zu",
                                launcher, def->type, m, outs),
                       -ENOENT;
        all_outputs = m == outs;
        memset(b, 0, sizeof(*b));
        for (size_t i = 0; i < NPU_MAX_TENSORS; i++)
                b->input[i] = b->output[i] = -1;
        for (size_t i = 0; i < DRAFT_MAX_ATTRS; i++)
                b->attr[i] = -1;
        for (size_t k = 0; k < def->n_inputs; k++) {
                const json_t *name = json_array_get(inputs, k);
                int at = launch_param(params, name, n);
                const json_t *arg = at >= 0 ? json_array_get(args, (size_t)at) : NULL;
                if (at < 0 || used[at])
                        return snprintf(why, why_size,
                                        "%s passes %s as the OpDef's input %s, which is no "
                                        "parameter of %s by that name: the wrapper computes or "
                                        "renames it",
                                        launcher,
                                        json_is_string(name) ? json_string_value(name)
                                                             : "an expression",
                                        def->inputs[k].name,
                                        json_string_value(json_object_get(launch, "header"))),
                               -ENOENT;
                used[at] = true;
                if (draft_arg_is(arg, "null") && def->inputs[k].type == PARAM_OPTIONAL) {
                        b->input[k] = EXAMPLE_ABSENT;
                        b->absent++;
                } else if (draft_arg_is(arg, "tensor") || draft_arg_is(arg, "list") ||
                           (numeric_value(arg) && def->inputs[k].type != PARAM_DYNAMIC))
                        b->input[k] = at;
                else
                        return snprintf(why, why_size,
                                        "%s passes the call's %s as the OpDef's input %s, but the "
                                        "example gives no tensor there",
                                        launcher, json_string_value(name), def->inputs[k].name),
                               -ENOENT;
        }
        for (size_t k = 0, o = 0; k < def->n_outputs; k++) {
                const json_t *name, *arg;
                int at;
                if (def->outputs[k].undeclared || (!all_outputs && def->outputs[k].ref))
                        continue;
                name = json_array_get(outputs, o++);
                at = launch_param(params, name, n);
                arg = at >= 0 ? json_array_get(args, (size_t)at) : NULL;
                if (at < 0 || used[at] ||
                    !(draft_arg_is(arg, "tensor") || draft_arg_is(arg, "list") ||
                      draft_arg_is(arg, "null")))
                        return snprintf(why, why_size,
                                        "%s passes %s as the OpDef's output %s, which is no "
                                        "tensor the aclnn call is given",
                                        launcher,
                                        json_is_string(name) ? json_string_value(name)
                                                             : "an expression",
                                        def->outputs[k].name),
                               -ENOENT;
                used[at] = true;
                b->output[k] = at;
        }
        for (size_t k = 0; json_array_size(attrs) == def->n_attrs && k < def->n_attrs; k++) {
                int at = launch_param(params, json_array_get(attrs, k), n);
                if (at < 0 || used[at] ||
                    !draft_arg_is(json_array_get(args, (size_t)at), "value") ||
                    !value_fits(&def->attrs[k], json_array_get(args, (size_t)at)))
                        continue;
                used[at] = true;
                b->attr[k] = at;
        }
        for (size_t i = 0; i < n; i++) {
                const json_t *arg = json_array_get(args, i);
                if (used[i])
                        continue;
                if (draft_arg_is(arg, "value"))
                        b->values_left++;
                else if (draft_arg_is(arg, "tensor") || draft_arg_is(arg, "list")) {
                        size_t len = strlen(b->dropped_names);
                        snprintf(b->dropped_names + len, sizeof(b->dropped_names) - len, "%s%s",
                                 b->dropped ? ", " : "",
                                 json_string_value(json_array_get(params, i)) ?: "?");
                        b->dropped++;
                }
        }
        if (!draft_binding_kinds_agree(def, args, b))
                return snprintf(why, why_size,
                                "bound through %s, the example's tensors have dtypes of another "
                                "kind than the OpDef's inputs",
                                launcher),
                       -ENOENT;
        return 0;
}
