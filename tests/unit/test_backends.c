/* SPDX-License-Identifier: MIT */
/*
 * The two backends behind one evaluator: the inputs the evaluator writes
 * for the real NPU are byte for byte the sim's; the sim and the ascend
 * backend (on the fake toolchain of tests/fixtures/fake-cann) give results
 * of the same schema; and the ascend evaluator memoizes, judges against a
 * reference, pins the leased device, never serves a sim result and can be
 * cancelled while it writes its inputs; a case whose golden is an example
 * runs on the example's inputs on both.
 *
 * expensive: builds and runs operators on the simulator and the fake toolchain
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "npu/ascend.h"
#include "npu/npu.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

struct fixture {
        char root[64];
        char source[PATH_MAX];
        struct event_base *base;
        struct child_runner *runner;
        struct npu_sim_paths paths;
        struct store *store;
        struct npu_evaluator *sim, *ascend;
        struct npu_manifest *manifest;
};

struct outcome {
        json_t *result;
        bool memo_hit;
        bool done;
};

static struct fixture *fx;

static void pathf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void pathf(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= size)
                fail_msg("path too long: %s", buf);
}

static struct npu_evaluator *new_evaluator(enum npu_backend backend, const char *platform,
                                           const char *name)
{
        struct npu_evaluator_options options = { 0 };
        struct npu_evaluator *e = NULL;
        char scratch[PATH_MAX], toolkit[PATH_MAX], err[1024];

        pathf(scratch, sizeof(scratch), "%s/scratch-%s", fx->root, name);
        pathf(toolkit, sizeof(toolkit), "%s/tests/fixtures/fake-cann/ascend-toolkit/latest",
              fx->source);
        options.base = fx->base;
        options.backend = backend;
        options.platform = platform;
        options.scratch_dir = scratch;
        options.timeout_s = 60;
        options.toolkit = backend == NPU_BACKEND_ASCEND ? toolkit : NULL;
        if (npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &e, err, sizeof(err)) <
            0)
                fail_msg("%s", err);
        return e;
}

static int setup(void **state)
{
        char dir[PATH_MAX], err[1024], path[PATH_MAX];
        const char *source = getenv("ASCENDOPT_SOURCE_DIR");

        fx = calloc(1, sizeof(*fx));
        assert_non_null(fx);
        pathf(fx->source, sizeof(fx->source), "%s", source ? source : ".");
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-backends-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        fx->base = event_base_new();
        assert_int_equal(child_runner_new(fx->base, NULL, &fx->runner), 0);
        if (npu_sim_paths_find(&fx->paths) < 0)
                fail_msg("the simulator runtime is not built (set ASCENDOPT_SIM_DIR)");
        pathf(dir, sizeof(dir), "%s/store", fx->root);
        assert_int_equal(store_open(dir, &fx->store, err, sizeof(err)), 0);
        fx->sim = new_evaluator(NPU_BACKEND_SIM, "Ascend910B4", "sim");
        fx->ascend = new_evaluator(NPU_BACKEND_ASCEND, "Ascend910B4", "ascend");
        /* Add with its two small cases only, the second marked bench to give a
         * summary: the evaluator reads the manifest of its own copy */
        {
                char command[3 * PATH_MAX];
                json_t *doc, *cases;
                pathf(path, sizeof(path), "%s/add_custom", fx->root);
                snprintf(command, sizeof(command), "cp -R '%s/tests/ops/ok/add_custom' '%s'",
                         fx->source, path);
                assert_int_equal(system(command), 0);
                pathf(dir, sizeof(dir), "%s/ascendopt.json", path);
                doc = json_load_file(dir, 0, NULL);
                assert_non_null(doc);
                cases = json_object_get(doc, "cases");
                while (json_array_size(cases) > 2)
                        json_array_remove(cases, json_array_size(cases) - 1);
                json_object_set_new(json_array_get(cases, 1), "bench", json_true());
                assert_int_equal(json_dump_file(doc, dir, JSON_INDENT(2)), 0);
                json_decref(doc);
        }
        if (npu_manifest_load(path, &fx->manifest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        npu_manifest_free(fx->manifest);
        npu_evaluator_free(fx->sim);
        npu_evaluator_free(fx->ascend);
        store_close(fx->store);
        child_runner_free(fx->runner);
        npu_sim_paths_release(&fx->paths);
        event_base_free(fx->base);
        rm_rf(fx->root);
        free(fx);
        unsetenv("FAKE_MSPROF_LOG");
        unsetenv("FAKE_NPU_SMI_INFO");
        return 0;
}

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        o->result = result;
        o->memo_hit = memo_hit;
        o->done = true;
}

