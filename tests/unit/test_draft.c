/* SPDX-License-Identifier: MIT */
/*
 * Tests of manifest drafting through the library (draft/draft.h), as
 * 'ascendopt init' drafts: the corpus Add operator with an aclnn example
 * (main.cpp and gen_data.py, tests/fixtures/init-cases) and no msOpSt cases
 * drafts to a manifest with the OpDef's kernel entry, tensors and dtypes,
 * the example's case with its golden and one bench case; given small cases
 * instead, the draft runs on the simulator.  What is missing or wrong (no
 * op_host, a draft that is no manifest) fails with -errno and an error
 * naming the directory or field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "draft/draft.h"
#include "common/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADD_DIR     "examples/ops/level1/add"
#define EXAMPLE_DIR "tests/fixtures/init-cases"

struct fixture {
        char root[64];
        struct draft_session *session;
        struct draft_notes notes;
        json_t *doc;
        char err[4096];
};

static struct fixture *fx;

static const char *source_dir(void)
{
        return getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".";
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void run(const char *fmt, ...)
{
        char cmd[2048];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        if (system(cmd) != 0)
                fail_msg("%s failed", cmd);
}

/* root/name: the Add operator's op_host (with_host) and op_kernel; with_example, its example. */
static const char *operator_dir(const char *name, bool with_host, bool with_example, char *buf,
                                size_t size)
{
        const char *src = source_dir();

        snprintf(buf, size, "%s/%s", fx->root, name);
        run("mkdir -p '%s' && cp -r '%s/%s/op_kernel' '%s/'", buf, src, ADD_DIR, buf);
        if (with_host)
                run("cp -r '%s/%s/op_host' '%s/'", src, ADD_DIR, buf);
        if (with_example)
                run("mkdir -p '%s/examples/AclNNInvocationNaive' && "
                    "cp '%s/%s/main.cpp' '%s/%s/gen_data.py' '%s/examples/AclNNInvocationNaive/'",
                    buf, src, EXAMPLE_DIR, src, EXAMPLE_DIR, buf);
        return buf;
}

static int setup(void **state)
{
        fx = calloc(1, sizeof(*fx));
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-draft-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        if (draft_session_new(&fx->session, fx->err, sizeof(fx->err)) < 0)
                fail_msg("%s", fx->err);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        draft_notes_release(&fx->notes);
        json_decref(fx->doc);
        draft_session_free(fx->session);
        rm_rf(fx->root);
        free(fx);
        return 0;
}

static bool noted(const char *text)
{
        for (size_t i = 0; i < fx->notes.n; i++)
                if (strstr(fx->notes.lines[i], text))
                        return true;
        return false;
}

static const char *tensor(const char *list, size_t i, const char *field)
{
        return json_string_value(
            json_object_get(json_array_get(json_object_get(fx->doc, list), i), field));
}

static void test_draft_from_example(void **state)
{
        struct draft_options o = { .variant = -1, .level = 1 };
        json_t *cases, *c, *golden;
        size_t i, benches = 0;
        char dir[256], summary[768];

        o.opdir = operator_dir("add", true, true, dir, sizeof(dir));
        if (draft_manifest(&o, fx->session, &fx->doc, &fx->notes, fx->err, sizeof(fx->err)) < 0)
                fail_msg("%s", fx->err);

        /* what the OpDef and op_kernel say */
        assert_string_equal(json_string_value(json_object_get(fx->doc, "name")), "AddCustom");
        assert_string_equal(json_string_value(json_object_get(fx->doc, "kernel")), "add_custom");
        assert_true(noted("kernel add_custom from op_kernel/add_custom.cpp"));
        assert_int_equal(json_array_size(json_object_get(fx->doc, "inputs")), 2);
        assert_string_equal(tensor("inputs", 0, "name"), "x");
        assert_string_equal(tensor("inputs", 1, "name"), "y");
        assert_int_equal(json_array_size(json_object_get(fx->doc, "outputs")), 1);
        assert_string_equal(tensor("outputs", 0, "name"), "z");
        /* the example's dtypes */
        assert_string_equal(tensor("inputs", 0, "dtype"), "float32");
        assert_string_equal(tensor("inputs", 1, "dtype"), "float32");
        assert_string_equal(tensor("outputs", 0, "dtype"), "float32");
        assert_true(noted("dtypes from main.cpp"));

        /* the example's case, with gen_data.py's files as its golden, and one timed case */
        cases = json_object_get(fx->doc, "cases");
        assert_true(json_array_size(cases) >= 1);
        c = json_array_get(cases, 0);
        assert_string_equal(json_string_value(json_object_get(c, "name")), "AclNNInvocationNaive");
        assert_int_equal(json_integer_value(
                             json_array_get(json_object_get(json_object_get(c, "shapes"), "x"), 1)),
                         300);
        golden = json_object_get(c, "golden");
        assert_string_equal(json_string_value(json_object_get(golden, "example")),
                            "examples/AclNNInvocationNaive");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(golden, "outputs"), "z")),
            "output/golden.bin");
        json_array_foreach(cases, i, c) benches += json_is_true(json_object_get(c, "bench"));
        assert_int_equal(benches, 1);
        /* the example is small: the timed case is it grown, which the check runs too */
        assert_string_equal(fx->notes.grown_bench, "bench");
        assert_true(noted("case bench is timed"));
        assert_int_equal(json_integer_value(json_object_get(fx->doc, "level")), 1);

        /* it is a manifest as it is */
        assert_int_equal(draft_check(fx->session, o.opdir, fx->doc, false, &fx->notes, summary,
                                     sizeof(summary), fx->err, sizeof(fx->err)),
                         0);
        assert_string_equal(summary, "");
}

