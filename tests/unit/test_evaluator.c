/* SPDX-License-Identifier: MIT */
/*
 * Tests of the memoizing evaluator on the real simulator with the Add
 * operator of tests/ops: a baseline kept as reference, a memo hit that
 * compiles nothing, a correct variant judged against the reference, a wrong
 * kernel caught, a compile error remembered, an output never written caught
 * although its bytes match (tests/ops/ok/threshold_mask), a tiling program
 * served for the launch a measured one had, and identities that change
 * with the platform.
 *
 * expensive: evaluates operators on the simulator
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

struct fixture {
        char root[64];
        struct event_base *base;
        struct child_runner *runner;
        struct npu_sim_paths paths;
        struct store *store;
        struct npu_evaluator *evaluator;
        struct npu_manifest *manifest;
        char *kernel_text;
};

struct outcome {
        json_t *result;
        bool memo_hit;
        bool done;
};

static struct fixture *fx;

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "r");
        char *text = calloc(1, 1 << 20);
        size_t n;

        assert_non_null(f);
        n = fread(text, 1, (1 << 20) - 1, f);
        text[n] = '\0';
        fclose(f);
        return text;
}

static int setup(void **state)
{
        struct npu_evaluator_options options = { 0 };
        char dir[128], err[1024], path[256];

        fx = calloc(1, sizeof(*fx));
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-evaluator-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        fx->base = event_base_new();
        assert_int_equal(child_runner_new(fx->base, NULL, &fx->runner), 0);
        if (npu_sim_paths_find(&fx->paths) < 0)
                fail_msg("the simulator runtime is not built (set ASCENDOPT_SIM_DIR)");
        snprintf(dir, sizeof(dir), "%s/store", fx->root);
        assert_int_equal(store_open(dir, &fx->store, err, sizeof(err)), 0);
        char cache[128];
        snprintf(dir, sizeof(dir), "%s/scratch", fx->root);
        snprintf(cache, sizeof(cache), "%s/cache", fx->root);
        options.base = fx->base;
        options.scratch_dir = dir;
        options.cache_dir = cache;
        options.timeout_s = 60;
        if (npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &fx->evaluator, err,
                              sizeof(err)) < 0)
                fail_msg("%s", err);
        snprintf(path, sizeof(path), "%s/tests/ops/ok/add_custom",
                 getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".");
        if (npu_manifest_load(path, &fx->manifest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        /* only the small cases: the 8192x8192 one is the benchmark's */
        fx->manifest->n_cases = 2;
        snprintf(path, sizeof(path), "%s/op_kernel/add_custom.cpp", fx->manifest->dir);
        fx->kernel_text = slurp(path);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        fx->manifest->n_cases = 4;
        npu_manifest_free(fx->manifest);
        npu_evaluator_free(fx->evaluator);
        store_close(fx->store);
        child_runner_free(fx->runner);
        npu_sim_paths_release(&fx->paths);
        event_base_free(fx->base);
        rm_rf(fx->root);
        free(fx->kernel_text);
        free(fx);
        return 0;
}

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        o->result = result;
        o->memo_hit = memo_hit;
        o->done = true;
}

