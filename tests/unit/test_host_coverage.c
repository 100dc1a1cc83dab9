/* SPDX-License-Identifier: MIT */
/*
 * Tests of npu_host_coverage (issue #26): the host code of
 * tests/ops/ok/keyed_scale, built under gcov on the simulator and run up to
 * its tiling function over the manifest's float32 cases, reports its
 * float32 lines as run and the lines of its float16 branch as not run; a
 * constant's definition holds no code and is in neither list; cancelling
 * ends it with an infra_error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "op-fixture.h"

#include "common/common.h"
#include "npu/npu.h"

#include <event2/event.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP   "tests/ops/ok/keyed_scale"
#define FILE "op_host/keyed_scale.cpp"

struct outcome {
        json_t *result;
        bool done;
};

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        assert_false(memo_hit);
        o->result = result;
        o->done = true;
}

/* The line of the host file that holds text (once). */
static int line_of(const char *text)
{
        char *source = slurp(OP "/" FILE);
        const char *at = strstr(source, text);
        int line = 1;

        if (!at)
                fail_msg("%s holds no \"%s\"", FILE, text);
        assert_null(strstr(at + 1, text));
        for (const char *p = source; p < at; p++)
                line += *p == '\n';
        free(source);
        return line;
}

static bool listed(const json_t *lines, int line)
{
        size_t i;
        json_t *v;

        json_array_foreach(lines, i, v) if (json_integer_value(v) == line) return true;
        return false;
}

/* Whether the evaluator's scratch holds no coverage-* directory. */
static bool scratch_is_empty(void)
{
        char dir[256];
        struct dirent *e;
        bool empty = true;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/scratch", fx->root);
        d = opendir(dir);
        assert_non_null(d);
        while ((e = readdir(d)))
                empty &= strncmp(e->d_name, "coverage-", 9) != 0;
        closedir(d);
        return empty;
}

static struct npu_manifest *load_manifest(void)
{
        struct npu_manifest *m = NULL;
        char dir[4096], err[512];

        snprintf(dir, sizeof(dir), "%s/%s", source_dir(), OP);
        if (npu_manifest_load(dir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        return m;
}

static void test_the_lines_the_cases_run(void **state)
{
        struct npu_manifest *m = load_manifest();
        struct outcome o = { 0 };
        const json_t *file;

        assert_int_equal(npu_host_coverage(fx->evaluator, m, on_done, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        if (strcmp(json_string_value(json_object_get(o.result, "status")), "ok") != 0)
                fail_msg("%s", json_dumps(o.result, 0));
        file = json_object_get(json_object_get(o.result, "coverage"), FILE);
        assert_non_null(file);
        /* the float32 path ran, in every case */
        assert_true(listed(json_object_get(file, "ran"), line_of("uint32_t ubPartNum = 2;")));
        assert_true(
            listed(json_object_get(file, "ran"), line_of("context->SetTilingKey(tilingKey);")));
        /* the float16 branch holds code no case runs */
        assert_true(listed(json_object_get(file, "not_ran"), line_of("ubPartNum = 3;")));
        assert_true(listed(json_object_get(file, "not_ran"), line_of("tileNum = HALF_TILE_NUM;")));
        assert_false(listed(json_object_get(file, "ran"), line_of("ubPartNum = 3;")));
        /* a constant's definition is no code: its uses say whether it runs */
        assert_false(listed(json_object_get(file, "ran"), line_of("HALF_TILE_NUM = 16;")));
        assert_false(listed(json_object_get(file, "not_ran"), line_of("HALF_TILE_NUM = 16;")));
        /* the scratch it built in is gone */
        assert_true(scratch_is_empty());
        json_decref(o.result);
        npu_manifest_free(m);
}

static void test_a_cancelled_coverage_says_so(void **state)
{
        struct npu_manifest *m = load_manifest();
        struct outcome o = { 0 };
        struct npu_job *job = NULL;

        assert_int_equal(npu_host_coverage(fx->evaluator, m, on_done, &o, &job), 0);
        npu_job_cancel(job);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        assert_string_equal(json_string_value(json_object_get(o.result, "status")), "infra_error");
        json_decref(o.result);
        npu_manifest_free(m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_the_lines_the_cases_run),
                cmocka_unit_test(test_a_cancelled_coverage_says_so),
        };

        return cmocka_run_group_tests(tests, sim_setup, sim_teardown);
}
