/* SPDX-License-Identifier: MIT */
/*
 * Tests of the evaluator's example inputs (npu/evaluator-examples.c) on
 * the real simulator with tests/ops/ok/window_copy, whose tiling reads the
 * value of its begin input: a case whose golden is an example runs on the
 * inputs the example's gen_data.py writes, as 'ascendopt eval' runs it;
 * gen_data.py runs once for every candidate of an evaluator, concurrent
 * requests waiting for that one run; a gen_data.py that fails leaves the
 * case on seeded inputs under another identity; a request cancelled while
 * it waits ends with infra_error; the host code's coverage runs on the
 * example's inputs too.  The gen_data.py here is the test's own:
 * it appends a line to runs.log each time it runs (the evaluator runs it
 * unsandboxed here, so it can) and fails while a file named fail exists.
 *
 * expensive: evaluates an operator on the simulator a dozen times
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
#include <unistd.h>

#include <event2/event.h>

struct fixture {
        char root[64];
        char op[128];
        struct event_base *base;
        struct child_runner *runner;
        struct npu_sim_paths paths;
        struct store *store;
        struct npu_manifest *manifest;
};

struct outcome {
        json_t *result;
        bool memo_hit;
        bool done;
};

static struct fixture *fx;

static const char gen_data_py[] =
    "# written for ascendopt's tests: counts its runs, fails on request\n"
    "import os, sys\n"
    "import numpy as np\n"
    "root = os.environ['TEST_EXAMPLES_ROOT']\n"
    "with open(os.path.join(root, 'runs.log'), 'a') as f:\n"
    "    f.write('ran\\n')\n"
    "if os.path.exists(os.path.join(root, 'fail')):\n"
    "    sys.exit(3)\n"
    "x = np.arange(2048, dtype=np.float32)\n"
    "os.makedirs('input', exist_ok=True)\n"
    "os.makedirs('output', exist_ok=True)\n"
    "x.tofile('input/input_x.bin')\n"
    "(2 * x[256:1280]).astype(np.float32).tofile('output/golden.bin')\n";

/* One example case (begin 256 from the golden's values) and one seeded (begin 64, the range). */
static const char manifest_json[] =
    "{\"name\": \"WindowCopy\", \"kernel\": \"window_copy\",\n"
    " \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\"}, {\"name\": \"begin\", \"dtype\": "
    "\"int64\"}],\n"
    " \"outputs\": [{\"name\": \"y\", \"dtype\": \"float32\"}],\n"
    " \"cases\": [\n"
    "  {\"name\": \"example\", \"shapes\": {\"x\": [2048], \"begin\": [1], \"y\": [1024]},\n"
    "   \"golden\": {\"example\": \"examples/E\", \"inputs\": {\"x\": {\"file\": "
    "\"input/input_x.bin\"},\n"
    "              \"begin\": {\"values\": [256]}}, \"outputs\": {\"y\": "
    "\"output/golden.bin\"}},\n"
    "   \"bench\": false},\n"
    "  {\"name\": \"seeded\", \"shapes\": {\"x\": [4096], \"begin\": [1], \"y\": [2048]}, "
    "\"bench\": true}],\n"
    " \"tolerance\": {\"float32\": {\"atol\": 0, \"rtol\": 0, \"max_mismatch_fraction\": 0}},\n"
    " \"input_ranges\": {\"begin\": [64, 64]}, \"level\": 1, \"auto_sync\": true}\n";

