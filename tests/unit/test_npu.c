/* SPDX-License-Identifier: MIT */
/*
 * Tests of the operator manifest and of the output comparison: defaults
 * derived from the operator's files, errors that name the field, and the
 * tolerance rule with NaN and Inf.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "npu/npu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char opdir[64];

static void write_file(const char *rel, const char *text)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", opdir, rel);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int setup(void **state)
{
        char path[128];

        snprintf(opdir, sizeof(opdir), "/tmp/ascendopt-op-XXXXXX");
        assert_non_null(mkdtemp(opdir));
        snprintf(path, sizeof(path), "%s/op_host", opdir);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/op_kernel", opdir);
        mkdir(path, 0755);
        write_file("op_host/add_custom.cpp", "// host\n");
        write_file("op_kernel/add_custom.cpp", "// kernel\n");
        return 0;
}

static int teardown(void **state)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", opdir);
        assert_int_equal(system(cmd), 0);
        return 0;
}

static const char *good_manifest =
    "{\"name\": \"AddCustom\", \"level\": 1,\n"
    " \"inputs\": [{\"name\": \"x\", \"dtype\": \"float16\"}, {\"name\": \"y\", \"dtype\": "
    "\"float16\"}],\n"
    " \"outputs\": [{\"name\": \"z\", \"dtype\": \"float16\"}],\n"
    " \"attrs\": {\"alpha\": 1.5},\n"
    " \"cases\": [{\"name\": \"small\", \"shapes\": {\"x\": [8, 64], \"y\": [8, 64]}},\n"
    "           {\"name\": \"big\", \"shapes\": {\"x\": [8192, 8192], \"y\": [8192, 8192]}, "
    "\"bench\": true, \"attrs\": {\"alpha\": 2}}],\n"
    " \"input_ranges\": {\"y\": [0.5, 2]},\n"
    " \"tolerance\": {\"float16\": {\"atol\": 0.01}}}\n";

static void test_manifest_defaults(void **state)
{
        struct npu_manifest *m = NULL;
        char err[512] = "";

        write_file("ascendopt.json", good_manifest);
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_string_equal(m->name, "AddCustom");
        assert_string_equal(m->kernel, "add_custom");
        assert_string_equal(m->kernel_source, "op_kernel/add_custom.cpp");
        assert_int_equal(m->n_inputs, 2);
        assert_int_equal(m->outputs[0].dtype, NPU_FLOAT16);
        assert_int_equal(m->n_cases, 2);
        assert_false(m->cases[0].bench);
        assert_true(m->cases[1].bench);
        /* case attrs override the operator's */
        assert_true(json_real_value(json_object_get(m->cases[0].attrs, "alpha")) == 1.5);
        assert_int_equal(json_integer_value(json_object_get(m->cases[1].attrs, "alpha")), 2);
        assert_true(m->auto_sync);
        assert_true(m->tolerance[NPU_FLOAT16].atol == 0.01);
        assert_true(m->tolerance[NPU_FLOAT16].rtol == 1e-3);
        assert_true(m->tolerance[NPU_FLOAT32].atol == 1e-5);
        npu_manifest_free(m);
}

static void expect_manifest_error(const char *text, const char *suffix)
{
        struct npu_manifest *m = NULL;
        char err[512] = "";
        const char *tail;

        write_file("ascendopt.json", text);
        assert_int_equal(npu_manifest_load(opdir, &m, err, sizeof(err)), -EINVAL);
        assert_null(m);
        tail = strstr(err, "ascendopt.json: ");
        if (!tail || strcmp(tail + strlen("ascendopt.json: "), suffix) != 0)
                fail_msg("got \"%s\", want \"...ascendopt.json: %s\"", err, suffix);
}

