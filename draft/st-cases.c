/* SPDX-License-Identifier: MIT */
/*
 * msOpSt cases (the JSON files in an operator's tests/st) as manifest
 * cases: the input shapes and types, value ranges, attributes and the
 * calc_expect_func_file as the golden.  A shape or attribute written
 * "fuzz" comes from running the case's fuzz_impl in the sandbox; an input
 * given as UNDEFINED is an absent optional input.  A case that does not
 * fit the OpDef is left out, and the first one's reason kept.
 */
#include "draft-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

/* The first dtype an msOpSt "type" names ("float16" or ["float16", "float"]). */
static const char *st_type(const json_t *type)
{
        const json_t *first = json_is_array(type) ? json_array_get(type, 0) : type;

        return json_is_string(first) ? draft_manifest_dtype(json_string_value(first)) : NULL;
}

/*
 * [lo, hi] from msOpSt's value_range, [[lo, hi]] or [lo, hi], into *ret
 * (NULL when it gives none); -ENOMEM when it cannot be built.
 */
static int st_range(const json_t *range, json_t **ret)
{
        const json_t *pair =
            json_is_array(json_array_get(range, 0)) ? json_array_get(range, 0) : range;

        *ret = NULL;
        if (json_array_size(pair) != 2 || !json_is_number(json_array_get(pair, 0)) ||
            !json_is_number(json_array_get(pair, 1)))
                return 0;
        *ret = json_pack("[f, f]", json_number_value(json_array_get(pair, 0)),
                         json_number_value(json_array_get(pair, 1)));
        return *ret ? 0 : -ENOMEM;
}