static void write_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
        char cmd[1024], path[256], err[1024];
        const char *src = getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".";

        fx = calloc(1, sizeof(*fx));
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-examples-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        setenv("TEST_EXAMPLES_ROOT", fx->root, 1);
        snprintf(fx->op, sizeof(fx->op), "%s/op", fx->root);
        snprintf(cmd, sizeof(cmd),
                 "mkdir -p '%s/examples/E' && cp -r '%s/tests/ops/ok/window_copy/op_host' "
                 "'%s/tests/ops/ok/window_copy/op_kernel' '%s/'",
                 fx->op, src, src, fx->op);
        assert_int_equal(system(cmd), 0);
        snprintf(path, sizeof(path), "%s/examples/E/gen_data.py", fx->op);
        write_text(path, gen_data_py);
        snprintf(path, sizeof(path), "%s/ascendopt.json", fx->op);
        write_text(path, manifest_json);
        if (npu_manifest_load(fx->op, &fx->manifest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        fx->base = event_base_new();
        assert_int_equal(child_runner_new(fx->base, NULL, &fx->runner), 0);
        if (npu_sim_paths_find(&fx->paths) < 0)
                fail_msg("the simulator runtime is not built (set ASCENDOPT_SIM_DIR)");
        snprintf(path, sizeof(path), "%s/store", fx->root);
        assert_int_equal(store_open(path, &fx->store, err, sizeof(err)), 0);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        npu_manifest_free(fx->manifest);
        store_close(fx->store);
        child_runner_free(fx->runner);
        npu_sim_paths_release(&fx->paths);
        event_base_free(fx->base);
        rm_rf(fx->root);
        free(fx);
        return 0;
}

/* A new evaluator on the fixture's store, scratch and cache (unsandboxed, as unit tests run). */
static struct npu_evaluator *new_evaluator(void)
{
        struct npu_evaluator_options options = { 0 };
        struct npu_evaluator *e = NULL;
        char scratch[128], cache[128], err[1024];

        snprintf(scratch, sizeof(scratch), "%s/scratch", fx->root);
        snprintf(cache, sizeof(cache), "%s/cache", fx->root);
        options.base = fx->base;
        options.scratch_dir = scratch;
        options.cache_dir = cache;
        options.timeout_s = 120;
        if (npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &e, err, sizeof(err)) <
            0)
                fail_msg("%s", err);
        return e;
}

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        o->result = result;
        o->memo_hit = memo_hit;
        o->done = true;
}

/* The window_copy host file with its tile length replaced by tile (0: the base operator). */
static char *host_with_tile(int tile)
{
        char path[256], *text, *at, *out;
        FILE *f;
        long n;

        snprintf(path, sizeof(path), "%s/op_host/window_copy.cpp", fx->op);
        f = fopen(path, "r");
        assert_non_null(f);
        text = calloc(1, 1 << 16);
        n = (long)fread(text, 1, (1 << 16) - 1, f);
        fclose(f);
        assert_true(n > 0);
        at = strstr(text, "#define TILE_LENGTH 512");
        assert_non_null(at);
        out = malloc(strlen(text) + 32);
        sprintf(out, "%.*s#define TILE_LENGTH %d%s", (int)(at - text), text, tile,
                at + strlen("#define TILE_LENGTH 512"));
        free(text);
        return out;
}

/* Starts an evaluation of the base operator (tile 0) or a tile variant; the texts stay live. */
static struct npu_job *start(struct npu_evaluator *e, int tile, const json_t *reference, bool keep,
                             struct outcome *o, char **text)
{
        struct npu_override override = { "op_host/window_copy.cpp", NULL };
        struct npu_request req = { .manifest = fx->manifest,
                                   .seed = 3,
                                   .reference = reference,
                                   .keep_outputs = keep,
                                   .bypass_memo = keep };
        struct npu_job *job = NULL;

        *text = NULL;
        if (tile) {
                *text = host_with_tile(tile);
                override.text = *text;
                req.overrides = &override;
                req.n_overrides = 1;
        }
        memset(o, 0, sizeof(*o));
        assert_int_equal(npu_evaluate(e, &req, on_done, o, &job), 0);
        assert_false(o->done);
        return job;
}

static void wait_for(struct outcome *o)
{
        while (!o->done)
                event_base_loop(fx->base, EVLOOP_ONCE);
}

static json_t *evaluate(struct npu_evaluator *e, int tile, const json_t *reference, bool keep,
                        bool *ret_memo_hit)
{
        struct outcome o;
        char *text;

        start(e, tile, reference, keep, &o, &text);
        wait_for(&o);
        free(text);
        if (ret_memo_hit)
                *ret_memo_hit = o.memo_hit;
        return o.result;
}

static const char *status_of(const json_t *r)
{
        return json_string_value(json_object_get(r, "status"));
}

static void assert_ok(const json_t *r)
{
        if (strcmp(status_of(r) ?: "", "ok") != 0)
                fail_msg("not ok: %s", json_dumps(r, JSON_COMPACT));
}

/* How many times gen_data.py ran. */
static int runs(void)
{
        char path[128], line[64];
        int n = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/runs.log", fx->root);
        f = fopen(path, "r");
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f))
                n++;
        fclose(f);
        return n;
}

/* One int64 or float32 element of a file the simulator dumped for case k of a kept result. */
static void read_element(const json_t *r, int k, const char *file, void *out, size_t size)
{
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/work/case_%d/%s",
                 json_string_value(json_object_get(r, "scratch_dir")), k, file);
        f = fopen(path, "rb");
        if (!f)
                print_error("%s: %s\n", path, strerror(errno));
        assert_non_null(f);
        assert_int_equal(fread(out, size, 1, f), 1);
        fclose(f);
}

