/* SPDX-License-Identifier: MIT */
/*
 * An operator's examples (examples/<dir> with main.cpp and gen_data.py) as
 * cases: main.cpp's aclnn call (example-call.c) gives the shapes, dtypes
 * and attribute values once its arguments are bound to the OpDef
 * (example-bind.c); gen_data.py, run in the sandbox, gives the input files
 * and golden files, and the values main.cpp reads from files.
 */
#include "draft-internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

/* ------------------------------------------------------------ arguments and gen_data.py */

struct example_wait {
        json_t *answer; /* NULL when out of memory */
        bool done;
};

static void on_example_done(json_t *answer, void *userdata)
{
        struct example_wait *w = userdata;

        w->answer = answer;
        w->done = true;
}

/* "float16" of a main.cpp tensor argument, or NULL. */
const char *draft_arg_dtype(const json_t *arg)
{
        if (json_is_string(json_object_get(arg, "kind")) &&
            strcmp(json_string_value(json_object_get(arg, "kind")), "list") == 0)
                arg = json_array_get(json_object_get(arg, "items"), 0);
        return json_string_value(json_object_get(arg, "dtype"));
}

bool draft_arg_is(const json_t *arg, const char *kind)
{
        return strcmp(json_string_value(json_object_get(arg, "kind")) ?: "", kind) == 0;
}

/* The shape of a tensor argument, or of each element of a list; NULL when unknown. */
static json_t *arg_shape(const json_t *arg)
{
        json_t *items, *t, *list;
        size_t i;

        if (draft_arg_is(arg, "tensor"))
                return json_incref(json_object_get(arg, "shape"));
        if (!draft_arg_is(arg, "list"))
                return NULL;
        items = json_object_get(arg, "items");
        list = json_array();
        json_array_foreach(items, i, t)
        {
                if (!json_object_get(t, "shape")) {
                        json_decref(list);
                        return NULL;
                }
                json_array_append(list, json_object_get(t, "shape"));
        }
        return list;
}

/* A json_pack's result, or NULL with why "out of memory". */
static json_t *packed(json_t *v, char *why, size_t why_size)
{
        if (!v)
                snprintf(why, why_size, "out of memory");
        return v;
}

/*
 * The data of one input for the example's golden: {"file"}, {"files"} or
 * {"values"}; NULL (why) when main.cpp does not say.
 */
static json_t *arg_data(const json_t *arg, const json_t *written, char *why, size_t why_size)
{
        json_t *items = draft_arg_is(arg, "list") ? json_object_get(arg, "items") : NULL, *t;
        json_t *files = json_array();
        size_t i;

        if (draft_arg_is(arg, "value")) {
                /* a scalar or array main.cpp passes where the OpDef has an input tensor */
                const json_t *v = json_object_get(arg, "value");
                json_decref(files);
                if (json_is_number(v) || json_is_boolean(v))
                        return packed(json_pack("{s:[O]}", "values", v), why, why_size);
                return packed(json_pack("{s:O}", "values", v), why, why_size);
        }
        if (!items) {
                const char *f = json_string_value(json_object_get(arg, "file"));
                json_decref(files);
                if (f && json_object_get(written, f))
                        return packed(json_pack("{s:s}", "file", f), why, why_size);
                if (f) {
                        snprintf(why, why_size,
                                 "main.cpp reads %s, which gen_data.py did not write", f);
                        return NULL;
                }
                if (json_object_get(arg, "values"))
                        return packed(json_pack("{s:O}", "values", json_object_get(arg, "values")),
                                      why, why_size);
                snprintf(why, why_size, "main.cpp gives no data for %s",
                         json_string_value(json_object_get(arg, "expr")) ?: "an input");
                return NULL;
        }
        json_array_foreach(items, i, t)
        {
                const char *f = json_string_value(json_object_get(t, "file"));
                if (!f || !json_object_get(written, f)) {
                        snprintf(why, why_size, "main.cpp reads no file gen_data.py wrote for %s",
                                 json_string_value(json_object_get(t, "var")) ?: "a list element");
                        json_decref(files);
                        return NULL;
                }
                json_array_append_new(files, json_string(f));
        }
        return packed(json_pack("{s:o}", "files", files), why, why_size);
}