static json_t *evaluate(struct npu_evaluator *e, const struct npu_override *overrides, size_t n,
                        const json_t *reference, bool keep, int device, bool *ret_memo_hit)
{
        struct npu_request req = { .manifest = fx->manifest,
                                   .overrides = overrides,
                                   .n_overrides = n,
                                   .seed = 5,
                                   .reference = reference,
                                   .keep_outputs = keep,
                                   .device = device };
        struct outcome o = { 0 };

        assert_int_equal(npu_evaluate(e, &req, on_done, &o, NULL), 0);
        assert_false(o.done);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        if (ret_memo_hit)
                *ret_memo_hit = o.memo_hit;
        return o.result;
}

static const char *status_of(const json_t *r)
{
        return json_string_value(json_object_get(r, "status"));
}

static void expect_ok(const json_t *r, const char *what)
{
        if (!status_of(r) || strcmp(status_of(r), "ok") != 0)
                fail_msg("%s: %s", what, json_dumps(r, JSON_COMPACT));
}

static bool same_file(const char *a, const char *b)
{
        FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
        bool same = fa && fb;
        int ca, cb;

        while (same) {
                ca = fgetc(fa);
                cb = fgetc(fb);
                same = ca == cb;
                if (ca == EOF || cb == EOF)
                        break;
        }
        if (fa)
                fclose(fa);
        if (fb)
                fclose(fb);
        return same;
}

static void on_sim_eval(json_t *result, void *userdata)
{
        struct outcome *o = userdata;

        o->result = result;
        o->done = true;
}

