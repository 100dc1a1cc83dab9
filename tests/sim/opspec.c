/* SPDX-License-Identifier: MIT */
/*
 * Test helper standing in for the evaluator: turns one case of an operator's
 * ascendopt.json into what the simulated NPU consumes.
 *
 *   opspec OPDIR CASE PLATFORM.json SEED OUTDIR   writes OUTDIR/spec.json,
 *                                                 OUTDIR/glue.cpp and
 *                                                 OUTDIR/defines (one -D per line)
 *   opspec OPDIR --cases                          prints the number of cases
 *   opspec --field FILE.json PATH                 prints one value, PATH like
 *                                                 error.kind or cases.3.name
 *                                                 (nothing when absent)
 */
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *msg, const char *arg)
{
        fprintf(stderr, "opspec: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
        exit(65);
}

static const char *ctype_of(const char *dt)
{
        static const char *const map[][2] = {
                { "float16", "half" },    { "float32", "float" },   { "bfloat16", "bfloat16_t" },
                { "int8", "int8_t" },     { "int16", "int16_t" },   { "int32", "int32_t" },
                { "int64", "int64_t" },   { "uint8", "uint8_t" },   { "uint16", "uint16_t" },
                { "uint32", "uint32_t" }, { "uint64", "uint64_t" }, { "bool", "bool" }
        };
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
                if (!strcmp(map[i][0], dt))
                        return map[i][1];
        die("unknown dtype", dt);
        return NULL;
}

static const char *ge_of(const char *dt)
{
        static const char *const map[][2] = {
                { "float16", "DT_FLOAT16" }, { "float32", "DT_FLOAT" }, { "bfloat16", "DT_BF16" },
                { "int8", "DT_INT8" },       { "int16", "DT_INT16" },   { "int32", "DT_INT32" },
                { "int64", "DT_INT64" },     { "uint8", "DT_UINT8" },   { "uint16", "DT_UINT16" },
                { "uint32", "DT_UINT32" },   { "uint64", "DT_UINT64" }, { "bool", "DT_BOOL" }
        };
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
                if (!strcmp(map[i][0], dt))
                        return map[i][1];
        die("unknown dtype", dt);
        return NULL;
}

static void define(FILE *f, const char *name, const char *dt)
{
        char up[128];
        size_t i;
        for (i = 0; i < sizeof up - 1 && name[i]; i++)
                up[i] = (char)toupper((unsigned char)name[i]);
        up[i] = 0;
        fprintf(f, "-DDTYPE_%s=%s\n-DORIG_DTYPE_%s=%s\n-DFORMAT_%s=FORMAT_ND\n", up, ctype_of(dt),
                up, ge_of(dt), up);
}

static json_t *tensors(json_t *decl, json_t *shapes, int need_shape, FILE *defs)
{
        json_t *out = json_array();
        size_t i;
        json_t *d;
        json_array_foreach(decl, i, d)
        {
                const char *name = json_string_value(json_object_get(d, "name"));
                const char *dt = json_string_value(json_object_get(d, "dtype"));
                if (!name || !dt)
                        die("every input and output needs name and dtype", NULL);
                json_t *shape = shapes ? json_object_get(shapes, name) : NULL;
                json_t *t = json_object();
                json_object_set_new(t, "name", json_string(name));
                json_object_set_new(t, "dtype", json_string(dt));
                if (shape) {
                        json_object_set(
                            t, json_is_true(json_object_get(d, "list")) ? "list" : "shape", shape);
                } else if (need_shape) {
                        if (json_is_true(json_object_get(d, "optional"))) {
                                json_decref(t);
                                continue;
                        }
                        die("the case gives no shape for", name);
                }
                json_array_append_new(out, t);
                define(defs, name, dt);
        }
        return out;
}

static int field(const char *file, const char *path)
{
        json_error_t err;
        json_t *v = json_load_file(file, 0, &err);
        if (!v)
                die(err.text, file);
        char buf[512];
        snprintf(buf, sizeof buf, "%s", path);
        for (char *tok = strtok(buf, "."); tok && v; tok = strtok(NULL, "."))
                v = json_is_array(v) ? json_array_get(v, (size_t)atoi(tok))
                                     : json_object_get(v, tok);
        if (json_is_string(v))
                printf("%s\n", json_string_value(v));
        else if (json_is_integer(v))
                printf("%lld\n", (long long)json_integer_value(v));
        else if (json_is_boolean(v))
                printf("%s\n", json_is_true(v) ? "true" : "false");
        else if (v && !json_is_null(v)) {
                char *d = json_dumps(v, JSON_COMPACT);
                printf("%s\n", d);
                free(d);
        }
        return 0;
}

int main(int argc, char **argv)
{
        if (argc == 4 && !strcmp(argv[1], "--field"))
                return field(argv[2], argv[3]);
        if (argc < 3)
                die("usage: opspec OPDIR CASE PLATFORM.json SEED OUTDIR | opspec OPDIR --cases",
                    NULL);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/ascendopt.json", argv[1]);
        json_error_t err;
        json_t *m = json_load_file(path, 0, &err);
        if (!m)
                die(err.text, path);
        json_t *cases = json_object_get(m, "cases");
        if (!strcmp(argv[2], "--cases")) {
                printf("%zu\n", json_array_size(cases));
                return 0;
        }
        if (argc != 6)
                die("usage: opspec OPDIR CASE PLATFORM.json SEED OUTDIR", NULL);
        json_t *c = json_array_get(cases, (size_t)atoi(argv[2]));
        if (!c)
                die("no such case", argv[2]);
        json_t *platform = json_load_file(argv[3], 0, &err);
        if (!platform)
                die(err.text, argv[3]);

        snprintf(path, sizeof path, "%s/defines", argv[5]);
        FILE *defs = fopen(path, "w");
        if (!defs)
                die("cannot write", path);
        json_t *spec = json_object();
        json_object_set(spec, "op", json_object_get(m, "name"));
        json_object_set(spec, "kernel", json_object_get(m, "kernel"));
        json_t *shapes = json_object_get(c, "shapes");
        json_object_set_new(spec, "inputs", tensors(json_object_get(m, "inputs"), shapes, 1, defs));
        json_object_set_new(spec, "outputs",
                            tensors(json_object_get(m, "outputs"), shapes, 0, defs));
        fclose(defs);
        json_t *attrs = json_deep_copy(json_object_get(m, "attrs") ? json_object_get(m, "attrs")
                                                                   : json_object());
        json_t *cattrs = json_object_get(c, "attrs");
        if (cattrs)
                json_object_update(attrs, cattrs);
        json_object_set_new(spec, "attrs", attrs);
        json_object_set_new(spec, "seed", json_integer(strtoll(argv[4], NULL, 0) + atoi(argv[2])));
        if (json_object_get(m, "input_ranges"))
                json_object_set(spec, "input_ranges", json_object_get(m, "input_ranges"));
        json_t *as = json_object_get(m, "auto_sync");
        json_object_set_new(spec, "auto_sync", json_boolean(as ? json_is_true(as) : 1));
        json_object_set_new(spec, "platform", platform);
        if (json_object_get(m, "permissive"))
                json_object_set(spec, "permissive", json_object_get(m, "permissive"));
        json_t *mi = json_object_get(m, "max_instructions");
        json_object_set_new(spec, "max_instructions",
                            mi ? json_incref(mi) : json_integer(200000000));
        json_object_set_new(spec, "max_seconds", json_integer(60));
        snprintf(path, sizeof path, "%s/spec.json", argv[5]);
        if (json_dump_file(spec, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
                die("cannot write", path);

        /* checks: "DTYPE ATOL RTOL MAXFRAC FILE" per output file to compare. */
        snprintf(path, sizeof path, "%s/checks", argv[5]);
        FILE *ck = fopen(path, "w");
        if (!ck)
                die("cannot write", path);
        size_t i;
        json_t *o;
        json_array_foreach(json_object_get(m, "outputs"), i, o)
        {
                const char *name = json_string_value(json_object_get(o, "name"));
                const char *dt = json_string_value(json_object_get(o, "dtype"));
                json_t *tol = json_object_get(json_object_get(m, "tolerance"), dt);
                double atol = tol ? json_number_value(json_object_get(tol, "atol")) : 0;
                double rtol = tol ? json_number_value(json_object_get(tol, "rtol")) : 0;
                double frac =
                    tol ? json_number_value(json_object_get(tol, "max_mismatch_fraction")) : 0;
                if (json_is_true(json_object_get(o, "list"))) {
                        json_t *l = shapes ? json_object_get(shapes, name) : NULL;
                        for (size_t k = 0; k < json_array_size(l); k++)
                                fprintf(ck, "%s %.9g %.9g %.9g out_%s_%zu.bin\n", dt, atol, rtol,
                                        frac, name, k);
                } else {
                        fprintf(ck, "%s %.9g %.9g %.9g out_%s.bin\n", dt, atol, rtol, frac, name);
                }
        }
        fclose(ck);

        /* The glue: the kernel file is op_kernel/<basename of OPDIR>.cpp. */
        char abs[PATH_MAX];
        if (!realpath(argv[1], abs))
                die("cannot resolve", argv[1]);
        const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
        snprintf(path, sizeof path, "%s/glue.cpp", argv[5]);
        FILE *g = fopen(path, "w");
        if (!g)
                die("cannot write", path);
        fprintf(g, "#include \"%s/op_kernel/%s.cpp\"\nASCENDSIM_KERNEL_ENTRY(%s);\n", abs, base,
                json_string_value(json_object_get(m, "kernel")));
        fclose(g);
        return 0;
}