/*
 * The golden files gen_data.py wrote for the outputs: under output/, with
 * "golden" in the name; one output takes the only one, several take the one
 * naming them, else the files in order.  NULL when they cannot be told.
 */
static json_t *golden_outputs(const struct opdef *def, const json_t *out_args,
                              const json_t *written, char *why, size_t why_size)
{
        const char *path;
        json_t *size, *golden = json_array(), *map = json_object();
        size_t wanted = 0, used = 0;

        json_object_foreach((json_t *)written, path, size)
        {
                if (strncmp(path, "output/", 7) == 0 && strstr(path, "golden"))
                        json_array_append_new(golden, json_string(path));
        }
        /* sorted: golden_out1.bin before golden_out2.bin */
        for (size_t i = 1; i < json_array_size(golden); i++)
                for (size_t j = i;
                     j > 0 && strcmp(json_string_value(json_array_get(golden, j - 1)),
                                     json_string_value(json_array_get(golden, j))) > 0;
                     j--) {
                        json_t *t = json_incref(json_array_get(golden, j));
                        json_array_set(golden, j, json_array_get(golden, j - 1));
                        json_array_set_new(golden, j - 1, t);
                }
        for (size_t k = 0; k < def->n_outputs; k++) {
                const json_t *a = json_array_get(out_args, k);
                if (draft_arg_is(a, "null"))
                        continue; /* an output the call asks nothing of */
                wanted +=
                    draft_arg_is(a, "list") ? json_array_size(json_object_get(a, "items")) : 1;
        }
        if (json_array_size(golden) == 0) {
                snprintf(why, why_size, "gen_data.py wrote no output/*golden*.bin");
                goto fail;
        }
        /* by name first: golden_<output>.bin */
        for (size_t k = 0; k < def->n_outputs && def->n_outputs > 1; k++) {
                for (size_t g = 0; g < json_array_size(golden); g++) {
                        const char *f = json_string_value(json_array_get(golden, g));
                        const char *base = strrchr(f, '/') + 1;
                        char want[200];
                        snprintf(want, sizeof(want), "golden_%s.bin", def->outputs[k].name);
                        if (strcmp(base, want) == 0) {
                                json_object_set_new(map, def->outputs[k].name, json_string(f));
                                used++;
                        }
                }
        }
        if (used == 0 && json_array_size(golden) == wanted) {
                size_t g = 0;
                for (size_t k = 0; k < def->n_outputs; k++) {
                        const json_t *a = json_array_get(out_args, k);
                        if (draft_arg_is(a, "null"))
                                continue;
                        if (draft_arg_is(a, "list")) {
                                json_t *files = json_array();
                                for (size_t e = 0; e < json_array_size(json_object_get(a, "items"));
                                     e++)
                                        json_array_append(files, json_array_get(golden, g++));
                                json_object_set_new(map, def->outputs[k].name, files);
                        } else {
                                json_object_set(map, def->outputs[k].name,
                                                json_array_get(golden, g++));
                        }
                }
        } else if (used == 0 && def->n_outputs >= 1 && json_array_size(golden) == 1 &&
                   !draft_arg_is(json_array_get(out_args, 0), "list")) {
                /* one golden file: the first output's (the others unchecked) */
                json_object_set(map, def->outputs[0].name, json_array_get(golden, 0));
        } else if (used == 0) {
                snprintf(why, why_size,
                         "gen_data.py wrote %zu golden files for %zu output tensors; which is "
                         "which cannot be told",
                         json_array_size(golden), wanted);
                goto fail;
        }
        json_decref(golden);
        return map;
fail:
        json_decref(golden);
        json_decref(map);
        return NULL;
}

/*
 * The files gen_data.py writes ({path: bytes}), run in the sandbox; NULL and
 * why otherwise.  read ({path: dtype}, or NULL) asks for the values of small
 * files too, into *ret_contents ({path: [values]}).
 */