/*
 * The begin case k of a kept result ran on, read back from its output
 * (y = 2 * x[begin:], the evaluator writes no inputs): x is what the
 * generator draws for the case's seed, or the example's 0, 1, 2, ...
 */
static int64_t begin_of(const json_t *r, int k)
{
        const json_t *c = json_array_get(json_object_get(r, "cases"), (size_t)k);
        uint64_t seed = (uint64_t)json_integer_value(json_object_get(c, "seed"));
        char dir[256], err[512];
        json_t *inputs = NULL;
        float y[2], *x = NULL;
        int64_t begin = -1;
        long n = 0;

        read_element(r, k, "out_y.bin", y, sizeof(y));
        snprintf(dir, sizeof(dir), "%s/begin-%d-%llu", fx->root, k, (unsigned long long)seed);
        if (npu_inputs_write(fx->manifest, (size_t)k, seed, dir, &inputs, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        {
                const char *file =
                    json_string_value(json_object_get(json_array_get(inputs, 0), "file"));
                FILE *f = fopen(file, "rb");
                assert_non_null(f);
                fseek(f, 0, SEEK_END);
                n = ftell(f) / (long)sizeof(float);
                rewind(f);
                x = calloc((size_t)n, sizeof(float));
                assert_int_equal(fread(x, sizeof(float), (size_t)n, f), (size_t)n);
                fclose(f);
        }
        for (long b = 0; b + 1 < n && begin < 0; b++)
                if (2 * x[b] == y[0] && 2 * x[b + 1] == y[1])
                        begin = b;
        if (begin < 0 && y[1] == y[0] + 2)
                begin = (int64_t)(y[0] / 2); /* the example's x */
        free(x);
        json_decref(inputs);
        return begin;
}

/* Whether an examples-* folder is left in the scratch directory. */
static bool examples_dir_left(void)
{
        char dir[128];
        struct dirent *d;
        bool found = false;
        DIR *s;

        snprintf(dir, sizeof(dir), "%s/scratch", fx->root);
        s = opendir(dir);
        if (!s)
                return false;
        while ((d = readdir(s)))
                found |= strncmp(d->d_name, "examples-", 9) == 0;
        closedir(s);
        return found;
}

/*
 * The baseline and a candidate asked for together wait for one run of
 * gen_data.py; a later candidate takes the same inputs; the example case
 * runs on begin 256 (the example's), the other case on 64 (seeded), and
 * every candidate is judged against the baseline on them.
 */
static void test_one_preparation_for_every_candidate(void **state)
{
        struct npu_evaluator *e = new_evaluator();
        struct outcome a, b;
        char *ta, *tb;
        json_t *later;
        float y0 = 0;

        start(e, 0, NULL, true, &a, &ta);
        start(e, 256, NULL, false, &b, &tb);
        wait_for(&a);
        wait_for(&b);
        free(ta);
        free(tb);
        assert_ok(a.result);
        assert_ok(b.result);
        assert_int_equal(runs(), 1);
        assert_int_equal(begin_of(a.result, 0), 256);
        assert_int_equal(begin_of(a.result, 1), 64);
        /* the example's x is 0, 1, 2, ...: y starts at 2 * 256 */
        read_element(a.result, 0, "out_y.bin", &y0, sizeof(y0));
        assert_true(y0 == 512.0f);

        later = evaluate(e, 128, a.result, false, NULL);
        assert_ok(later);
        assert_true(json_is_true(
            json_object_get(json_array_get(json_object_get(later, "correctness"), 0), "passed")));
        assert_int_equal(runs(), 1);

        rm_rf(json_string_value(json_object_get(a.result, "scratch_dir")));
        json_decref(a.result);
        json_decref(b.result);
        json_decref(later);
        assert_true(examples_dir_left());
        npu_evaluator_free(e);
        /* the prepared inputs live as long as their evaluator */
        assert_false(examples_dir_left());
}

/*
 * A gen_data.py that fails leaves the example case on seeded inputs (it
 * still runs: the range gives begin 64), under an identity of its own:
 * neither behaviour's result is served for the other.
 */
static void test_failed_preparation_runs_seeded_under_another_identity(void **state)
{
        struct npu_evaluator *e = new_evaluator();
        struct npu_request req = { .manifest = fx->manifest, .seed = 3 };
        char expected[SHA256_HEX_SIZE], after[SHA256_HEX_SIZE], path[128];
        json_t *seeded, *example, *again;
        bool memo_hit = true;

        snprintf(path, sizeof(path), "%s/fail", fx->root);
        write_text(path, "");
        assert_int_equal(npu_candidate_identity(e, &req, expected), 0);
        seeded = evaluate(e, 0, NULL, true, &memo_hit);
        assert_ok(seeded);
        assert_false(memo_hit);
        assert_int_equal(runs(), 1);
        assert_int_equal(begin_of(seeded, 0), 64);
        assert_string_not_equal(json_string_value(json_object_get(seeded, "identity")), expected);
        assert_int_equal(npu_candidate_identity(e, &req, after), 0);
        assert_string_equal(json_string_value(json_object_get(seeded, "identity")), after);
        rm_rf(json_string_value(json_object_get(seeded, "scratch_dir")));
        npu_evaluator_free(e);

        /* gen_data.py works again: the seeded result is not served */
        unlink(path);
        e = new_evaluator();
        example = evaluate(e, 0, NULL, false, &memo_hit);
        assert_ok(example);
        assert_false(memo_hit);
        assert_string_equal(json_string_value(json_object_get(example, "identity")), expected);
        again = evaluate(e, 0, NULL, false, &memo_hit);
        assert_true(memo_hit);
        assert_int_equal(runs(), 2);
        json_decref(seeded);
        json_decref(example);
        json_decref(again);
        npu_evaluator_free(e);
}

/*
 * A request cancelled while it waits for the inputs ends with infra_error;
 * the others go on; when the last one goes, the next request prepares
 * anew.
 */
static void test_cancel_while_waiting(void **state)
{
        struct npu_evaluator *e = new_evaluator();
        struct outcome a, b, c;
        struct npu_job *job;
        char *ta, *tb, *tc;
        json_t *fresh;

        start(e, 0, NULL, false, &a, &ta);
        job = start(e, 256, NULL, false, &b, &tb);
        npu_job_cancel(job);
        wait_for(&b);
        assert_string_equal(status_of(b.result), "infra_error");
        wait_for(&a);
        assert_ok(a.result);
        free(ta);
        free(tb);
        json_decref(a.result);
        json_decref(b.result);
        npu_evaluator_free(e);

        /* the only request goes: its preparation is cancelled, the next one starts anew */
        e = new_evaluator();
        job = start(e, 128, NULL, false, &c, &tc);
        npu_job_cancel(job);
        wait_for(&c);
        free(tc);
        assert_string_equal(status_of(c.result), "infra_error");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(c.result, "error"), "message")),
            "cancelled");
        fresh = evaluate(e, 128, NULL, false, NULL);
        assert_ok(fresh);
        json_decref(c.result);
        json_decref(fresh);
        npu_evaluator_free(e);
}