/* The sim's own inputs of case 0 against the evaluator's C generator, for one operator. */
static void inputs_match(const char *op)
{
        struct npu_sim_run_options options = { .seed = 9, .only_case = 0, .timeout_s = 60 };
        struct npu_manifest *m = NULL;
        struct outcome o = { 0 };
        char dir[PATH_MAX], work[PATH_MAX], mine[PATH_MAX], theirs[PATH_MAX], err[1024];
        json_t *inputs = NULL, *sim_case, *t;
        size_t i;

        pathf(dir, sizeof(dir), "%s/tests/ops/ok/%s", fx->source, op);
        if (npu_manifest_load(dir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        pathf(work, sizeof(work), "%s/inputs-sim-%s", fx->root, op);
        options.work_dir = work;
        options.keep_work_dir = true;
        assert_int_equal(
            npu_sim_run_start(fx->runner, &fx->paths, m, &options, on_sim_eval, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        expect_ok(o.result, op);
        sim_case = json_array_get(json_object_get(o.result, "cases"), 0);
        assert_non_null(sim_case);
        /* the sim seeds case k with seed + k */
        pathf(mine, sizeof(mine), "%s/inputs-c-%s", fx->root, op);
        if (npu_inputs_write(m, 0, 9, mine, &inputs, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(json_array_size(inputs),
                         json_array_size(json_object_get(sim_case, "inputs")));
        json_array_foreach(json_object_get(sim_case, "inputs"), i, t)
        {
                const json_t *ours = json_array_get(inputs, i);
                pathf(theirs, sizeof(theirs), "%s/case_0/%s", work,
                      json_string_value(json_object_get(t, "file")));
                assert_string_equal(json_string_value(json_object_get(t, "name")),
                                    json_string_value(json_object_get(ours, "name")));
                if (!same_file(theirs, json_string_value(json_object_get(ours, "file"))))
                        fail_msg("%s: input %s differs from the sim's (%s)", op,
                                 json_string_value(json_object_get(t, "name")), theirs);
        }
        json_decref(inputs);
        json_decref(o.result);
        npu_manifest_free(m);
}

static void test_inputs_are_the_sims(void **state)
{
        /* half, bfloat16, int8/uint8, int32, int16 with input_ranges, float with ranges */
        inputs_match("add_custom");
        inputs_match("bf16_scale");
        inputs_match("cast_int8");
        inputs_match("int32_ops");
        inputs_match("bitwise_int16");
        inputs_match("binary_repeat");
        /* an absent optional input takes no instance number; uint64 and float64
         * with ranges; complex64, two float draws per element */
        inputs_match("optional_bias");
        inputs_match("u64_delta");
        inputs_match("cscale_conj");
}

/* Every key of want is in got with the same JSON type; names the first that is not. */
static void same_types(const json_t *got, const json_t *want, const char *where,
                       const char *const *keys)
{
        for (const char *const *k = keys; *k; k++) {
                const json_t *a = json_object_get(got, *k), *b = json_object_get(want, *k);
                if (!a || !b)
                        fail_msg("%s.%s: present in sim %d, in ascend %d", where, *k, b != NULL,
                                 a != NULL);
                if (json_typeof(a) != json_typeof(b) && !(json_is_number(a) && json_is_number(b)))
                        fail_msg("%s.%s: type %d in ascend, %d in sim", where, *k, json_typeof(a),
                                 json_typeof(b));
        }
}

static void test_same_schema(void **state)
{
        static const char *const result_keys[] = {
                "status",         "backend",    "operator", "platform",  "seed",
                "cases",          "latency_us", "profile",  "block_dim", "bottleneck",
                "outputs_sha256", "compile_s",  "run_s",    "identity",  "context",
                "files",          NULL
        };
        static const char *const case_keys[] = { "case",       "bench",      "status",  "seed",
                                                 "latency_us", "samples_us", "iqr_us",  "block_dim",
                                                 "profile",    "bottleneck", "outputs", "inputs",
                                                 "attrs",      NULL };
        /* "file" first: the sim's evaluator writes outputs, not inputs */
        static const char *const tensor_keys[] = { "file", "name", "dtype", "shape", NULL };
        static const char *const profile_keys[] = { "clock_mhz", "cores", "core_imbalance", "pipes",
                                                    NULL };
        json_t *sim = evaluate(fx->sim, NULL, 0, NULL, true, 0, NULL);
        json_t *ascend = evaluate(fx->ascend, NULL, 0, NULL, true, 1, NULL);
        const json_t *a_case, *s_case;
        const char *s_key;
        json_t *value;

        expect_ok(sim, "sim");
        expect_ok(ascend, "ascend");
        assert_string_equal(json_string_value(json_object_get(sim, "backend")), "sim");
        assert_string_equal(json_string_value(json_object_get(ascend, "backend")), "ascend");
        same_types(ascend, sim, "result", result_keys);
        assert_int_equal(json_array_size(json_object_get(ascend, "cases")),
                         json_array_size(json_object_get(sim, "cases")));
        for (size_t i = 0; i < json_array_size(json_object_get(sim, "cases")); i++) {
                s_case = json_array_get(json_object_get(sim, "cases"), i);
                a_case = json_array_get(json_object_get(ascend, "cases"), i);
                same_types(a_case, s_case, "cases[]", case_keys);
                same_types(json_array_get(json_object_get(a_case, "outputs"), 0),
                           json_array_get(json_object_get(s_case, "outputs"), 0), "outputs[]",
                           tensor_keys + 0);
                /* the sim's evaluator writes no inputs (nothing reads them back) */
                same_types(json_array_get(json_object_get(a_case, "inputs"), 0),
                           json_array_get(json_object_get(s_case, "inputs"), 0), "inputs[]",
                           tensor_keys + 1);
                assert_null(
                    json_object_get(json_array_get(json_object_get(s_case, "inputs"), 0), "file"));
                assert_string_equal(json_string_value(json_object_get(a_case, "case")),
                                    json_string_value(json_object_get(s_case, "case")));
                /* the same seeded inputs: the NPU's file is what the sim generates for the
                 * case's seed (test_inputs_are_the_sims: that is the sim's own draw) */
                {
                        char mine[PATH_MAX], err[1024];
                        json_t *inputs = NULL;
                        uint64_t seed =
                            (uint64_t)json_integer_value(json_object_get(s_case, "seed"));
                        pathf(mine, sizeof(mine), "%s/inputs-schema-%zu", fx->root, i);
                        if (npu_inputs_write(fx->manifest, i, seed, mine, &inputs, err,
                                             sizeof(err)) < 0)
                                fail_msg("%s", err);
                        assert_true(same_file(
                            json_string_value(json_object_get(json_array_get(inputs, 0), "file")),
                            json_string_value(json_object_get(
                                json_array_get(json_object_get(a_case, "inputs"), 0), "file"))));
                        json_decref(inputs);
                }
        }
        same_types(json_object_get(ascend, "profile"), json_object_get(sim, "profile"), "profile",
                   profile_keys);
        /* and no key of the ascend result has a type the sim's same key does not */
        json_object_foreach(sim, s_key, value)
        {
                const json_t *other = json_object_get(ascend, s_key);
                if (other && json_typeof(other) != json_typeof(value) &&
                    !(json_is_number(other) && json_is_number(value)) && !json_is_null(value))
                        fail_msg("result.%s: type %d in ascend, %d in sim", s_key,
                                 json_typeof(other), json_typeof(value));
        }
        /* the ascend summary comes from the bench case */
        assert_true(json_number_value(json_object_get(ascend, "latency_us")) > 0);
        rm_rf(json_string_value(json_object_get(sim, "scratch_dir")));
        rm_rf(json_string_value(json_object_get(ascend, "scratch_dir")));
        json_decref(sim);
        json_decref(ascend);
}

/*
 * A case whose golden is an example runs on the example's inputs on both
 * backends: the sim reads the evaluator's copies of what gen_data.py wrote,
 * and so does the ascend harness, instead of seeded inputs.  gen_data.py
 * (ours) also leaves a copy of x where the test finds it: the evaluator
 * runs it unsandboxed here.
 */
static void test_example_inputs_on_both_backends(void **state)
{
        static const char gen_data[] =
            "import os\n"
            "import numpy as np\n"
            "x = (np.arange(8 * 2048) % 97).astype(np.float16)\n"
            "y = (np.arange(8 * 2048) % 89).astype(np.float16)\n"
            "os.makedirs('input', exist_ok=True)\n"
            "os.makedirs('output', exist_ok=True)\n"
            "x.tofile('input/x.bin')\n"
            "y.tofile('input/y.bin')\n"
            "(x + y).tofile('output/z.bin')\n"
            "x.tofile(os.path.join(os.environ['TEST_BACKENDS_ROOT'], 'expected_x.bin'))\n"
            "(x + y).tofile(os.path.join(os.environ['TEST_BACKENDS_ROOT'], 'expected_z.bin'))\n";
        char dir[PATH_MAX], path[PATH_MAX], expected[PATH_MAX], command[3 * PATH_MAX], err[1024];
        struct npu_manifest *m = NULL;
        json_t *doc, *sim = NULL, *ascend = NULL;
        struct outcome o;
        FILE *f;

        pathf(dir, sizeof(dir), "%s/add_example", fx->root);
        snprintf(command, sizeof(command), "cp -R '%s/add_custom' '%s' && mkdir -p '%s/examples/E'",
                 fx->root, dir, dir);
        assert_int_equal(system(command), 0);
        pathf(path, sizeof(path), "%s/examples/E/gen_data.py", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(gen_data, f);
        fclose(f);
        pathf(path, sizeof(path), "%s/ascendopt.json", dir);
        doc = json_load_file(path, 0, NULL);
        assert_non_null(doc);
        json_object_set_new(json_array_get(json_object_get(doc, "cases"), 0), "golden",
                            json_pack("{s:s, s:{s:{s:s}, s:{s:s}}, s:{s:s}}", "example",
                                      "examples/E", "inputs", "x", "file", "input/x.bin", "y",
                                      "file", "input/y.bin", "outputs", "z", "output/z.bin"));
        assert_int_equal(json_dump_file(doc, path, JSON_INDENT(2)), 0);
        json_decref(doc);
        if (npu_manifest_load(dir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        setenv("TEST_BACKENDS_ROOT", fx->root, 1);
        pathf(expected, sizeof(expected), "%s/expected_x.bin", fx->root);

        for (int b = 0; b < 2; b++) {
                struct npu_request req = { .manifest = m, .seed = 5, .keep_outputs = true };
                memset(&o, 0, sizeof(o));
                assert_int_equal(npu_evaluate(b ? fx->ascend : fx->sim, &req, on_done, &o, NULL),
                                 0);
                while (!o.done)
                        event_base_loop(fx->base, EVLOOP_ONCE);
                expect_ok(o.result, b ? "ascend" : "sim");
                if (b)
                        ascend = o.result;
                else
                        sim = o.result;
        }
        /* what the sim computed from what it read: x + y is exact in half for these */
        {
                const json_t *s_case = json_array_get(json_object_get(sim, "cases"), 0);
                char expected_z[PATH_MAX];
                pathf(expected_z, sizeof(expected_z), "%s/expected_z.bin", fx->root);
                const char *file = json_string_value(
                    json_object_get(json_array_get(json_object_get(s_case, "outputs"), 0), "file"));
                assert_non_null(file);
                assert_true(same_file(file, expected_z));
        }
        /* the file the ascend harness was given */
        {
                const json_t *a_case = json_array_get(json_object_get(ascend, "cases"), 0);
                const char *file = json_string_value(
                    json_object_get(json_array_get(json_object_get(a_case, "inputs"), 0), "file"));
                assert_non_null(file);
                assert_non_null(strstr(file, "/example_inputs/"));
                assert_true(same_file(file, expected));
        }
        rm_rf(json_string_value(json_object_get(sim, "scratch_dir")));
        rm_rf(json_string_value(json_object_get(ascend, "scratch_dir")));
        json_decref(sim);
        json_decref(ascend);
        npu_manifest_free(m);
        unsetenv("TEST_BACKENDS_ROOT");
}

static void test_ascend_evaluator(void **state)
{
        struct npu_request req = { .manifest = fx->manifest };
        char log[PATH_MAX], busy[PATH_MAX], sim_id[SHA256_HEX_SIZE], ascend_id[SHA256_HEX_SIZE];
        struct npu_override tweak = { "op_host/add_custom_tiling.h", NULL };
        json_t *baseline, *again, *tweaked, *refused;
        char *logged = calloc(1, 8192);
        bool memo_hit = true;
        FILE *f;

        assert_non_null(logged);
        /* the same files never share an identity across backends */
        assert_int_equal(npu_candidate_identity(fx->sim, &req, sim_id), 0);
        assert_int_equal(npu_candidate_identity(fx->ascend, &req, ascend_id), 0);
        assert_string_not_equal(sim_id, ascend_id);
        assert_string_not_equal(npu_evaluator_context(fx->sim), npu_evaluator_context(fx->ascend));

        pathf(log, sizeof(log), "%s/msprof.log", fx->root);
        setenv("FAKE_MSPROF_LOG", log, 1);
        baseline = evaluate(fx->ascend, NULL, 0, NULL, true, 1, &memo_hit);
        expect_ok(baseline, "ascend baseline");
        assert_false(memo_hit);
        assert_string_equal(json_string_value(json_object_get(baseline, "platform")),
                            "Ascend910B4");
        assert_int_equal(json_integer_value(json_object_get(baseline, "device")), 1);
        /* msprof ran the last case on the leased device */
        f = fopen(log, "r");
        assert_non_null(f);
        assert_true(fread(logged, 1, 8191, f) > 0);
        fclose(f);
        /* the harness picks the leased device itself: msprof does not support
         * ASCEND_RT_VISIBLE_DEVICES */
        assert_non_null(strstr(logged, "ASCEND_RT_VISIBLE_DEVICES unset\n"));
        if (!strstr(logged, "ascendopt_harness_add_custom 1 1 6 "))
                fail_msg("msprof ran: %s", logged);

        /* served from the memo the second time */
        again = evaluate(fx->ascend, NULL, 0, baseline, false, 0, &memo_hit);
        assert_true(memo_hit);
        assert_string_equal(status_of(again), "ok");

        /* a changed candidate is built and judged against the baseline's outputs */
        {
                char path[PATH_MAX];
                FILE *h;
                char *text = calloc(1, 1 << 16);
                size_t n;
                assert_non_null(text);
                pathf(path, sizeof(path), "%s/op_host/add_custom_tiling.h", fx->manifest->dir);
                h = fopen(path, "r");
                assert_non_null(h);
                n = fread(text, 1, (1 << 16) - 64, h);
                fclose(h);
                strcpy(text + n, "\n/* a different candidate */\n");
                tweak.text = text;
                tweaked = evaluate(fx->ascend, &tweak, 1, baseline, false, 0, &memo_hit);
                free(text);
        }
        assert_false(memo_hit);
        expect_ok(tweaked, "ascend candidate");
        assert_int_equal(json_array_size(json_object_get(tweaked, "correctness")), 2);
        assert_true(json_is_true(
            json_object_get(json_array_get(json_object_get(tweaked, "correctness"), 0), "passed")));

        /* a busy device is infra_error, and it is never memoized */
        pathf(busy, sizeof(busy), "%s/tests/fixtures/ascend/npu-smi/info-busy.txt", fx->source);
        setenv("FAKE_NPU_SMI_INFO", busy, 1);
        tweak.text = "/* yet another candidate */\n";
        refused = evaluate(fx->ascend, &tweak, 1, baseline, false, 0, &memo_hit);
        assert_string_equal(status_of(refused), "infra_error");
        json_decref(refused);
        refused = evaluate(fx->ascend, &tweak, 1, baseline, false, 0, &memo_hit);
        assert_false(memo_hit);
        assert_string_equal(status_of(refused), "infra_error");
        unsetenv("FAKE_NPU_SMI_INFO");

        rm_rf(json_string_value(json_object_get(baseline, "scratch_dir")));
        json_decref(baseline);
        json_decref(again);
        json_decref(tweaked);
        json_decref(refused);
        free(logged);
}

static void test_ascend_cancel(void **state)
{
        struct npu_request req = { .manifest = fx->manifest, .seed = 77, .device = 0 };
        struct npu_job *evaluation = NULL;
        struct outcome o = { 0 };

        /* cancelled while its inputs are written: infra_error, never stored */
        assert_int_equal(npu_evaluate(fx->ascend, &req, on_done, &o, &evaluation), 0);
        npu_job_cancel(evaluation);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        assert_string_equal(status_of(o.result), "infra_error");
        assert_non_null(strstr(
            json_string_value(json_object_get(json_object_get(o.result, "error"), "message")),
            "cancelled"));
        json_decref(o.result);
        memset(&o, 0, sizeof(o));
        assert_int_equal(npu_evaluate(fx->ascend, &req, on_done, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        assert_false(o.memo_hit);
        expect_ok(o.result, "after a cancel");
        json_decref(o.result);
}

static void test_ascend_needs_a_soc_and_a_toolkit(void **state)
{
        struct npu_evaluator_options options = { .base = fx->base, .backend = NPU_BACKEND_ASCEND };
        struct npu_evaluator *e = NULL;
        char scratch[PATH_MAX], err[1024] = "";

        pathf(scratch, sizeof(scratch), "%s/scratch-bad", fx->root);
        options.scratch_dir = scratch;
        assert_int_equal(
            npu_evaluator_new(fx->runner, NULL, fx->store, &options, &e, err, sizeof(err)),
            -EINVAL);
        assert_non_null(strstr(err, "SoC"));
        options.platform = "Ascend910B4";
        options.toolkit = "/nonexistent/ascend-toolkit/latest";
        assert_int_equal(
            npu_evaluator_new(fx->runner, NULL, fx->store, &options, &e, err, sizeof(err)),
            -ENOENT);
        assert_non_null(strstr(err, "/nonexistent/ascend-toolkit/latest"));
        assert_null(e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_inputs_are_the_sims, setup, teardown),
                cmocka_unit_test_setup_teardown(test_same_schema, setup, teardown),
                cmocka_unit_test_setup_teardown(test_example_inputs_on_both_backends, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_ascend_evaluator, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ascend_cancel, setup, teardown),
                cmocka_unit_test_setup_teardown(test_ascend_needs_a_soc_and_a_toolkit, setup,
                                                teardown),
        };

        /* the tests name their toolkit; the caller's must not leak in */
        unsetenv("ASCEND_HOME_PATH");
        signal(SIGPIPE, SIG_IGN);
        return cmocka_run_group_tests_name("backends", tests, NULL, NULL);
}