static void test_manifest_errors_name_the_field(void **state)
{
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float8\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"cases\": []}",
                              ".inputs[0].dtype: expected one of \"float16\", \"float32\", "
                              "\"bfloat16\", \"int8\", \"int16\", \"int32\", \"int64\", \"uint8\", "
                              "\"uint16\", \"uint32\", \"bool\", \"uint64\", \"float64\", "
                              "\"complex64\", got \"float8\"");
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"cases\": [{\"name\": \"a\", \"shapes\": {\"z\": "
                              "[4]}}]}",
                              ".cases[0].shapes.x: missing shape for input \"x\" (null if the "
                              "case leaves an optional input out)");
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"cases\": [{\"name\": \"a\", \"shapes\": {\"x\": "
                              "[4, 0]}}]}",
                              ".cases[0].shapes.x: dimension 1 must be a positive integer");
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"cases\": [{\"name\": \"a\", \"shapes\": {\"x\": "
                              "[4], \"w\": [4]}}]}",
                              ".cases[0].shapes.w: no input or output is named \"w\"");
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"cases\": [{\"name\": \"a\", \"shapes\": {\"x\": "
                              "[4]}}], \"input_ranges\": {\"x\": [2, 1]}}",
                              ".input_ranges.x: lo is greater than hi");
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"cases\": [{\"name\": \"a\", \"shapes\": {\"x\": "
                              "[4]}}], \"levle\": 1}",
                              ".levle: unknown key \"levle\"");
        /* 2^30 float32 elements each: one tensor is allowed, the second passes 4 GiB */
        expect_manifest_error(
            "{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
            "\"float32\"}, {\"name\": \"y\", \"dtype\": \"float32\"}], "
            "\"outputs\": [{\"name\": \"z\", \"dtype\": \"float32\"}], \"cases\": "
            "[{\"name\": \"a\", \"shapes\": {\"x\": [1024, 1048576], \"y\": [1024, "
            "1048576], \"z\": [1]}}]}",
            ".cases[0].shapes: its tensors hold more than 4 GiB in all (the "
            "limit of one case; reached at y)");
        write_file("op_kernel/helpers.cpp", "// a second kernel file\n");
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"kernel\": \"other_entry<2>\", \"cases\": "
                              "[{\"name\": \"a\", \"shapes\": {\"x\": [1]}}]}",
                              ".kernel: cannot tell the kernel source: no "
                              "op_kernel/other_entry.cpp and 2 .cpp files in op_kernel/");
        /* the kernel source is a file of op_kernel/, never one a path in the entry points to */
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                              "\"float16\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": "
                              "\"float16\"}], \"kernel\": \"../op_host/add_custom\", \"cases\": "
                              "[{\"name\": \"a\", \"shapes\": {\"x\": [1]}}]}",
                              ".kernel: \"../op_host/add_custom\" is not a kernel entry (a "
                              "function name, with template arguments if any, such as "
                              "is_finite<1, 2>)");
        expect_manifest_error("{\"name\": \"../op_host/AddCustom\", \"inputs\": [{\"name\": "
                              "\"x\", \"dtype\": \"float16\"}], \"outputs\": [{\"name\": \"z\", "
                              "\"dtype\": \"float16\"}], \"cases\": [{\"name\": \"a\", "
                              "\"shapes\": {\"x\": [1]}}]}",
                              ".name: \"../op_host/AddCustom\" is not a kernel entry (a "
                              "function name, with template arguments if any, such as "
                              "is_finite<1, 2>)");
}

#define REF_TENSORS(in, out)                                                                   \
        "{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"var\", \"dtype\": \"float32\"}, " \
        "{\"name\": \"x\", \"dtype\": \"float32\"}" in "], \"outputs\": [" out "], "           \
        "\"cases\": [{\"name\": \"a\", \"shapes\": {\"var\": [4], \"x\": [4]}}]}"