static json_t *evaluate(const struct npu_override *overrides, size_t n, const json_t *reference,
                        bool keep, bool *ret_memo_hit)
{
        struct npu_request req = { .manifest = fx->manifest,
                                   .overrides = overrides,
                                   .n_overrides = n,
                                   .seed = 5,
                                   .reference = reference,
                                   .keep_outputs = keep };
        struct outcome o = { 0 };

        assert_int_equal(npu_evaluate(fx->evaluator, &req, on_done, &o, NULL), 0);
        /* never delivered from inside npu_evaluate */
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

/* The kernel with its first occurrence of from replaced by to. */
static char *kernel_with(const char *from, const char *to)
{
        const char *at = strstr(fx->kernel_text, from);
        char *out;

        assert_non_null(at);
        out = malloc(strlen(fx->kernel_text) + strlen(to) + 1);
        sprintf(out, "%.*s%s%s", (int)(at - fx->kernel_text), fx->kernel_text, to,
                at + strlen(from));
        return out;
}

static void test_memo_reference_and_verdicts(void **state)
{
        bool memo_hit = true;
        json_t *baseline = evaluate(NULL, 0, NULL, true, &memo_hit);
        json_t *again, *wrong, *broken, *broken_again;
        char *sub_kernel = kernel_with("Add(zLocal", "Sub(zLocal");
        char *bad_kernel = kernel_with("Add(zLocal", "Add_no_such_api(zLocal");
        struct npu_override sub = { "op_kernel/add_custom.cpp", sub_kernel };
        struct npu_override bad = { "op_kernel/add_custom.cpp", bad_kernel };

        if (strcmp(status_of(baseline), "ok") != 0)
                fail_msg("baseline: %s", json_dumps(baseline, 0));
        assert_false(memo_hit);
        assert_non_null(json_object_get(baseline, "scratch_dir"));
        assert_int_equal(strlen(json_string_value(json_object_get(baseline, "identity"))), 64);
        assert_int_equal(json_object_size(json_object_get(baseline, "files")), 4);

        /* the same candidate again: served from the store, nothing compiled */
        again = evaluate(NULL, 0, baseline, false, &memo_hit);
        assert_true(memo_hit);
        assert_string_equal(json_string_value(json_object_get(again, "identity")),
                            json_string_value(json_object_get(baseline, "identity")));
        assert_null(json_object_get(again, "scratch_dir"));

        /* a kernel that subtracts is caught by the reference */
        wrong = evaluate(&sub, 1, baseline, false, &memo_hit);
        assert_false(memo_hit);
        assert_string_equal(status_of(wrong), "wrong_answer");
        /* only the kernel changed: the host unit came from the object cache */
        assert_int_equal(json_integer_value(json_object_get(wrong, "compile_cache_hits")), 1);
        assert_false(json_is_true(
            json_object_get(json_array_get(json_object_get(wrong, "correctness"), 0), "passed")));

        /* a compile error is a result, and it is remembered */
        broken = evaluate(&bad, 1, baseline, false, &memo_hit);
        assert_string_equal(status_of(broken), "compile_error");
        assert_non_null(
            strstr(json_string_value(json_object_get(json_object_get(broken, "error"), "message")),
                   "Add_no_such_api"));
        broken_again = evaluate(&bad, 1, baseline, false, &memo_hit);
        assert_true(memo_hit);
        assert_string_equal(status_of(broken_again), "compile_error");

        rm_rf(json_string_value(json_object_get(baseline, "scratch_dir")));
        json_decref(baseline);
        json_decref(again);
        json_decref(wrong);
        json_decref(broken);
        json_decref(broken_again);
        free(sub_kernel);
        free(bad_kernel);
}

/* The path of the one precompiled prelude name in the cache, or "" when there is none. */
static void find_prelude(const char *name, char *path, size_t size)
{
        char dir[256];
        struct dirent *e;
        DIR *d;
        int found = 0;

        path[0] = '\0';
        snprintf(dir, sizeof(dir), "%s/cache", fx->root);
        d = opendir(dir);
        assert_non_null(d);
        while ((e = readdir(d)))
                if (strncmp(e->d_name, "pch-", 4) == 0) {
                        snprintf(path, size, "%s/%s/ascendsim/%s.gch", dir, e->d_name, name);
                        found++;
                }
        closedir(d);
        assert_true(found <= 1);
}

/* Overwrites a precompiled header with something that is none. */
static void corrupt(const char *gch)
{
        FILE *f = fopen(gch, "w");

        assert_non_null(f);
        fputs("not a precompiled header", f);
        fclose(f);
}

/* A new candidate: file (under the operator) with a comment numbered n appended to text. */
static json_t *variant_of(const char *file, const char *text, int n, const json_t *baseline)
{
        char *variant = malloc(strlen(text) + 64);
        struct npu_override o = { file, variant };
        json_t *result;

        sprintf(variant, "%s\n// candidate %d\n", text, n);
        result = evaluate(&o, 1, baseline, false, NULL);
        free(variant);
        return result;
}

/* A new tiling program: the host file changed. */
static json_t *host_variant(const char *text, int n, const json_t *baseline)
{
        return variant_of("op_host/add_custom.cpp", text, n, baseline);
}

/* A new kernel: the kernel file changed. */
static json_t *kernel_variant(const char *text, int n, const json_t *baseline)
{
        return variant_of("op_kernel/add_custom.cpp", text, n, baseline);
}

/*
 * The preludes are precompiled into the object cache once an evaluator
 * has evaluated enough candidates to pay for them, and serve every later
 * host and kernel unit, which measure as those compiled from the headers;
 * one that is corrupt (a disk error, a compiler changed under it) costs
 * speed, not results.
 */
static void test_precompiled_prelude(void **state)
{
        char path[512], gch[700], kernel_gch[700], *text, *kernel_text;
        json_t *baseline, *result;
        struct stat st;

        snprintf(path, sizeof(path), "%s/op_host/add_custom.cpp", fx->manifest->dir);
        text = slurp(path);
        snprintf(path, sizeof(path), "%s/op_kernel/add_custom.cpp", fx->manifest->dir);
        kernel_text = slurp(path);
        baseline = evaluate(NULL, 0, NULL, true, NULL);
        assert_string_equal(status_of(baseline), "ok");
        /* a quick look at one operator does not pay for it */
        find_prelude("host_prelude.h", gch, sizeof(gch));
        assert_string_equal(gch, "");
        for (int n = 1; n <= 4; n++) {
                result = host_variant(text, n, baseline);
                assert_string_equal(status_of(result), "ok");
                json_decref(result);
        }
        find_prelude("host_prelude.h", gch, sizeof(gch));
        if (!gch[0] || stat(gch, &st) < 0)
                fail_msg("no precompiled host prelude in the cache after five evaluations");
        assert_true(st.st_size > 1000000);
        find_prelude("kernel_std.h", kernel_gch, sizeof(kernel_gch));
        if (!kernel_gch[0] || stat(kernel_gch, &st) < 0)
                fail_msg("no precompiled kernel prelude beside the host one");
        assert_true(st.st_size > 1000000);

        /* a new kernel compiles against it and measures as the baseline,
         * whose kernel was compiled from the headers */
        result = kernel_variant(kernel_text, 1, baseline);
        assert_string_equal(status_of(result), "ok");
        assert_int_equal(json_integer_value(json_object_get(result, "compile_cache_hits")), 1);
        assert_true(json_number_value(json_object_get(result, "latency_us")) ==
                    json_number_value(json_object_get(baseline, "latency_us")));
        json_decref(result);
        corrupt(kernel_gch);
        result = kernel_variant(kernel_text, 2, baseline);
        assert_string_equal(status_of(result), "ok");
        assert_true(json_number_value(json_object_get(result, "latency_us")) ==
                    json_number_value(json_object_get(baseline, "latency_us")));
        json_decref(result);

        /* a new tiling program compiles its host unit against it and still answers right */
        result = host_variant(text, 5, baseline);
        assert_string_equal(status_of(result), "ok");
        /* the kernel came from the cache: only the host unit was compiled */
        assert_int_equal(json_integer_value(json_object_get(result, "compile_cache_hits")), 1);
        json_decref(result);

        /* a corrupt one: the compiler falls back on the header */
        corrupt(gch);
        result = host_variant(text, 6, baseline);
        assert_string_equal(status_of(result), "ok");
        json_decref(result);

        rm_rf(json_string_value(json_object_get(baseline, "scratch_dir")));
        json_decref(baseline);
        free(text);
        free(kernel_text);
}

/*
 * A candidate stopped as slow under a limit answers only for that limit: the
 * same candidate asked for with no limit runs again and gives its latency,
 * and with the same limit it is a memo hit that still says slow.
 */
static void test_slow_memo_answers_only_its_limit(void **state)
{
        struct npu_request req = { .manifest = fx->manifest, .seed = 5, .slow_after_us = 0.01 };
        struct outcome o = { 0 };
        json_t *slow, *full, *slow_again;
        bool memo_hit = true;

        assert_int_equal(npu_evaluate(fx->evaluator, &req, on_done, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        slow = o.result;
        assert_string_equal(status_of(slow), "slow");
        assert_false(o.memo_hit);

        full = evaluate(NULL, 0, NULL, false, &memo_hit);
        assert_false(memo_hit);
        assert_string_equal(status_of(full), "ok");
        assert_true(json_number_value(json_object_get(full, "latency_us")) > 0.01);

        memset(&o, 0, sizeof(o));
        req.slow_after_us = 0.005;
        assert_int_equal(npu_evaluate(fx->evaluator, &req, on_done, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        slow_again = o.result;
        /* the ok result replaced the slow one in the memo; a stricter limit is answered from it */
        assert_true(o.memo_hit);
        json_decref(slow);
        json_decref(full);
        json_decref(slow_again);
}

/*
 * tests/ops/ok/threshold_mask answers all false on the default inputs, so
 * a tiling program whose keys the kernel does not know (it dispatches
 * nothing) matches the baseline byte for byte on the simulator's zeroed
 * GM: it is a wrong answer all the same, and stays one from the memo.
 */
static void test_unwritten_output_is_wrong(void **state)
{
        struct npu_manifest *mask = NULL;
        char path[512], err[1024], *host, *at;
        json_t *baseline, *runs[2] = { NULL, NULL };
        struct npu_request req = { .seed = 5 };
        struct npu_override no_branch = { "op_host/threshold_mask.cpp", NULL };
        struct outcome o = { 0 };
        size_t n_cases;

        snprintf(path, sizeof(path), "%s/tests/ops/ok/threshold_mask",
                 getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".");
        if (npu_manifest_load(path, &mask, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        n_cases = mask->n_cases;
        mask->n_cases = 1; /* the ragged case (restored before the manifest is freed) */
        snprintf(path, sizeof(path), "%s/op_host/threshold_mask.cpp", mask->dir);
        host = slurp(path);
        at = strstr(host, "TILING_KEY_ONE_TILE = 1;");
        assert_non_null(at);
        at[strlen("TILING_KEY_ONE_TILE = ")] = '8';
        no_branch.text = host;

        req.manifest = mask;
        req.keep_outputs = true;
        assert_int_equal(npu_evaluate(fx->evaluator, &req, on_done, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        baseline = o.result;
        if (strcmp(status_of(baseline), "ok") != 0)
                fail_msg("baseline: %s", json_dumps(baseline, 0));

        req.keep_outputs = false;
        req.reference = baseline;
        req.overrides = &no_branch;
        req.n_overrides = 1;
        for (int i = 0; i < 2; i++) {
                memset(&o, 0, sizeof(o));
                assert_int_equal(npu_evaluate(fx->evaluator, &req, on_done, &o, NULL), 0);
                while (!o.done)
                        event_base_loop(fx->base, EVLOOP_ONCE);
                runs[i] = o.result;
                /* measured once, then served from the memo with its verdict */
                assert_true(o.memo_hit == (i == 1));
                assert_string_equal(status_of(o.result), "wrong_answer");
                assert_non_null(
                    strstr(json_string_value(
                               json_object_get(json_object_get(o.result, "error"), "message")),
                           "case ragged: y: 3003 of 3003 elements never written by the kernel (the "
                           "reference writes them; the first at index 0)"));
        }
        assert_true(json_number_value(
                        json_object_get(json_array_get(json_object_get(runs[0], "correctness"), 0),
                                        "mismatch_fraction")) == 0);

        rm_rf(json_string_value(json_object_get(baseline, "scratch_dir")));
        json_decref(baseline);
        json_decref(runs[0]);
        json_decref(runs[1]);
        free(host);
        mask->n_cases = n_cases;
        npu_manifest_free(mask);
}

/* Evaluates one candidate with the launch memo asked for. */
static json_t *evaluate_launch_on(struct npu_evaluator *e, const struct npu_override *o,
                                  const json_t *reference, bool *ret_memo_hit)
{
        struct npu_request req = { .manifest = fx->manifest,
                                   .overrides = o,
                                   .n_overrides = o ? 1 : 0,
                                   .seed = 5,
                                   .reference = reference,
                                   .launch_memo = true };
        struct outcome out = { 0 };

        assert_int_equal(npu_evaluate(e, &req, on_done, &out, NULL), 0);
        while (!out.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        *ret_memo_hit = out.memo_hit;
        return out.result;
}

static json_t *evaluate_launch(const struct npu_override *o, const json_t *reference,
                               bool *ret_memo_hit)
{
        return evaluate_launch_on(fx->evaluator, o, reference, ret_memo_hit);
}

/*
 * Another node's store that merged this one's memo (a fleet's exchange)
 * serves a candidate for a launch measured here; NULL unless it did.
 */
static json_t *served_elsewhere(const struct npu_override *o, const json_t *baseline,
                                bool *ret_memo_hit)
{
        struct npu_evaluator_options options = { .base = fx->base, .timeout_s = 60 };
        const char *id = json_string_value(json_object_get(baseline, "identity"));
        char dir[128], scratch[128], cache[128], memo[128], err[512] = "";
        struct npu_evaluator *node = NULL;
        struct store *other = NULL;
        struct store_batch *b;
        json_t *result;
        FILE *f;

        snprintf(memo, sizeof(memo), "%s/memo.jsonl", fx->root);
        f = fopen(memo, "w");
        assert_non_null(f);
        assert_int_equal(store_memo_write(fx->store, &id, 1, f, NULL), 0);
        fclose(f);
        snprintf(dir, sizeof(dir), "%s/node-store", fx->root);
        assert_int_equal(store_open(dir, &other, err, sizeof(err)), 0);
        b = store_batch_new(other);
        assert_int_equal(store_memo_merge(b, memo, NULL, NULL, err, sizeof(err)), 0);
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        snprintf(scratch, sizeof(scratch), "%s/node-scratch", fx->root);
        snprintf(cache, sizeof(cache), "%s/cache", fx->root);
        options.scratch_dir = scratch;
        options.cache_dir = cache;
        assert_int_equal(
            npu_evaluator_new(fx->runner, &fx->paths, other, &options, &node, err, sizeof(err)), 0);
        result = evaluate_launch_on(node, o, baseline, ret_memo_hit);
        npu_evaluator_free(node);
        store_close(other);
        return result;
}

/*
 * The launch memo: a tiling program that launches the same kernel exactly
 * as a measured one did is served that one's result, under its own
 * identity and files; one whose tiling data differ, or a new kernel, is
 * measured.
 */
static void test_launch_memo(void **state)
{
        char path[512], *host, *buffers;
        json_t *baseline, *same, *again, *other, *kernel, *elsewhere;
        bool memo_hit = false;
        const char *from;

        snprintf(path, sizeof(path), "%s/op_host/add_custom.cpp", fx->manifest->dir);
        host = slurp(path);
        baseline = evaluate(NULL, 0, NULL, true, &memo_hit);
        assert_string_equal(status_of(baseline), "ok");
        assert_false(memo_hit);
        /* every case says what its launch got */
        for (size_t i = 0; i < 2; i++)
                assert_int_equal(
                    strlen(json_string_value(json_object_get(
                        json_array_get(json_object_get(baseline, "cases"), i), "launch_sha256"))),
                    64);

        /* the host unit changed, its launches did not */
        {
                char *text = malloc(strlen(host) + 64);
                struct npu_override o = { "op_host/add_custom.cpp", text };
                sprintf(text, "%s\n// the same tiling, written again\n", host);
                same = evaluate_launch(&o, baseline, &memo_hit);
                assert_true(memo_hit);
                assert_string_equal(status_of(same), "ok");
                assert_string_equal(json_string_value(json_object_get(same, "launch_of")),
                                    json_string_value(json_object_get(baseline, "identity")));
                assert_string_not_equal(json_string_value(json_object_get(same, "identity")),
                                        json_string_value(json_object_get(baseline, "identity")));
                assert_true(json_number_value(json_object_get(same, "latency_us")) ==
                            json_number_value(json_object_get(baseline, "latency_us")));
                assert_false(
                    json_equal(json_object_get(same, "files"), json_object_get(baseline, "files")));
                assert_true(json_is_true(json_object_get(same, "launch_probe")));
                /* kept under its own identity: asked again without the probe, still a hit */
                again = evaluate(&o, 1, baseline, false, &memo_hit);
                assert_true(memo_hit);
                assert_null(json_object_get(again, "launch_probe"));
                assert_string_equal(json_string_value(json_object_get(again, "identity")),
                                    json_string_value(json_object_get(same, "identity")));
                /* another store that merged this one's memo is served the launch too */
                elsewhere = served_elsewhere(&o, baseline, &memo_hit);
                assert_true(memo_hit);
                assert_string_equal(json_string_value(json_object_get(elsewhere, "launch_of")),
                                    json_string_value(json_object_get(baseline, "identity")));
                json_decref(elsewhere);
                free(text);
        }

        /* four buffers instead of two: other tiling data, so it is measured */
        from = "BUFFER_NUM = 2;";
        buffers = strdup(host);
        assert_non_null(strstr(buffers, from));
        strstr(buffers, from)[strlen("BUFFER_NUM = ")] = '4';
        {
                struct npu_override o = { "op_host/add_custom.cpp", buffers };
                other = evaluate_launch(&o, baseline, &memo_hit);
                assert_false(memo_hit);
                assert_string_equal(status_of(other), "ok");
                assert_null(json_object_get(other, "launch_of"));
        }

        /* a new kernel is measured, with no probe: no kernel like it was measured */
        {
                char *text = kernel_with("Add(zLocal", "Add(zLocal");
                struct npu_override o = { "op_kernel/add_custom.cpp", NULL };
                char *variant = malloc(strlen(text) + 32);
                sprintf(variant, "%s\n// a new kernel\n", text);
                o.text = variant;
                kernel = evaluate_launch(&o, baseline, &memo_hit);
                assert_false(memo_hit);
                assert_string_equal(status_of(kernel), "ok");
                free(variant);
                free(text);
        }

        rm_rf(json_string_value(json_object_get(baseline, "scratch_dir")));
        json_decref(baseline);
        json_decref(same);
        json_decref(again);
        json_decref(other);
        json_decref(kernel);
        free(buffers);
        free(host);
}

static void test_identity_depends_on_files_and_platform(void **state)
{
        struct npu_request req = { .manifest = fx->manifest };
        struct npu_override tweak = { "op_kernel/add_custom.cpp", "// changed\n" };
        struct npu_evaluator_options options = { .base = fx->base, .platform = "Ascend910B4" };
        struct npu_evaluator *other = NULL;
        char a[SHA256_HEX_SIZE], b[SHA256_HEX_SIZE], c[SHA256_HEX_SIZE], dir[128], err[512];

        snprintf(dir, sizeof(dir), "%s/scratch2", fx->root);
        options.scratch_dir = dir;
        assert_int_equal(npu_candidate_identity(fx->evaluator, &req, a), 0);
        req.overrides = &tweak;
        req.n_overrides = 1;
        assert_int_equal(npu_candidate_identity(fx->evaluator, &req, b), 0);
        assert_string_not_equal(a, b);
        req.n_overrides = 0;
        assert_int_equal(npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &other, err,
                                           sizeof(err)),
                         0);
        assert_int_equal(npu_candidate_identity(other, &req, c), 0);
        assert_string_not_equal(a, c);
        npu_evaluator_free(other);
        options.platform = "Ascend999";
        assert_int_equal(npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &other, err,
                                           sizeof(err)),
                         -ENOENT);
        assert_non_null(strstr(err, "platform Ascend999"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_memo_reference_and_verdicts, setup, teardown),
                cmocka_unit_test_setup_teardown(test_precompiled_prelude, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slow_memo_answers_only_its_limit, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_unwritten_output_is_wrong, setup, teardown),
                cmocka_unit_test_setup_teardown(test_launch_memo, setup, teardown),
                cmocka_unit_test_setup_teardown(test_identity_depends_on_files_and_platform, setup,
                                                teardown),
        };
        return cmocka_run_group_tests_name("evaluator", tests, NULL, NULL);
}