static json_t *run_gen_data(struct draft_state *st, const char *example, const json_t *read,
                            json_t **ret_contents, char *why, size_t why_size)
{
        const char *tmp = getenv("TMPDIR");
        struct example_wait w = { 0 };
        char dir[PATH_MAX], abs[PATH_MAX];
        json_t *job, *files = NULL;
        int r;

        if (format_path(dir, sizeof(dir), "%s/ascendopt-example.XXXXXX",
                        tmp && *tmp ? tmp : "/tmp") < 0 ||
            !mkdtemp(dir) || format_path(abs, sizeof(abs), "%s/%s", st->opdir, example) < 0) {
                snprintf(why, why_size, "cannot make a scratch directory");
                return NULL;
        }
        job = json_pack("{s:s, s:s, s:{}, s:o}", "mode", "example", "example", abs, "values",
                        "read", read ? json_incref((json_t *)read) : json_object());
        r = job ? npu_golden_run_job(st->sim->env.runner, st->opdir, dir, job, true, 300,
                                     on_example_done, &w)
                : -ENOMEM;
        json_decref(job);
        while (r == 0 && !w.done)
                event_base_loop(st->sim->base, EVLOOP_ONCE);
        if (r < 0)
                snprintf(why, why_size, "cannot run gen_data.py: %s", child_strerror(r));
        else if (!w.answer)
                snprintf(why, why_size, "gen_data.py: out of memory");
        else if (strcmp(json_string_value(json_object_get(w.answer, "status")) ?: "", "ok") != 0)
                snprintf(why, why_size, "%s",
                         json_string_value(json_object_get(w.answer, "why"))
                             ?: "gen_data.py failed");
        else {
                files = json_incref(json_object_get(w.answer, "files"));
                if (ret_contents)
                        *ret_contents = json_incref(json_object_get(w.answer, "contents"));
        }
        json_decref(w.answer);
        rm_rf(dir);
        return files;
}

/* ------------------------------------------------------------ values main.cpp reads from files */

/*
 * Whether the values gen_data.py's file held (as the sandboxed child read
 * them: nothing it answers is trusted) are numbers, and for a shape
 * dimensions: integers from 0, at least one.
 */
static bool file_values_plain(const json_t *v, bool shape)
{
        const json_t *e;
        size_t i;

        if (!json_is_array(v) || (shape && !json_array_size(v)))
                return false;
        json_array_foreach(v, i, e)
        {
                if (shape ? !json_is_integer(e) || json_integer_value(e) < 0
                          : !json_is_number(e) && !json_is_boolean(e))
                        return false;
        }
        return true;
}

/*
 * Values main.cpp reads from files gen_data.py writes (an attribute, an
 * aclIntArray, a tensor's shape): gen_data.py runs first and they are put
 * in place, "value" for a value, "shape" for a tensor.  0 when there were
 * none or all are in place (*written then holds gen_data.py's files, or
 * NULL when it did not run); -ENOENT and why otherwise.
 */
static int example_file_values(struct draft_state *st, const char *example, json_t *args,
                               json_t **written, char *why, size_t why_size)
{
        json_t *read = json_object(), *contents = NULL, *arg, *v;
        char run_why[600] = "";
        size_t i;
        int r = 0;

        json_array_foreach(args, i, arg)
        {
                const char *f = json_string_value(json_object_get(arg, "file"));
                if (draft_arg_is(arg, "value") && f && json_object_get(arg, "elem"))
                        json_object_set(read, f, json_object_get(arg, "elem"));
                if (json_object_get(arg, "shape_file"))
                        json_object_set_new(
                            read, json_string_value(json_object_get(arg, "shape_file")),
                            json_string(json_string_value(json_object_get(arg, "shape_elem"))
                                            ?: "int64"));
        }
        if (!json_object_size(read)) {
                json_decref(read);
                return 0;
        }
        *written = run_gen_data(st, example, read, &contents, run_why, sizeof(run_why));
        json_array_foreach(args, i, arg)
        {
                const char *f = json_string_value(json_object_get(arg, "file"));
                const char *sf = json_string_value(json_object_get(arg, "shape_file"));
                if (r < 0 ||
                    (!(draft_arg_is(arg, "value") && f && json_object_get(arg, "elem")) && !sf))
                        continue;
                v = json_object_get(contents, sf ? sf : f);
                if (!file_values_plain(v, sf != NULL)) {
                        snprintf(
                            why, why_size, "%.200s/main.cpp reads %s (argument %s) from %s, %s",
                            example, sf ? "the shape" : "the value",
                            json_string_value(json_object_get(arg, "expr")) ?: "?", sf ? sf : f,
                            !*written ? run_why
                            : json_object_get(contents, sf ? sf : f)
                                ? (sf ? "which holds no dimensions" : "which holds no numbers")
                            : json_object_get(*written, sf ? sf : f)
                                ? "which is too large to be a value"
                                : "which gen_data.py did not write");
                        r = -ENOENT;
                } else if (sf) {
                        json_object_set(arg, "shape", v);
                } else {
                        json_object_set(arg, "value",
                                        json_is_true(json_object_get(arg, "scalar")) &&
                                                json_array_size(v) == 1
                                            ? json_array_get(v, 0)
                                            : v);
                        json_object_del(arg, "file");
                }
        }
        json_decref(read);
        json_decref(contents);
        return r;
}