static void test_draft_runs(void **state)
{
        struct draft_options o = {
                .variant = -1,
                .level = 2,
                .flag_cases = { "tiny:x=4x64,y=4x64", "x=8x256,y=8x256" },
                .n_flag_cases = 2,
                .bench_shape = "x=16x256,y=16x256",
        };
        json_t *cases;
        char dir[256], summary[768];

        /* no msOpSt cases and no example: the cases are the caller's (init's --case) */
        o.opdir = operator_dir("add_cases", true, false, dir, sizeof(dir));
        if (draft_manifest(&o, fx->session, &fx->doc, &fx->notes, fx->err, sizeof(fx->err)) < 0)
                fail_msg("%s", fx->err);
        cases = json_object_get(fx->doc, "cases");
        assert_int_equal(json_array_size(cases), 3);
        assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 1), "name")),
                            "case2");
        assert_string_equal(json_string_value(json_object_get(json_array_get(cases, 2), "name")),
                            "bench");
        assert_true(json_is_true(json_object_get(json_array_get(cases, 2), "bench")));
        assert_false(json_is_true(json_object_get(json_array_get(cases, 0), "bench")));
        assert_int_equal(json_integer_value(json_object_get(fx->doc, "level")), 2);
        assert_string_equal(fx->notes.grown_bench, "");

        /* the smallest case runs on the simulator */
        if (draft_check(fx->session, o.opdir, fx->doc, true, &fx->notes, summary, sizeof(summary),
                        fx->err, sizeof(fx->err)) < 0)
                fail_msg("%s", fx->err);
        assert_non_null(strstr(summary, "case tiny ran on the simulator: ok"));
}

static void test_errors_name_what_is_wrong(void **state)
{
        struct draft_options o = { .variant = -1, .level = 1 };
        char dir[256], want[512], summary[768];
        json_t *doc;

        /* no op_host: nothing to read the OpDef from */
        o.opdir = operator_dir("no_host", false, false, dir, sizeof(dir));
        assert_int_equal(
            draft_manifest(&o, fx->session, &fx->doc, &fx->notes, fx->err, sizeof(fx->err)),
            -ENOENT);
        assert_null(fx->doc);
        snprintf(want, sizeof(want), "%s: no op_host/*.cpp holding the OpDef", dir);
        assert_string_equal(fx->err, want);

        /* a draft edited into no manifest: the check names the field */
        doc = json_pack("{s:s, s:s, s:[{s:s, s:s}], s:[{s:s, s:s}], s:[{s:s, s:{s:[i]}}]}", "name",
                        "AddCustom", "kernel", "add_custom", "inputs", "name", "x", "dtype",
                        "float32", "outputs", "name", "z", "dtype", "float32", "cases", "name", "c",
                        "shapes", "w", 8);
        assert_non_null(doc);
        assert_true(draft_check(NULL, dir, doc, false, &fx->notes, summary, sizeof(summary),
                                fx->err, sizeof(fx->err)) < 0);
        assert_non_null(strstr(fx->err, ".cases[0].shapes.w: no input or output is named \"w\""));
        json_decref(doc);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_draft_from_example, setup, teardown),
                cmocka_unit_test_setup_teardown(test_draft_runs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_errors_name_what_is_wrong, setup, teardown),
        };
        return cmocka_run_group_tests_name("draft", tests, NULL, NULL);
}