/* An output of an input's name is that input updated in place, and says so. */
static void test_manifest_ref_outputs(void **state)
{
        struct npu_manifest *m = NULL;
        char err[512] = "";

        write_file("ascendopt.json",
                   REF_TENSORS("", "{\"name\": \"var\", \"dtype\": \"float32\", \"ref\": true}, "
                                   "{\"name\": \"z\", \"dtype\": \"float16\"}"));
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_true(m->outputs[0].ref);
        assert_false(m->outputs[1].ref);
        assert_false(m->inputs[0].ref);
        npu_manifest_free(m);
        expect_manifest_error(REF_TENSORS("", "{\"name\": \"var\", \"dtype\": \"float32\"}"),
                              "tensor name \"var\" is used twice among inputs and outputs; an "
                              "output that is the input updated in place (CANN's ref tensor) says "
                              "\"ref\": true");
        expect_manifest_error(REF_TENSORS("", "{\"name\": \"w\", \"dtype\": \"float32\", \"ref\": "
                                              "true}"),
                              ".outputs[0].ref: no input is named \"w\"; a ref output is the input "
                              "of its name, updated in place");
        expect_manifest_error(REF_TENSORS("", "{\"name\": \"var\", \"dtype\": \"float16\", "
                                              "\"ref\": true}"),
                              ".outputs[0]: the ref output var must have the dtype of input var "
                              "(float32)");
        expect_manifest_error(REF_TENSORS(", {\"name\": \"y\", \"dtype\": \"float32\", \"ref\": "
                                          "true}",
                                          "{\"name\": \"z\", \"dtype\": \"float16\"}"),
                              ".inputs[2].ref: only an output is a ref (the input of its name, "
                              "updated in place)");
        expect_manifest_error(REF_TENSORS("",
                                          "{\"name\": \"var\", \"dtype\": \"float32\", \"ref\": "
                                          "true}, {\"name\": \"var\", \"dtype\": \"float32\", "
                                          "\"ref\": true}"),
                              "tensor name \"var\" is used twice among inputs and outputs");
}

/* A case gives an optional input null to leave it out; nothing else may be null. */
static void test_manifest_absent_inputs(void **state)
{
        struct npu_manifest *m = NULL;
        char err[512] = "";

        write_file("ascendopt.json",
                   "{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                   "\"float16\"}, {\"name\": \"bias\", \"dtype\": \"float16\"}], \"outputs\": "
                   "[{\"name\": \"z\", \"dtype\": \"float16\"}], \"cases\": [{\"name\": \"a\", "
                   "\"shapes\": {\"x\": [4], \"bias\": null}}]}");
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_true(json_is_null(json_object_get(m->cases[0].shapes, "bias")));
        npu_manifest_free(m);
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", "
                              "\"dtype\": \"float16\"}], \"outputs\": [{\"name\": \"z\", "
                              "\"dtype\": \"float16\"}], \"cases\": [{\"name\": \"a\", \"shapes\": "
                              "{\"x\": [4], \"z\": null}}]}",
                              ".cases[0].shapes.z: null (absent) is for an optional input only");
        expect_manifest_error(
            "{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"var\", "
            "\"dtype\": \"float16\"}], \"outputs\": [{\"name\": \"var\", "
            "\"dtype\": \"float16\", \"ref\": true}], \"cases\": [{\"name\": \"a\", "
            "\"shapes\": {\"var\": null}}]}",
            ".cases[0].shapes.var: an input the operator updates in place (a ref "
            "output) cannot be absent");
}