/* ------------------------------------------------------------ the example as a case */

/* The shape of a scalar (1) or an int array (its length) an input is given as. */
static json_t *value_shape(const json_t *v)
{
        if (json_is_number(v) || json_is_boolean(v))
                return json_pack("[i]", 1);
        if (json_is_array(v) && json_array_size(v))
                return json_pack("[I]", (json_int_t)json_array_size(v));
        return NULL;
}

/*
 * One example (examples/DIR with main.cpp and gen_data.py) as a case:
 * shapes, dtypes and attribute values from main.cpp's aclnn call, whose
 * tensors are the OpDef's inputs then its outputs in order (attributes
 * between them); the golden from what gen_data.py writes.  0 with the case
 * appended, or -ENOENT and why when the example cannot be read.
 */
static int read_example(const struct opdef *def, const char *example, struct draft_state *st,
                        struct draft_notes *notes, char *why, size_t why_size)
{
        char path[PATH_MAX], golden_why[600] = "", name[129];
        json_t *call = NULL, *args, *arg;
        json_t *shapes = json_object(), *attrs = json_object(), *data = json_object();
        json_t *written = NULL, *outs = NULL;
        json_t *casted = json_array(), *v; /* tensors whose dtype aclnn casts */
        json_t *launch = NULL;             /* a hand-written wrapper's level-0 launch */
        struct example_binding b;
        char detail[400] = "", launch_why[400] = "";
        size_t i;
        int r = -ENOENT, launch_r;