static void st_skip(struct draft_state *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void st_skip(struct draft_state *st, const char *fmt, ...)
{
        va_list ap;

        if (st->skipped++ == 0) {
                va_start(ap, fmt);
                vsnprintf(st->skip_reason, sizeof(st->skip_reason), fmt, ap);
                va_end(ap);
        }
}

/* A type msOpSt uses for an input that is left out (an absent optional input). */
static bool st_absent(const json_t *desc)
{
        const json_t *type = json_object_get(desc, "type"),
                     *format = json_object_get(desc, "format");
        const json_t *t = json_is_array(type) ? json_array_get(type, 0) : type;
        const json_t *f = json_is_array(format) ? json_array_get(format, 0) : format;

        return (json_is_string(t) && strcmp(json_string_value(t), "UNDEFINED") == 0) ||
               (json_is_string(f) && strcmp(json_string_value(f), "RESERVED") == 0);
}

struct fuzz_wait {
        json_t *answer; /* NULL when out of memory */
        bool done;
};

static void on_fuzz_done(json_t *answer, void *userdata)
{
        struct fuzz_wait *w = userdata;

        w->answer = answer;
        w->done = true;
}

/*
 * Runs an msOpSt case's fuzz_impl ("fuzz.py:fuzz_branch_001", relative to
 * tests/st) in the sandbox: msOpSt takes every field written "fuzz" (a
 * shape, a value, an attribute) from what it returns.  NULL and why when
 * it cannot be run.
 */
static json_t *run_fuzz(struct draft_state *st, const char *impl, char *why, size_t why_size)
{
        const char *colon = strrchr(impl, ':');
        char file[PATH_MAX], dir[PATH_MAX];
        const char *tmp = getenv("TMPDIR");
        struct fuzz_wait w = { 0 };
        json_t *job, *drawn = NULL;
        int r;

        if (!colon ||
            format_path(file, sizeof(file), "%s/tests/st/%.*s", st->opdir, (int)(colon - impl),
                        impl) < 0 ||
            access(file, R_OK) < 0) {
                snprintf(why, why_size, "its fuzz_impl %s is not there", impl);
                return NULL;
        }
        if (format_path(dir, sizeof(dir), "%s/ascendopt-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp") <
                0 ||
            !mkdtemp(dir)) {
                snprintf(why, why_size, "cannot make a scratch directory");
                return NULL;
        }
        job = json_pack("{s:s, s:s, s:s}", "mode", "fuzz", "file", file, "function", colon + 1);
        r = job ? npu_golden_run_job(st->sim->env.runner, st->opdir, dir, job, true, 120,
                                     on_fuzz_done, &w)
                : -ENOMEM;
        json_decref(job);
        while (r == 0 && !w.done)
                event_base_loop(st->sim->base, EVLOOP_ONCE);
        if (r < 0)
                snprintf(why, why_size, "cannot run its fuzz_impl: %s", child_strerror(r));
        else if (!w.answer)
                snprintf(why, why_size, "its fuzz_impl %s: out of memory", impl);
        else if (strcmp(json_string_value(json_object_get(w.answer, "status")) ?: "", "ok") != 0)
                snprintf(why, why_size, "its fuzz_impl %s: %s", impl,
                         json_string_value(json_object_get(w.answer, "why")) ?: "failed");
        else
                drawn = json_incref(json_object_get(w.answer, "drawn"));
        json_decref(w.answer);
        rm_rf(dir);
        return drawn;
}

/* "./test_x.py:calc_expect_func" (relative to tests/st) as the manifest's golden path. */
static int st_golden(const struct draft_state *st, const json_t *c, char *buf, size_t size)
{
        const char *f = json_string_value(json_object_get(c, "calc_expect_func_file"));
        char path[PATH_MAX];

        if (!f)
                return -ENOENT;
        while (strncmp(f, "./", 2) == 0)
                f += 2;
        if (!strchr(f, ':') || strstr(f, "..") || f[0] == '/')
                return -EINVAL;
        if (format_path(buf, size, "tests/st/%s", f) < 0 ||
            format_path(path, sizeof(path), "%s/%.*s", st->opdir, (int)(strrchr(buf, ':') - buf),
                        buf) < 0 ||
            access(path, R_OK) < 0)
                return -ENOENT;
        return 0;
}

/* One msOpSt case: its input shapes, types, ranges, attributes and golden. */
static int read_st_case(const json_t *c, const char *file, const struct opdef *def,
                        struct draft_state *st, char *err, size_t size)
{
        const json_t *inputs = json_object_get(c, "input_desc"), *desc,
                     *op = json_object_get(c, "op");
        const char *cname = json_string_value(json_object_get(c, "case_name")) ?: "?";
        json_t *shapes = json_object(), *attrs = json_object(), *names = json_object(), *a;
        json_t *drawn = NULL, *present = json_array(), *place = json_array();
        json_t *case_ranges = json_object();
        char name[129], why[600];
        size_t i;
        bool full;
        int r = 0;

        if (op && json_is_string(op) && strcmp(json_string_value(op), def->type) != 0) {
                st_skip(st, "%s: case %s is of operator %s", file, cname, json_string_value(op));
                goto out;
        }
        /*
         * An input msOpSt gives as UNDEFINED is left out: with every input
         * listed, it is the OpDef's input at its place (or of its name),
         * which must be optional, and the case gives it null (absent).
         */
        full = json_is_array(inputs) && json_array_size(inputs) == def->n_inputs;
        json_array_foreach(inputs, i, desc)
        {
                const char *given = json_string_value(json_object_get(desc, "name"));
                const struct param *p = full ? &def->inputs[i] : NULL;
                if (!st_absent(desc)) {
                        json_array_append(present, (json_t *)desc);
                        json_array_append_new(
                            place, json_integer(full ? (json_int_t)i
                                                     : (json_int_t)json_array_size(present) - 1));
                        continue;
                }
                for (size_t k = 0; full && given && k < def->n_inputs; k++)
                        if (draft_same_name(def->inputs[k].name, given))
                                p = &def->inputs[k];
                if (p && p->type != PARAM_OPTIONAL) {
                        st_skip(st,
                                "%s: case %s leaves input %s out (UNDEFINED), which the OpDef "
                                "of %s requires",
                                file, cname, p->name, def->type);
                        goto out;
                }
                if (p)
                        json_object_set_new(shapes, p->name, json_null());
        }
        if (!json_is_array(inputs) || (!full && json_array_size(present) != def->n_inputs)) {
                st_skip(st,
                        "%s: case %s gives %zu inputs (%zu left out as UNDEFINED); the OpDef of "
                        "%s has %zu",
                        file, cname, json_array_size(present),
                        json_array_size(inputs) - json_array_size(present), def->type,
                        def->n_inputs);
                goto out;
        }
        json_array_foreach(present, i, desc)
        {
                if (json_is_string(json_object_get(desc, "shape")) && !drawn) {
                        const char *impl = json_string_value(json_object_get(c, "fuzz_impl"));
                        drawn = impl ? run_fuzz(st, impl, why, sizeof(why)) : NULL;
                        if (!drawn) {
                                st_skip(st, "%s: case %s: input_desc[%zu].shape is \"%s\" and %s",
                                        file, cname, i,
                                        json_string_value(json_object_get(desc, "shape")),
                                        impl ? why : "the case names no fuzz_impl to draw it");
                                goto out;
                        }
                }
        }
        json_array_foreach(present, i, desc)
        {
                const char *given = json_string_value(json_object_get(desc, "name"));
                const struct param *p = &def->inputs[json_integer_value(json_array_get(place, i))];
                const json_t *shape = json_object_get(desc, "shape");
                json_t *range;
                for (size_t k = 0; given && k < def->n_inputs; k++)
                        if (draft_same_name(def->inputs[k].name, given))
                                p = &def->inputs[k];
                if (json_is_string(shape))
                        shape = json_object_get(
                            json_object_get(json_object_get(drawn, "input_desc"), given ?: ""),
                            "shape");
                /* msOpSt's [] is a scalar (rank 0); [[..], [..]] lists shapes to take in turn */
                if (json_is_array(json_array_get(shape, 0)))
                        shape = json_array_get(shape, 0);
                if (!json_is_array(shape)) {
                        st_skip(st, "%s: case %s: input_desc[%zu] gives no shape", file, cname, i);
                        goto out;
                }
                /* a manifest has one dtype per tensor: the first case's */
                if (st->have_dtypes && st->dtypes[p - def->inputs][0] &&
                    st_type(json_object_get(desc, "type")) &&
                    strcmp(st_type(json_object_get(desc, "type")), st->dtypes[p - def->inputs]) !=
                        0) {
                        st_skip(st,
                                "%s: case %s gives input %s as %s, where an earlier case has %s "
                                "(a manifest has one dtype per tensor)",
                                file, cname, p->name, st_type(json_object_get(desc, "type")),
                                st->dtypes[p - def->inputs]);
                        goto out;
                }
                json_object_set(shapes, p->name, (json_t *)shape);
                if (given && strcmp(given, p->name) != 0)
                        json_object_set_new(names, p->name, json_string(given));
                if (!st->have_dtypes && st_type(json_object_get(desc, "type")))
                        snprintf(st->dtypes[p - def->inputs], sizeof(st->dtypes[0]), "%s",
                                 st_type(json_object_get(desc, "type")));
                if (st_range(json_object_get(desc, "value_range"), &range) < 0) {
                        r = format_error(err, size, -ENOMEM, "%s: case %s: out of memory", file,
                                         cname);
                        goto out;
                }
                /* the first case's range is the manifest's; a case with another has its own */
                if (range && !json_object_get(st->ranges, p->name))
                        json_object_set(st->ranges, p->name, range);
                else if (range && !json_equal(range, json_object_get(st->ranges, p->name)))
                        json_object_set(case_ranges, p->name, range);
                json_decref(range);
        }
        json_array_foreach(json_object_get(c, "output_desc"), i, desc)
        {
                const char *given = json_string_value(json_object_get(desc, "name"));
                size_t k = i;
                for (size_t o = 0; given && o < def->n_outputs; o++)
                        if (draft_same_name(def->outputs[o].name, given))
                                k = o;
                /* a ref output's name is its input's, whose msOpSt name the golden gets */
                if (k < def->n_outputs && given && strcmp(given, def->outputs[k].name) != 0 &&
                    !def->outputs[k].ref)
                        json_object_set_new(names, def->outputs[k].name, json_string(given));
                if (!st->have_dtypes && k < def->n_outputs &&
                    st_type(json_object_get(desc, "type")))
                        snprintf(st->out_dtypes[k], sizeof(st->out_dtypes[0]), "%s",
                                 st_type(json_object_get(desc, "type")));
                /*
                 * msOpSt allocates the output with the shape it gives: so does
                 * the case (InferShape would decide otherwise, and an operator
                 * whose InferShape reads what the simulator's host side lacks
                 * gets it wrong).
                 */
                if (k < def->n_outputs && !def->outputs[k].ref &&
                    def->outputs[k].type != PARAM_DYNAMIC) {
                        const json_t *shape = json_object_get(desc, "shape");
                        if (json_is_string(shape))
                                shape = json_object_get(
                                    json_object_get(json_object_get(drawn, "output_desc"),
                                                    given ?: ""),
                                    "shape");
                        if (json_is_array(json_array_get(shape, 0)))
                                shape = json_array_get(shape, 0);
                        if (json_is_array(shape))
                                json_object_set(shapes, def->outputs[k].name, (json_t *)shape);
                }
        }
        for (size_t k = 0; k < def->n_inputs; k++)
                st->have_dtypes |= st->dtypes[k][0] != '\0';
        if (st->have_dtypes)
                st->dtypes_from = "the msOpSt cases";
        json_array_foreach(json_object_get(c, "attr"), i, a)
        {
                const char *given = json_string_value(json_object_get(a, "name"));
                const char *attr_name = given;
                json_t *value = json_object_get(a, "value");
                if (!given || !value)
                        continue;
                if (json_is_string(value) && strcmp(json_string_value(value), "fuzz") == 0)
                        value = json_object_get(json_object_get(drawn, "attr"), given);
                for (size_t k = 0; k < def->n_attrs; k++)
                        if (draft_same_name(def->attrs[k].name, given))
                                attr_name = def->attrs[k].name;
                if (!value)
                        continue;
                if (strcmp(attr_name, given) != 0)
                        json_object_set_new(names, attr_name, json_string(given));
                json_object_set(attrs, attr_name, value);
                if (!json_object_get(st->attrs, attr_name))
                        json_object_set(st->attrs, attr_name, value);
        }
        draft_case_name(cname, st->cases, name, sizeof(name));
        /* in the OpDef's order, an absent input at its place */
        for (size_t k = 0; k < def->n_inputs + def->n_outputs; k++) {
                const char *key =
                    k < def->n_inputs ? def->inputs[k].name : def->outputs[k - def->n_inputs].name;
                json_t *v = json_object_get(shapes, key);
                if (v) {
                        json_incref(v);
                        json_object_del(shapes, key);
                        json_object_set_new(shapes, key, v);
                }
        }
        json_t *entry = json_pack("{s:s, s:O}", "name", name, "shapes", shapes);
        if (entry && json_object_size(attrs))
                json_object_set(entry, "attrs", attrs);
        if (entry && json_object_size(case_ranges))
                json_object_set(entry, "input_ranges", case_ranges);
        {
                char golden[PATH_MAX];
                if (entry && st_golden(st, c, golden, sizeof(golden)) == 0) {
                        /* O* leaves names out when every name is the OpDef's */
                        json_t *g = json_pack("{s:s, s:O*}", "function", golden, "names",
                                              json_object_size(names) ? names : NULL);
                        if (json_object_set_new(entry, "golden", g) < 0) {
                                json_decref(entry);
                                entry = NULL;
                        } else {
                                st->goldens++;
                        }
                }
        }
        if (json_array_append_new(st->cases, entry) < 0)
                r = format_error(err, size, -ENOMEM, "%s: case %s: out of memory", file, cname);
out:
        json_decref(shapes);
        json_decref(attrs);
        json_decref(names);
        json_decref(drawn);
        json_decref(present);
        json_decref(place);
        json_decref(case_ranges);
        return r;
}

/* Every msOpSt case in the JSON files of tests/st, in file order. */
int draft_read_st_cases(const char *opdir, const struct opdef *def, struct draft_state *st,
                        char *err, size_t size)
{
        static const char *const suffixes[] = { ".json", NULL };
        char dir[PATH_MAX], *files[DRAFT_MAX_SOURCES];
        size_t n_files;
        int r = 0;

        if (format_path(dir, sizeof(dir), "%s/tests/st", opdir) < 0)
                return format_error(err, size, -ENAMETOOLONG, "%s: path too long", opdir);
        n_files = draft_list_files(dir, suffixes, files, DRAFT_MAX_SOURCES);
        for (size_t f = 0; f < n_files && r == 0; f++) {
                char path[PATH_MAX], rel[PATH_MAX], *text = NULL;
                json_t *doc = NULL, *c;
                size_t len = 0, i;
                snprintf(rel, sizeof(rel), "tests/st/%s", files[f]);
                r = format_path(path, sizeof(path), "%s/%s", opdir, rel);
                if (r < 0) {
                        format_error(err, size, r, "%s/%s: path too long", opdir, rel);
                        break;
                }
                r = read_text_file(path, DRAFT_SOURCE_MAX_BYTES, &text, &len);
                if (r < 0) {
                        snprintf(err, size, "%.1024s: cannot read: %s", path, strerror(-r));
                        break;
                }
                r = json_parse_text(text, len, path, &doc, err, size);
                free(text);
                if (r < 0)
                        break;
                if (json_is_object(doc)) /* one case on its own */
                        doc = json_pack("[o]", doc);
                if (!doc) {
                        r = format_error(err, size, -ENOMEM, "%s: out of memory", path);
                        break;
                }
                st->files++;
                json_array_foreach(doc, i, c)
                {
                        if (json_array_size(st->cases) == NPU_MAX_CASES) {
                                st_skip(st, "%s: more than %d cases", rel, NPU_MAX_CASES);
                                continue;
                        }
                        r = read_st_case(c, rel, def, st, err, size);
                        if (r < 0)
                                break;
                }
                json_decref(doc);
        }
        draft_free_names(files, n_files);
        return r;
}
