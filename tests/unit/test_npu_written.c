/* SPDX-License-Identifier: MIT */
/*
 * Tests of the judgement of output elements a kernel never wrote
 * (npu/written.c, npu_compare_results): results made by hand, as the
 * simulator's runtime records them, with their output and bit files in a
 * temporary directory.  An element the reference wrote and the candidate
 * did not fails even when its bytes match; a reference that does not say
 * (an older result, another backend) leaves the bytes to judge alone; two
 * runs that leave elements alone are compared element by element; without
 * a reference an unwritten element is a warning.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "npu/npu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 20 /* elements of the output y, bool */

static char dir[64];
static struct npu_manifest *manifest;

static void write_bytes(const char *name, const void *data, size_t len)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, len, f), len);
        fclose(f);
}

static int setup(void **state)
{
        static const char text[] =
            "{\"name\": \"Mask\", \"level\": 1,\n"
            " \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\"}],\n"
            " \"outputs\": [{\"name\": \"y\", \"dtype\": \"bool\"}],\n"
            " \"cases\": [{\"name\": \"small\", \"shapes\": {\"x\": [20]}}]}\n";
        char path[128], err[512];

        snprintf(dir, sizeof(dir), "/tmp/ascendopt-written-XXXXXX");
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/op_host", dir);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/op_kernel", dir);
        mkdir(path, 0755);
        write_bytes("op_host/mask.cpp", "//\n", 3);
        write_bytes("op_kernel/mask.cpp", "//\n", 3);
        write_bytes("ascendopt.json", text, strlen(text));
        if (npu_manifest_load(dir, &manifest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        return 0;
}

static int teardown(void **state)
{
        npu_manifest_free(manifest);
        rm_rf(dir);
        return 0;
}

/*
 * A result of one ok case whose output y holds N zero bytes in NAME.bin:
 * written_elements `written` (-1: not said), and when some are unwritten
 * the bits of `bits` (bit i set: element i written) in NAME.bits.
 */
static json_t *result(const char *name, int written, uint32_t bits)
{
        char file[256], bits_file[256];
        unsigned char zeros[N] = { 0 }, packed[(N + 7) / 8];
        json_t *out;
        int first = -1, end = N;

        snprintf(file, sizeof(file), "%s/%s.bin", dir, name);
        write_bytes(strrchr(file, '/') + 1, zeros, N);
        out = json_pack("{s:s, s:s, s:[i], s:s}", "name", "y", "dtype", "bool", "shape", N, "file",
                        file);
        if (written >= 0) {
                json_object_set_new(out, "written_elements", json_integer(written));
                for (int i = 0; i < N && first < 0; i++)
                        if (!(bits >> i & 1))
                                first = i;
                for (int i = first + 1; first >= 0 && i < N && end == N; i++)
                        if (bits >> i & 1)
                                end = i;
        }
        if (written >= 0 && written < N) {
                for (size_t k = 0; k < sizeof(packed); k++)
                        packed[k] = (unsigned char)(bits >> (8 * k));
                snprintf(bits_file, sizeof(bits_file), "%s/%s.bits", dir, name);
                write_bytes(strrchr(bits_file, '/') + 1, packed, sizeof(packed));
                json_object_set_new(out, "unwritten", json_pack("[[i, i]]", first, end));
                json_object_set_new(out, "written_file", json_string(bits_file));
        }
        return json_pack("{s:s, s:[{s:s, s:s, s:[o]}]}", "status", "ok", "cases", "case", "small",
                         "status", "ok", "outputs", out);
}

static const char *judge(json_t *candidate, const json_t *reference)
{
        char err[512];

        if (npu_compare_results(manifest, candidate, reference, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        return json_string_value(json_object_get(candidate, "status"));
}

static const char *message(const json_t *r)
{
        return json_string_value(json_object_get(json_object_get(r, "error"), "message")) ?: "";
}

#define ALL ((1u << N) - 1)

static void test_unwritten_is_wrong_though_bytes_match(void **state)
{
        json_t *ref = result("ref", N, ALL), *none = result("none", 0, 0);
        json_t *tail = result("tail", 16, 0xffffu), *verdict;

        assert_string_equal(judge(none, ref), "wrong_answer");
        assert_string_equal(message(none),
                            "case small: y: 20 of 20 elements never written by the kernel (the "
                            "reference writes them; the first at index 0); GM is not zeroed on "
                            "an NPU, so they would hold garbage there");
        verdict = json_array_get(json_object_get(none, "correctness"), 0);
        assert_false(json_is_true(json_object_get(verdict, "passed")));
        assert_true(json_number_value(json_object_get(verdict, "mismatch_fraction")) == 0);
        assert_int_equal(json_integer_value(json_object_get(verdict, "unwritten_elements")), 20);

        assert_string_equal(judge(tail, ref), "wrong_answer");
        assert_non_null(strstr(message(tail), "y: 4 of 20 elements never written by the kernel "
                                              "(the reference writes them; the first at index "
                                              "16)"));
        json_decref(ref);
        json_decref(none);
        json_decref(tail);
}

/* An older reference, or another backend's, does not say: its bytes alone judge. */
static void test_reference_that_does_not_say(void **state)
{
        json_t *old = result("old", -1, 0), *none = result("none", 0, 0);
        json_t *complete = result("complete", N, ALL), *unsaid = result("unsaid", -1, 0);

        assert_string_equal(judge(none, old), "ok");
        assert_null(json_object_get(none, "error"));
        assert_true(json_is_true(
            json_object_get(json_array_get(json_object_get(none, "correctness"), 0), "passed")));
        /* nor does a candidate that does not say fail a reference that does */
        assert_string_equal(judge(unsaid, complete), "ok");
        json_decref(old);
        json_decref(none);
        json_decref(complete);
        json_decref(unsaid);
}

/* Both leave elements alone: only those the reference writes count. */
static void test_element_by_element(void **state)
{
        /* the reference writes the even elements, the candidates other sets */
        const uint32_t even = 0x55555u;
        json_t *ref = result("ref", N / 2, even);
        json_t *same = result("same", N / 2, even);
        json_t *odd = result("odd", N / 2, ~even & ALL);
        json_t *more = result("more", N / 2 + 2, even | 0x2u | 0x8u);
        json_t *fewer = result("fewer", N / 2 - 1, even & ~0x10u);

        assert_string_equal(judge(same, ref), "ok");
        assert_string_equal(judge(more, ref), "ok");
        assert_string_equal(judge(odd, ref), "wrong_answer");
        assert_non_null(strstr(message(odd), "y: 10 of 20 elements never written by the kernel "
                                             "(the reference writes them; the first at index 0)"));
        assert_string_equal(judge(fewer, ref), "wrong_answer");
        assert_non_null(strstr(message(fewer), "y: 1 of 20 elements never written by the kernel "
                                               "(the reference writes them; the first at index "
                                               "4)"));
        json_decref(ref);
        json_decref(same);
        json_decref(odd);
        json_decref(more);
        json_decref(fewer);
}

/* Both leave elements alone but a bit file is gone: the comparison cannot be made. */
static void test_missing_bits_file(void **state)
{
        json_t *ref = result("ref", N / 2, 0x55555u), *cand = result("cand", 1, 0x1u);
        char err[512];

        json_object_set_new(
            json_array_get(
                json_object_get(json_array_get(json_object_get(cand, "cases"), 0), "outputs"), 0),
            "written_file", json_string("/nonexistent/cand.bits"));
        assert_int_equal(npu_compare_results(manifest, cand, ref, err, sizeof(err)), -ENOENT);
        assert_non_null(
            strstr(err, "case small: output y: cannot read which elements were written"));
        json_decref(ref);
        json_decref(cand);
}

static void test_warnings_without_reference(void **state)
{
        json_t *tail = result("tail", 16, 0xffffu), *complete = result("complete", N, ALL);
        json_t *old = result("old", -1, 0);

        assert_int_equal(npu_unwritten_warnings(tail), 0);
        assert_int_equal(json_array_size(json_object_get(tail, "warnings")), 1);
        assert_string_equal(json_string_value(json_array_get(json_object_get(tail, "warnings"), 0)),
                            "case small: y: 4 of 20 elements never written by the kernel (the "
                            "first at index 16); GM is not zeroed on an NPU, so unless the kernel "
                            "writes them through a raw pointer, which the simulator cannot see, "
                            "they hold garbage there");
        assert_int_equal(npu_unwritten_warnings(complete), 0);
        assert_null(json_object_get(complete, "warnings"));
        assert_int_equal(npu_unwritten_warnings(old), 0);
        assert_null(json_object_get(old, "warnings"));
        json_decref(tail);
        json_decref(complete);
        json_decref(old);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unwritten_is_wrong_though_bytes_match),
                cmocka_unit_test(test_reference_that_does_not_say),
                cmocka_unit_test(test_element_by_element),
                cmocka_unit_test(test_missing_bits_file),
                cmocka_unit_test(test_warnings_without_reference),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