        if (format_path(path, sizeof(path), "%s/%s/main.cpp", st->opdir, example) < 0) {
                r = format_error(why, why_size, -ENAMETOOLONG, "%s/%s: path too long", st->opdir,
                                 example);
                goto out;
        }
        if (draft_read_example_call(path, &call, why, why_size) < 0)
                goto out;
        args = json_object_get(call, "args");
        if (example_file_values(st, example, args, &written, why, why_size) < 0)
                goto out;
        launch_r = draft_read_launcher(st->opdir, def->type,
                                       json_string_value(json_object_get(call, "call")), &launch,
                                       launch_why, sizeof(launch_why));
        if (launch_r == -ENOMEM) {
                r = format_error(why, why_size, launch_r, "%s: out of memory", example);
                goto out;
        }
        if (launch_r == 0 &&
            draft_bind_launcher(def, args, launch, &b, launch_why, sizeof(launch_why)) == 0) {
                /* the wrapper's own launch says where each parameter goes */
                draft_note(notes,
                           "%s/main.cpp: %s bound to the OpDef by the names %s passes to %s's "
                           "launch in %s",
                           example, json_string_value(json_object_get(call, "call")),
                           json_string_value(json_object_get(launch, "header")), def->type,
                           json_string_value(json_object_get(launch, "launcher")));
        } else if (draft_bind_signature(def, args, &b) == 0) {
                /* the generated aclnn order: no names needed */
        } else if (draft_bind_example(def, args, true, &b, detail, sizeof(detail)) < 0 ||
                   !draft_binding_kinds_agree(def, args, &b)) {
                /* names that mislead (input_2 for the OpDef's second input, input1): by position */
                struct example_binding by_position;
                char position_detail[400];
                bool named = !detail[0];
                if (draft_bind_example(def, args, false, &by_position, position_detail,
                                       sizeof(position_detail)) == 0 &&
                    draft_binding_kinds_agree(def, args, &by_position)) {
                        b = by_position;
                        draft_note(
                            notes,
                            "%s/main.cpp: the tensors are bound to the OpDef by position, as their "
                            "names bind them to inputs of other dtypes",
                            example);
                } else if (!named) {
                        snprintf(why, why_size, "%.200s/main.cpp: %s: %s", example,
                                 json_string_value(json_object_get(call, "call")), detail);
                        goto out;
                }
        }
        if (b.dropped)
                draft_note(
                    notes,
                    "%s/main.cpp: %s passes %zu more tensor%s than the kernel takes (%s, which "
                    "aclnn uses for checks or sizes): left out, the last tensors are the outputs",
                    example, json_string_value(json_object_get(call, "call")), b.dropped,
                    b.dropped == 1 ? "" : "s", b.dropped_names);
        if (b.absent)
                draft_note(
                    notes,
                    "%s/main.cpp: %s passes no tensor for the last %zu optional input%s: left out",
                    example, json_string_value(json_object_get(call, "call")), b.absent,
                    b.absent == 1 ? "" : "s");
        for (size_t k = 0; k < def->n_inputs + def->n_outputs; k++) {
                bool input = k < def->n_inputs;
                const struct param *p = input ? &def->inputs[k] : &def->outputs[k - def->n_inputs];
                int at = input ? b.input[k] : b.output[k - def->n_inputs];
                json_t *shape;
                if (!input && (p->ref || at < 0))
                        continue; /* the input's; or InferShape's */
                if (at == EXAMPLE_ABSENT) {
                        json_object_set_new(shapes, p->name, json_null());
                        continue;
                }
                if (at < 0) {
                        snprintf(why, why_size,
                                 "%.200s/main.cpp: %s passes nothing for input %s; the OpDef of %s "
                                 "has %zu inputs and %zu outputs",
                                 example, json_string_value(json_object_get(call, "call")), p->name,
                                 def->type, def->n_inputs, def->n_outputs_declared);
                        goto out;
                }
                arg = json_array_get(args, (size_t)at);
                if (draft_arg_is(arg, "null") && !input && def->has_infer_shape) {
                        draft_note(notes,
                                   "%s/main.cpp: %s asks for no output %s (nullptr): its shape is "
                                   "InferShape's and it is not checked against a golden",
                                   example, json_string_value(json_object_get(call, "call")),
                                   p->name);
                        continue;
                }
                if (draft_arg_is(arg, "null")) {
                        if (!input || p->type != PARAM_OPTIONAL) {
                                snprintf(why, why_size,
                                         "%.200s/main.cpp: %s passes a null tensor for %s %s, "
                                         "which the OpDef requires",
                                         example, json_string_value(json_object_get(call, "call")),
                                         input ? "input" : "output", p->name);
                                goto out;
                        }
                        json_object_set_new(shapes, p->name, json_null());
                        continue;
                }
                shape = draft_arg_is(arg, "value") ? value_shape(json_object_get(arg, "value"))
                                                   : arg_shape(arg);
                if (!shape || (p->type == PARAM_DYNAMIC) != draft_arg_is(arg, "list")) {
                        snprintf(
                            why, why_size,
                            "%.200s/main.cpp: cannot tell the shape of %s %s (argument %.100s of "
                            "%s)",
                            example, input ? "input" : "output", p->name,
                            json_string_value(json_object_get(arg, "expr")) ?: "?",
                            json_string_value(json_object_get(call, "call")));
                        json_decref(shape);
                        goto out;
                }
                /*
                 * A dtype the OpDef does not list: aclnn casts between the
                 * example's tensor and the kernel's (an output computed as
                 * int32 and handed back as float32) -- the shape holds, the
                 * data does not.  An integer tensor where the OpDef wants a
                 * float input (or the reverse) is an argument bound wrongly.
                 */
                if (draft_arg_dtype(arg) && p->n_dtypes &&
                    !draft_param_lists(p, draft_arg_dtype(arg))) {
                        if (input && !draft_same_kind(p, draft_arg_dtype(arg))) {
                                snprintf(why, why_size,
                                         "%.200s/main.cpp: %s passes %s (%s) where the OpDef's "
                                         "input %s takes none of that kind of dtype: the aclnn "
                                         "call does not map onto the OpDef",
                                         example, json_string_value(json_object_get(call, "call")),
                                         json_string_value(json_object_get(arg, "expr"))
                                             ?: "a tensor",
                                         draft_arg_dtype(arg), p->name);
                                json_decref(shape);
                                goto out;
                        }
                        json_array_append_new(casted, json_string(p->name));
                        if (input && !golden_why[0])
                                snprintf(golden_why, sizeof(golden_why),
                                         "main.cpp's %s is %s, which the kernel's input %s is "
                                         "not (aclnn casts it), so the example's data cannot be "
                                         "fed to it",
                                         json_string_value(json_object_get(arg, "expr"))
                                             ?: "tensor",
                                         draft_arg_dtype(arg), p->name);
                        draft_note(
                            notes,
                            "%s: main.cpp's %s is %s where the OpDef's %s %s takes other dtypes "
                            "(aclnn casts): its shape is kept, its dtype is the OpDef's",
                            example, json_string_value(json_object_get(arg, "expr")) ?: "tensor",
                            draft_arg_dtype(arg), input ? "input" : "output", p->name);
                        json_object_set_new(shapes, p->name, shape);
                        continue;
                }
                json_object_set_new(shapes, p->name, shape);
                if (draft_arg_dtype(arg) && input)
                        snprintf(st->dtypes[k], sizeof(st->dtypes[0]), "%s", draft_arg_dtype(arg));
                else if (draft_arg_dtype(arg))
                        snprintf(st->out_dtypes[k - def->n_inputs], sizeof(st->out_dtypes[0]), "%s",
                                 draft_arg_dtype(arg));
        }
        st->have_dtypes = true;
        st->dtypes_from = "main.cpp";
        /* the attributes main.cpp passes, by name or in the OpDef's order */
        for (size_t a = 0; a < def->n_attrs; a++) {
                json_t *v;
                if (b.attr[a] < 0 ||
                    !draft_arg_is(json_array_get(args, (size_t)b.attr[a]), "value"))
                        continue;
                v = draft_attr_value(
                    &def->attrs[a],
                    json_object_get(json_array_get(args, (size_t)b.attr[a]), "value"));
                if (v)
                        json_object_set_new(attrs, def->attrs[a].name, v);
        }
        if (b.values_left)
                draft_note(
                    notes,
                    "%s/main.cpp passes %zu non-tensor arguments that match no attribute of the "
                    "OpDef by name, nor by position in one way only: not taken",
                    example, b.values_left);
        /* the golden: gen_data.py's inputs and golden files */
        if (!golden_why[0] && !written)
                written = run_gen_data(st, example, NULL, NULL, golden_why, sizeof(golden_why));
        for (size_t k = 0; written && k < def->n_inputs && !golden_why[0]; k++) {
                json_t *d;
                if (json_is_null(json_object_get(shapes, def->inputs[k].name)))
                        continue;
                d = arg_data(json_array_get(args, (size_t)b.input[k]), written, golden_why,
                             sizeof(golden_why));
                if (d)
                        json_object_set_new(data, def->inputs[k].name, d);
        }
        if (written && !golden_why[0]) {
                json_t *out_args = json_array();
                for (size_t k = 0; k < def->n_outputs; k++) {
                        int at = b.output[k];
                        const struct param *in = draft_find_input(def, def->outputs[k].name);
                        if (at < 0 && def->outputs[k].ref && in)
                                at = b.input[in - def->inputs];
                        json_array_append(out_args,
                                          at >= 0 ? json_array_get(args, (size_t)at) : json_null());
                }
                outs = golden_outputs(def, out_args, written, golden_why, sizeof(golden_why));
                json_decref(out_args);
                /* an output aclnn casts is not the kernel's: its golden does not apply */
                json_array_foreach(casted, i, v) json_object_del(outs, json_string_value(v));
                if (outs && !json_object_size(outs)) {
                        snprintf(golden_why, sizeof(golden_why),
                                 "the golden files are of outputs aclnn casts from the kernel's "
                                 "dtype");
                        json_decref(outs);
                        outs = NULL;
                }
        }
        draft_case_name(strrchr(example, '/') ? strrchr(example, '/') + 1 : example, st->cases,
                        name, sizeof(name));
        json_t *entry = json_pack("{s:s, s:O}", "name", name, "shapes", shapes);
        if (entry && json_object_size(attrs))
                json_object_set(entry, "attrs", attrs);
        if (entry && outs &&
            json_object_set_new(entry, "golden",
                                json_pack("{s:s, s:O, s:O}", "example", example, "inputs", data,
                                          "outputs", outs)) < 0) {
                json_decref(entry);
                entry = NULL;
        }
        if (json_array_append_new(st->cases, entry) < 0) {
                r = format_error(why, why_size, -ENOMEM, "%s: out of memory", example);
                goto out;
        }
        if (outs) {
                st->goldens++;
                draft_note(
                    notes,
                    "case %s from %s: shapes, dtypes%s from main.cpp (%s), inputs and golden "
                    "from what gen_data.py writes",
                    name, example, json_object_size(attrs) ? " and attributes" : "",
                    json_string_value(json_object_get(call, "call")));
        } else {
                draft_note(notes,
                           "case %s from %s: shapes, dtypes%s from main.cpp (%s); no golden: %s",
                           name, example, json_object_size(attrs) ? " and attributes" : "",
                           json_string_value(json_object_get(call, "call")), golden_why);
        }
        if (!json_object_size(st->attrs))
                json_object_update(st->attrs, attrs);
        r = 0;
out:
        /* a wrapper whose launch was read but did not bind says why, for --case */
        if (r < 0 && launch && launch_why[0]) {
                size_t len = strlen(why);
                snprintf(why + len, why_size - len, " (and %s)", launch_why);
        }
        json_decref(launch);
        json_decref(casted);
        json_decref(call);
        json_decref(shapes);
        json_decref(attrs);
        json_decref(data);
        json_decref(written);
        json_decref(outs);
        return r;
}