/* A case's input_ranges override the manifest's for that case only. */
static void test_manifest_case_ranges(void **state)
{
        struct npu_manifest *m = NULL;
        char err[512] = "";

        write_file("ascendopt.json",
                   "{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                   "\"int32\"}, {\"name\": \"y\", \"dtype\": \"int32\"}], \"outputs\": "
                   "[{\"name\": \"z\", \"dtype\": \"int32\"}], \"input_ranges\": {\"x\": [1, 1], "
                   "\"y\": [0, 9]}, \"cases\": [{\"name\": \"a\", \"shapes\": {\"x\": [], \"y\": "
                   "[4]}}, {\"name\": \"b\", \"shapes\": {\"x\": [], \"y\": [4]}, "
                   "\"input_ranges\": {\"x\": [5, 5]}}]}");
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_true(json_number_value(
                        json_array_get(json_object_get(m->cases[0].input_ranges, "x"), 0)) == 1);
        assert_true(json_number_value(
                        json_array_get(json_object_get(m->cases[1].input_ranges, "x"), 0)) == 5);
        assert_true(json_number_value(
                        json_array_get(json_object_get(m->cases[1].input_ranges, "y"), 1)) == 9);
        npu_manifest_free(m);
        expect_manifest_error("{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", "
                              "\"dtype\": \"int32\"}], \"outputs\": [{\"name\": \"z\", "
                              "\"dtype\": \"int32\"}], \"cases\": [{\"name\": \"a\", \"shapes\": "
                              "{\"x\": [4]}, \"input_ranges\": {\"w\": [0, 1]}}]}",
                              ".cases[0].input_ranges.w: no input is named \"w\"");
}

/* The variants of a manifest for the OpDef's other dtype columns (issue #26). */
static json_t *describe_json(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);

        if (!j)
                fail_msg("test JSON: %s", e.text);
        return j;
}