/*
 * The host code's coverage runs the cases on the inputs they name: with
 * begin drawn at 1536, the example case's 2048 elements hold no window of
 * 1024 there and the tiling refuses it, so a coverage run on seeded inputs
 * fails where the evaluations, on the example's begin of 256, pass.
 */
static void test_coverage_runs_on_the_example_inputs(void **state)
{
        struct npu_evaluator *e;
        struct outcome o = { 0 };
        const char *range = strstr(manifest_json, "[64, 64]");
        char path[256], err[1024], far[sizeof(manifest_json) + 16];
        json_t *baseline;

        assert_non_null(range);
        snprintf(far, sizeof(far), "%.*s[1536, 1536]%s", (int)(range - manifest_json),
                 manifest_json, range + strlen("[64, 64]"));
        snprintf(path, sizeof(path), "%s/ascendopt.json", fx->op);
        write_text(path, far);
        npu_manifest_free(fx->manifest);
        if (npu_manifest_load(fx->op, &fx->manifest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        e = new_evaluator();
        baseline = evaluate(e, 0, NULL, false, NULL);
        assert_ok(baseline);
        assert_int_equal(npu_host_coverage(e, fx->manifest, on_done, &o, NULL), 0);
        wait_for(&o);
        assert_ok(o.result);
        assert_non_null(
            json_object_get(json_object_get(o.result, "coverage"), "op_host/window_copy.cpp"));
        json_decref(baseline);
        json_decref(o.result);
        npu_evaluator_free(e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_one_preparation_for_every_candidate, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(
                    test_failed_preparation_runs_seeded_under_another_identity, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cancel_while_waiting, setup, teardown),
                cmocka_unit_test_setup_teardown(test_coverage_runs_on_the_example_inputs, setup,
                                                teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