/* Cases from examples/ (each subdirectory with main.cpp and gen_data.py). */
int draft_read_examples(const struct opdef *def, struct draft_state *st, struct draft_notes *notes,
                        char *why, size_t why_size)
{
        char dir[PATH_MAX], *names[DRAFT_MAX_SOURCES];
        size_t n = 0, taken = 0;
        struct dirent *e;
        DIR *d;

        if (format_path(dir, sizeof(dir), "%s/examples", st->opdir) < 0)
                return format_error(why, why_size, -ENAMETOOLONG, "%s: path too long", st->opdir);
        d = opendir(dir);
        while (d && (e = readdir(d)) && n < DRAFT_MAX_SOURCES) {
                char probe[PATH_MAX];
                if (e->d_name[0] == '.' ||
                    format_path(probe, sizeof(probe), "%s/%s/gen_data.py", dir, e->d_name) < 0 ||
                    access(probe, R_OK) < 0 ||
                    format_path(probe, sizeof(probe), "%s/%s/main.cpp", dir, e->d_name) < 0 ||
                    access(probe, R_OK) < 0)
                        continue;
                names[n] = strdup(e->d_name);
                n += names[n] != NULL;
        }
        if (d)
                closedir(d);
        qsort(names, n, sizeof(*names), draft_compare_names);
        why[0] = '\0';
        for (size_t i = 0; i < n; i++) {
                char example[PATH_MAX], one[1024];
                snprintf(example, sizeof(example), "examples/%s", names[i]);
                if (read_example(def, example, st, notes, one, sizeof(one)) == 0)
                        taken++;
                else if (!why[0])
                        snprintf(why, why_size, "%s", one);
        }
        draft_free_names(names, n);
        return taken ? 0 : -ENOENT;
}