static void test_dtype_variants(void **state)
{
        struct npu_dtype_variant v[NPU_MAX_DTYPE_VARIANTS];
        struct npu_manifest *m = NULL, *vm = NULL;
        json_t *not_checkable = json_array(), *d;
        char err[512] = "", *own;
        size_t n = 99;

        write_file("ascendopt.json", good_manifest);
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        own = npu_manifest_dtype_label(m);
        assert_string_equal(own, "x:float16 y:float16 z:float16");
        free(own);
        /* column 0 is the manifest's, column 3 has a dtype the simulator lacks (a number),
         * column 4 repeats column 1 in another format */
        d = describe_json(
            "{\"op_defs\": [{\"type\": \"Other\"}, {\"type\": \"AddCustom\", \"inputs\": ["
            "{\"name\": \"x\", \"dtypes\": [\"float16\", \"float32\", \"int32\", 29, \"float32\"]},"
            "{\"name\": \"y\", \"dtypes\": [\"float16\", \"float32\", \"int32\", \"int8\", "
            "\"float32\"]}],"
            "\"outputs\": [{\"name\": \"z\", \"dtypes\": [\"float16\", \"float32\", \"int32\", "
            "\"int8\", \"float32\"]}]}]}");
        assert_int_equal(
            npu_manifest_dtype_variants(m, d, v, NPU_MAX_DTYPE_VARIANTS, &n, not_checkable), 0);
        assert_int_equal(n, 2);
        assert_string_equal(v[0].label, "x:float32 y:float32 z:float32");
        assert_string_equal(v[1].label, "x:int32 y:int32 z:int32");
        assert_int_equal(json_array_size(not_checkable), 1);
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "dtypes")),
            "x:ge::DataType(29) y:int8 z:int8");
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "why")),
            "the simulator has no dtype ge::DataType(29) (input of the OpDef's x)");
        /* the variant: its dtypes, the manifest's tolerances, the small case only */
        if (npu_manifest_from_json(opdir, v[1].doc, "variant", &vm, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(vm->inputs[0].dtype, NPU_INT32);
        assert_int_equal(vm->inputs[1].dtype, NPU_INT32);
        assert_int_equal(vm->outputs[0].dtype, NPU_INT32);
        assert_int_equal(vm->n_cases, 1);
        assert_string_equal(vm->cases[0].name, "small");
        assert_true(vm->tolerance[NPU_FLOAT16].atol == 0.01);
        assert_true(vm->tolerance[NPU_INT32].atol == 0);
        npu_manifest_free(vm);
        npu_dtype_variants_release(v, n);
        json_decref(d);

        /* a parameter listing one dtype has it in every column; past the limit is said */
        json_array_clear(not_checkable);
        d = describe_json("{\"op_defs\": [{\"type\": \"AddCustom\", \"inputs\": ["
                          "{\"name\": \"x\", \"dtypes\": [\"float16\", \"float32\", \"bfloat16\"]},"
                          "{\"name\": \"y\", \"dtypes\": [\"float16\"]}],"
                          "\"outputs\": [{\"name\": \"z\", \"dtypes\": [\"float16\", \"float32\", "
                          "\"bfloat16\"]}]}]}");
        assert_int_equal(npu_manifest_dtype_variants(m, d, v, 1, &n, not_checkable), 0);
        assert_int_equal(n, 1);
        assert_string_equal(v[0].label, "x:float32 y:float16 z:float32");
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "dtypes")),
            "x:bfloat16 y:float16 z:bfloat16");
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "why")),
            "past the 1 dtype combinations checked (NPU_MAX_DTYPE_VARIANTS)");
        npu_dtype_variants_release(v, n);
        json_decref(d);

        /* lists of unequal length leave the longer one's extra columns unchecked */
        json_array_clear(not_checkable);
        d = describe_json("{\"op_defs\": [{\"type\": \"AddCustom\", \"inputs\": ["
                          "{\"name\": \"x\", \"dtypes\": [\"float16\", \"float32\", \"int32\"]},"
                          "{\"name\": \"y\", \"dtypes\": [\"float16\", \"float32\"]}],"
                          "\"outputs\": [{\"name\": \"z\", \"dtypes\": []}]}]}");
        assert_int_equal(
            npu_manifest_dtype_variants(m, d, v, NPU_MAX_DTYPE_VARIANTS, &n, not_checkable), 0);
        assert_int_equal(n, 1);
        assert_string_equal(v[0].label, "x:float32 y:float32 z:float16");
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "why")),
            "the OpDef lists 2 dtypes for y and more for others, so column 2 has none for it");
        npu_dtype_variants_release(v, n);
        json_decref(d);

        /* no OpDef of the manifest's name, or one without a tensor of the manifest */
        json_array_clear(not_checkable);
        d = describe_json("{\"op_defs\": [{\"type\": \"Other\"}]}");
        assert_int_equal(
            npu_manifest_dtype_variants(m, d, v, NPU_MAX_DTYPE_VARIANTS, &n, not_checkable), 0);
        assert_int_equal(n, 0);
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "why")),
            "op_host registers no OpDef named AddCustom (the manifest's .name), only Other");
        json_decref(d);
        json_array_clear(not_checkable);
        d = describe_json("{\"op_defs\": [{\"type\": \"AddCustom\", \"inputs\": "
                          "[{\"name\": \"x\", \"dtypes\": [\"float16\", \"float32\"]}], "
                          "\"outputs\": [{\"name\": \"z\", \"dtypes\": [\"float16\", "
                          "\"float32\"]}]}]}");
        assert_int_equal(
            npu_manifest_dtype_variants(m, d, v, NPU_MAX_DTYPE_VARIANTS, &n, not_checkable), 0);
        assert_int_equal(n, 0);
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(not_checkable, 0), "why")),
            "the OpDef of AddCustom declares no input named y (the manifest's)");
        json_decref(d);
        json_decref(not_checkable);
        npu_manifest_free(m);
}

/*
 * A variant of a case whose inputs come from an example keeps the
 * example's inputs whose dtype it does not change (a tiling reading
 * begin's or paddings' values gets them in every dtype combination), drops
 * the others, and compares no golden output: it is judged against the
 * original's outputs.  Before, every variant ran on seeded inputs, and
 * cann-ops' circular_pad left its four other combinations unchecked.
 */
