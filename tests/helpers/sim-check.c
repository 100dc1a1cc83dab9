/* SPDX-License-Identifier: MIT */
/*
 * Judges simulator runs for the integration tests, with the product's own
 * manifest loader and tolerance rule:
 *
 *   sim-check outputs OPDIR WORKDIR    every case_N/out_*.bin of an
 *       'ascendopt eval --work-dir WORKDIR' run against case_N/ref/, which
 *       the operator's independent reference.c wrote
 *   sim-check expect OPDIR RESULT.json the status and error kind of a run
 *       against OPDIR/expect.json (and its message, where expect.json has
 *       "message_contains")
 *
 * Prints one line per problem; exits 0 when everything matches.
 */
#include "npu/npu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *slurp(const char *path, size_t *len)
{
        FILE *f = fopen(path, "rb");
        char *data;
        long n;

        if (!f)
                return NULL;
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        data = malloc(n > 0 ? (size_t)n : 1);
        if (data && n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
                free(data);
                data = NULL;
        }
        fclose(f);
        *len = n > 0 ? (size_t)n : 0;
        return data;
}

/* Compares one file pair; returns 0 when it passes. */
static int compare_file(const struct npu_manifest *m, enum npu_dtype dtype, const char *got_path,
                        const char *want_path)
{
        struct npu_comparison c;
        size_t got_len = 0, want_len = 0;
        void *got = slurp(got_path, &got_len), *want = slurp(want_path, &want_len);
        int r = 0;

        if (!got || !want) {
                printf("%s: missing %s\n", got ? want_path : got_path,
                       got ? "reference" : "output");
                r = 1;
        } else if (got_len != want_len) {
                printf("%s: %zu bytes, reference has %zu\n", got_path, got_len, want_len);
                r = 1;
        } else {
                npu_compare(dtype, got, want, got_len / npu_dtype_size(dtype), &m->tolerance[dtype],
                            &c);
                if (!c.passed) {
                        printf("%s: %zu of %zu elements differ (max abs err %g)\n", got_path,
                               c.mismatches, c.elements, c.max_abs_err);
                        r = 1;
                }
        }
        free(got);
        free(want);
        return r;
}

static int check_outputs(const struct npu_manifest *m, const char *work)
{
        int failures = 0, compared = 0;

        for (size_t i = 0; i < m->n_cases; i++) {
                char dir[PATH_MAX];
                snprintf(dir, sizeof(dir), "%s/case_%zu", work, i);
                if (access(dir, F_OK) < 0)
                        continue; /* a bench case left out with --quick */
                for (size_t o = 0; o < m->n_outputs; o++) {
                        char got[PATH_MAX + 64], want[PATH_MAX + 64];
                        snprintf(got, sizeof(got), "%s/out_%s.bin", dir, m->outputs[o].name);
                        snprintf(want, sizeof(want), "%s/ref/out_%s.bin", dir, m->outputs[o].name);
                        if (access(got, F_OK) < 0) {
                                /* a dynamic list output: out_<name>_<i>.bin */
                                for (int k = 0;; k++) {
                                        snprintf(got, sizeof(got), "%s/out_%s_%d.bin", dir,
                                                 m->outputs[o].name, k);
                                        snprintf(want, sizeof(want), "%s/ref/out_%s_%d.bin", dir,
                                                 m->outputs[o].name, k);
                                        if (access(got, F_OK) < 0)
                                                break;
                                        failures += compare_file(m, m->outputs[o].dtype, got, want);
                                        compared++;
                                }
                                continue;
                        }
                        failures += compare_file(m, m->outputs[o].dtype, got, want);
                        compared++;
                }
        }
        if (!compared) {
                printf("%s: no outputs to compare\n", work);
                return 1;
        }
        return failures ? 1 : 0;
}

static int check_expect(const char *opdir, const char *result_path)
{
        char path[PATH_MAX];
        json_t *expect, *result;
        const char *want_status, *want_kind, *got_status, *got_kind, *want_text, *got_text;
        int r = 0;

        snprintf(path, sizeof(path), "%s/expect.json", opdir);
        expect = json_load_file(path, 0, NULL);
        result = json_load_file(result_path, 0, NULL);
        if (!expect || !result) {
                printf("cannot read %s\n", expect ? result_path : path);
                json_decref(expect);
                json_decref(result);
                return 2;
        }
        want_status = json_string_value(json_object_get(expect, "status"));
        want_kind = json_string_value(json_object_get(expect, "kind"));
        got_status = json_string_value(json_object_get(result, "status"));
        got_kind = json_string_value(json_object_get(json_object_get(result, "error"), "kind"));
        want_text = json_string_value(json_object_get(expect, "message_contains"));
        got_text = json_string_value(json_object_get(json_object_get(result, "error"), "message"));
        if (!got_status || strcmp(got_status, want_status ? want_status : "") != 0 ||
            (want_kind && (!got_kind || strcmp(got_kind, want_kind) != 0)) ||
            (want_text && (!got_text || !strstr(got_text, want_text)))) {
                printf("want %s/%s, got %s/%s: %s\n", want_status, want_kind ? want_kind : "-",
                       got_status ? got_status : "?", got_kind ? got_kind : "-",
                       json_string_value(
                           json_object_get(json_object_get(result, "error"), "message")));
                r = 1;
        }
        json_decref(expect);
        json_decref(result);
        return r;
}

int main(int argc, char **argv)
{
        struct npu_manifest *m = NULL;
        char err[1024];
        int r;

        if (argc != 4 || (strcmp(argv[1], "outputs") != 0 && strcmp(argv[1], "expect") != 0)) {
                fprintf(stderr, "usage: sim-check outputs OPDIR WORKDIR | expect OPDIR RESULT\n");
                return 2;
        }
        if (strcmp(argv[1], "expect") == 0)
                return check_expect(argv[2], argv[3]);
        if (npu_manifest_load(argv[2], &m, err, sizeof(err)) < 0) {
                printf("%s\n", err);
                return 2;
        }
        r = check_outputs(m, argv[3]);
        npu_manifest_free(m);
        return r;
}