static void test_dtype_variants_keep_example_inputs(void **state)
{
        static const char manifest[] =
            "{\"name\": \"AddCustom\", \"level\": 1,\n"
            " \"inputs\": [{\"name\": \"x\", \"dtype\": \"float16\"}, {\"name\": \"y\", "
            "\"dtype\": \"int64\"}],\n"
            " \"outputs\": [{\"name\": \"z\", \"dtype\": \"float16\"}],\n"
            " \"cases\": [{\"name\": \"small\", \"shapes\": {\"x\": [8, 64], \"y\": [2]},\n"
            "  \"golden\": {\"example\": \"examples/E\", \"inputs\": {\"x\": {\"file\": "
            "\"input/x.bin\"}, \"y\": {\"values\": [1, 2]}},\n"
            "  \"outputs\": {\"z\": \"output/golden.bin\"}}}]}\n";
        struct npu_dtype_variant v[NPU_MAX_DTYPE_VARIANTS];
        struct npu_manifest *m = NULL, *vm = NULL;
        json_t *not_checkable = json_array(), *d, *golden;
        char err[512] = "", path[256];
        size_t n = 0;

        (void)state;
        snprintf(path, sizeof(path), "%s/examples/E", opdir);
        assert_int_equal(mkdir_p(path), 0);
        write_file("examples/E/gen_data.py", "# the example's inputs would be written here\n");
        write_file("ascendopt.json", manifest);
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        d = describe_json("{\"op_defs\": [{\"type\": \"AddCustom\", \"inputs\": ["
                          "{\"name\": \"x\", \"dtypes\": [\"float16\", \"float32\"]},"
                          "{\"name\": \"y\", \"dtypes\": [\"int64\"]}],"
                          "\"outputs\": [{\"name\": \"z\", \"dtypes\": [\"float16\", "
                          "\"float32\"]}]}]}");
        assert_int_equal(
            npu_manifest_dtype_variants(m, d, v, NPU_MAX_DTYPE_VARIANTS, &n, not_checkable), 0);
        assert_int_equal(n, 1);
        assert_int_equal(json_array_size(not_checkable), 0);
        if (npu_manifest_from_json(opdir, v[0].doc, "variant", &vm, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        golden = vm->cases[0].golden;
        assert_non_null(golden);
        assert_string_equal(json_string_value(json_object_get(golden, "example")), "examples/E");
        assert_null(json_object_get(json_object_get(golden, "inputs"), "x"));
        assert_non_null(json_object_get(json_object_get(golden, "inputs"), "y"));
        assert_int_equal(json_object_size(json_object_get(golden, "outputs")), 0);
        npu_manifest_free(vm);
        npu_dtype_variants_release(v, n);
        json_decref(d);
        json_decref(not_checkable);
        npu_manifest_free(m);
}

/* A variant of a manifest whose cases are all bench cases runs the smallest, untimed. */
static void test_dtype_variant_of_bench_cases(void **state)
{
        struct npu_dtype_variant v[1];
        struct npu_manifest *m = NULL;
        json_t *not_checkable = json_array(), *d, *cases;
        char err[512] = "";
        size_t n = 0;

        write_file("ascendopt.json",
                   "{\"name\": \"AddCustom\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                   "\"float32\"}], \"outputs\": [{\"name\": \"z\", \"dtype\": \"float32\"}],"
                   " \"cases\": [{\"name\": \"big\", \"shapes\": {\"x\": [64, 64]}, \"bench\": "
                   "true}, {\"name\": \"less\", \"shapes\": {\"x\": [8, 64]}, \"bench\": true}]}");
        if (npu_manifest_load(opdir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        d = describe_json("{\"op_defs\": [{\"type\": \"AddCustom\", \"inputs\": [{\"name\": "
                          "\"x\", \"dtypes\": [\"float32\", \"float16\"]}], \"outputs\": "
                          "[{\"name\": \"z\", \"dtypes\": [\"float32\", \"float16\"]}]}]}");
        assert_int_equal(npu_manifest_dtype_variants(m, d, v, 1, &n, not_checkable), 0);
        assert_int_equal(n, 1);
        cases = json_object_get(v[0].doc, "cases");
        assert_int_equal(json_array_size(cases), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 0), "name")),
                            "less");
        assert_true(json_is_false(json_object_get(json_array_get(cases, 0), "bench")));
        npu_dtype_variants_release(v, n);
        json_decref(d);
        json_decref(not_checkable);
        npu_manifest_free(m);
}

static void test_missing_manifest_says_what_to_do(void **state)
{
        struct npu_manifest *m = NULL;
        char err[512];

        assert_int_equal(npu_manifest_load(opdir, &m, err, sizeof(err)), -ENOENT);
        assert_non_null(
            strstr(err, "ascendopt.json: no manifest; draft one with 'ascendopt init'"));
}

static void test_snake_case(void **state)
{
        char *s = npu_snake_case("AddCustom");
        assert_string_equal(s, "add_custom");
        free(s);
        s = npu_snake_case("RMSNorm2D");
        assert_string_equal(s, "rms_norm2_d");
        free(s);
}

static void test_compare_tolerance_rule(void **state)
{
        const float want[4] = { 1.0f, 100.0f, 0.0f, -2.0f };
        const float got[4] = { 1.001f, 100.05f, 0.0f, -2.5f };
        struct npu_tolerance tol = { .atol = 1e-3, .rtol = 1e-3, .max_mismatch_fraction = 0 };
        struct npu_comparison c;

        npu_compare(NPU_FLOAT32, got, want, 4, &tol, &c);
        /* 1.001 and 100.05 pass (atol + rtol*|want|), -2.5 does not */
        assert_int_equal(c.mismatches, 1);
        assert_false(c.passed);
        assert_true(fabs(c.max_abs_err - 0.5) < 1e-6);
        tol.max_mismatch_fraction = 0.25;
        npu_compare(NPU_FLOAT32, got, want, 4, &tol, &c);
        assert_true(c.passed);
}

static void test_compare_nan_and_inf_positions(void **state)
{
        const float want[3] = { NAN, INFINITY, 1.0f };
        const float same[3] = { NAN, INFINITY, 1.0f };
        const float moved[3] = { 1.0f, -INFINITY, NAN };
        struct npu_tolerance tol = { 1, 1, 0 };
        struct npu_comparison c;

        npu_compare(NPU_FLOAT32, same, want, 3, &tol, &c);
        assert_true(c.passed);
        npu_compare(NPU_FLOAT32, moved, want, 3, &tol, &c);
        assert_int_equal(c.mismatches, 3);
}

/* complex64 is judged part by part; uint64 and float64 exactly as their values. */
static void test_compare_new_dtypes(void **state)
{
        const float got[4] = { 1, 2, 3, 4.5f }, want[4] = { 1, 2, 3, 4 };
        const uint64_t big[2] = { 1ull << 60, 7 }, big_want[2] = { 1ull << 60, 8 };
        const double d[2] = { 0.1, 1e300 }, d_want[2] = { 0.1, 1e300 };
        struct npu_tolerance exact = { 0, 0, 0 };
        struct npu_comparison c;

        npu_compare(NPU_COMPLEX64, got, want, 2, &exact, &c);
        assert_int_equal(c.elements, 4);
        assert_int_equal(c.mismatches, 1);
        assert_int_equal(c.first_mismatch, 3);
        assert_false(c.passed);
        npu_compare(NPU_UINT64, big, big_want, 2, &exact, &c);
        assert_int_equal(c.mismatches, 1);
        assert_int_equal(c.first_mismatch, 1);
        npu_compare(NPU_FLOAT64, d, d_want, 2, &exact, &c);
        assert_true(c.passed);
        assert_int_equal(npu_dtype_size(NPU_COMPLEX64), 8);
        assert_string_equal(npu_dtype_kernel_type(NPU_FLOAT64), "double");
        assert_int_equal(npu_dtype_ge_value(NPU_COMPLEX64), 16);
}

static void test_half_decoding(void **state)
{
        const uint16_t h[4] = { 0x3c00, 0xc000, 0x0001, 0x7bff };
        assert_true(npu_half_to_float(h[0]) == 1.0f);
        assert_true(npu_half_to_float(h[1]) == -2.0f);
        assert_true(npu_half_to_float(h[2]) == ldexpf(1.0f, -24));
        assert_true(npu_half_to_float(h[3]) == 65504.0f);
        assert_true(isinf(npu_half_to_float(0x7c00)));
        assert_true(isnan(npu_half_to_float(0x7e00)));
        assert_true(npu_bfloat16_to_float(0x3f80) == 1.0f);
}

static void test_bottleneck_signature(void **state)
{
        json_t *profile =
            json_loads("{\"latency_us\": 100, \"launch_us\": 8, \"kernel_us\": 92, "
                       "\"kernel_type\": \"mix\", \"core_imbalance\": 1.3, "
                       "\"ub_peak_bytes\": 20000, \"ub_capacity_bytes\": 188160, "
                       "\"mean_copy_bytes\": 8192, \"gm_aligned_fraction\": 0.5, "
                       "\"pipes\": {\"s\": {\"utilisation\": 0.1}, \"v\": {\"utilisation\": 0.2}, "
                       "\"mte2\": {\"utilisation\": 0.95}, \"mte3\": {\"utilisation\": 0.5}}, "
                       "\"stalls_us\": {\"buffer_free\": 30, \"pipe_all\": 5}}",
                       0, NULL);
        char *sig = npu_bottleneck_signature(profile);
        char *copy, *token, *save = NULL;

        assert_non_null(sig);
        assert_string_equal(sig, "bound=mte2 v_util=low mte2_util=high mte3_util=mid "
                                 "stall=buffer_free scalar=low tail_core=yes ub_headroom=high "
                                 "copy=small align=32 launch=mix");
        /* every token comes from the one vocabulary */
        copy = strdup(sig);
        for (token = strtok_r(copy, " ", &save); token; token = strtok_r(NULL, " ", &save)) {
                bool known = false;
                for (const char *const *v = npu_signature_vocabulary; *v && !known; v++)
                        known = strcmp(*v, token) == 0;
                assert_true(known);
        }
        free(copy);
        free(sig);
        /* where the profile measures bank conflicts, the signature says whether they matter */
        json_object_set_new(profile, "bank_conflict_us", json_real(0.5));
        sig = npu_bottleneck_signature(profile);
        assert_non_null(strstr(sig, " launch=mix ub_banks=clean"));
        free(sig);
        json_object_set_new(profile, "bank_conflict_us", json_real(2.0));
        sig = npu_bottleneck_signature(profile);
        assert_non_null(strstr(sig, " ub_banks=conflict"));
        free(sig);
        json_object_del(profile, "bank_conflict_us");
        /* launch overhead dominating a tiny operator */
        json_object_set_new(profile, "launch_us", json_real(60));
        json_object_set_new(profile, "kernel_us", json_real(40));
        sig = npu_bottleneck_signature(profile);
        assert_non_null(strstr(sig, "bound=launch"));
        free(sig);
        json_decref(profile);
        assert_null(npu_bottleneck_signature(NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_manifest_defaults, setup, teardown),
                cmocka_unit_test_setup_teardown(test_manifest_errors_name_the_field, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_manifest_ref_outputs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_manifest_absent_inputs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_manifest_case_ranges, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_manifest_says_what_to_do, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_dtype_variants, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dtype_variants_keep_example_inputs, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_dtype_variant_of_bench_cases, setup, teardown),
                cmocka_unit_test(test_snake_case),
                cmocka_unit_test(test_compare_tolerance_rule),
                cmocka_unit_test(test_compare_nan_and_inf_positions),
                cmocka_unit_test(test_compare_new_dtypes),
                cmocka_unit_test(test_half_decoding),
                cmocka_unit_test(test_bottleneck_signature),
        };
        return cmocka_run_group_tests_name("npu", tests, NULL, NULL);
}
