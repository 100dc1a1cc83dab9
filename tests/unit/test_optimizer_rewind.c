/* SPDX-License-Identifier: MIT */
/*
 * Tests of rewind on the simulator: walking the add expert backwards keeps
 * entries that were really slower, whose bottleneck is in the signature
 * vocabulary and whose motif, applied forward to the slow version, gives
 * the fast one back; a second walk is all memo hits and adds nothing; and
 * inverses that do not compile or give the wrong answer are skipped and
 * counted.
 *
 * expensive: rewinds expert kernels on the simulator
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "npu/npu.h"
#include "optimizer/sites-internal.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#define THRESHOLD_PCT 2.0

static const char *source_dir(void)
{
        return getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".";
}

struct fixture {
        char root[64];
        char opdir[512];
        struct event_base *base;
        struct child_runner *runner;
        struct npu_sim_paths paths;
        struct store *store;
        struct npu_evaluator *evaluator;
        struct npu_manifest *manifest;
};

static struct fixture *fx;

static int setup(void **state)
{
        struct npu_evaluator_options options = { 0 };
        char dir[128], cache[PATH_MAX], err[1024];

        fx = calloc(1, sizeof(*fx));
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-rewind-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        snprintf(fx->opdir, sizeof(fx->opdir), "%s/examples/ops/level1/add", source_dir());
        fx->base = event_base_new();
        assert_int_equal(child_runner_new(fx->base, NULL, &fx->runner), 0);
        if (npu_sim_paths_find(&fx->paths) < 0)
                fail_msg("the simulator runtime is not built (set ASCENDOPT_SIM_DIR)");
        snprintf(dir, sizeof(dir), "%s/store", fx->root);
        assert_int_equal(store_open(dir, &fx->store, err, sizeof(err)), 0);
        snprintf(dir, sizeof(dir), "%s/scratch", fx->root);
        assert_int_equal(state_path(cache, sizeof(cache), fx->root, STATE_CACHE),
                         0); /* $ASCENDOPT_CACHE_DIR in make check */
        options.base = fx->base;
        options.scratch_dir = dir;
        options.cache_dir = cache;
        options.timeout_s = 120;
        if (npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &fx->evaluator, err,
                              sizeof(err)) < 0)
                fail_msg("%s", err);
        if (npu_manifest_load(fx->opdir, &fx->manifest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        npu_manifest_free(fx->manifest);
        npu_evaluator_free(fx->evaluator);
        store_close(fx->store);
        child_runner_free(fx->runner);
        npu_sim_paths_release(&fx->paths);
        event_base_free(fx->base);
        rm_rf(fx->root);
        free(fx);
        return 0;
}

/* ------------------------------------------------------------------ helpers */

struct walk {
        json_t *summary;
        int progress_calls;
        int kept_reported;
};

static void on_progress(const struct rewind_progress *p, void *userdata)
{
        struct walk *w = userdata;

        assert_non_null(p->motif);
        assert_non_null(p->site);
        assert_non_null(p->outcome);
        w->progress_calls++;
        w->kept_reported += p->kept;
        if (p->kept)
                assert_true(p->after_us > p->before_us * (1 + THRESHOLD_PCT / 100));
}

static void on_done(json_t *summary, void *userdata)
{
        ((struct walk *)userdata)->summary = summary;
}

static json_t *walk(const struct rewind_options *options, struct walk *w)
{
        char err[1024];

        memset(w, 0, sizeof(*w));
        if (rewind_start(fx->evaluator, fx->store, fx->opdir, options, on_progress, on_done, w,
                         NULL, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        while (!w->summary)
                event_base_loop(fx->base, EVLOOP_ONCE);
        if (strcmp(json_string_value(json_object_get(w->summary, "state")), "done") != 0)
                fail_msg("rewind: %s", json_dumps(w->summary, 0));
        return w->summary;
}

static bool in_vocabulary(const char *token, size_t len)
{
        for (size_t i = 0; npu_signature_vocabulary[i]; i++)
                if (strlen(npu_signature_vocabulary[i]) == len &&
                    strncmp(npu_signature_vocabulary[i], token, len) == 0)
                        return true;
        return false;
}

static const json_t *find_entry(const json_t *entries, const char *id)
{
        size_t i;
        json_t *e;

        json_array_foreach((json_t *)entries, i, e)
        {
                if (strcmp(json_string_value(json_object_get(e, "id")), id) == 0)
                        return e;
        }
        return NULL;
}

/* The source files of a stored candidate, read back from the store's blobs. */
static size_t candidate_files(const char *identity, struct motif_file *files, size_t max)
{
        json_t *result = NULL, *sha;
        const char *path;
        size_t n = 0;

        assert_int_equal(store_candidate_get(fx->store, identity, &result), 0);
        json_object_foreach(json_object_get(result, "files"), path, sha)
        {
                void *data = NULL;
                size_t len = 0;
                char *text;
                assert_true(n < max);
                assert_int_equal(store_blob_get(fx->store, json_string_value(sha), &data, &len), 0);
                text = malloc(len + 1);
                memcpy(text, data, len);
                text[len] = '\0';
                free(data);
                files[n].path = strdup(path);
                files[n].text = text;
                n++;
        }
        json_decref(result);
        assert_true(n > 0);
        return n;
}

static void files_release(struct motif_file *files, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free((void *)files[i].path);
                free((void *)files[i].text);
        }
}

struct outcome {
        json_t *result;
};

static void on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        (void)memo_hit;
        ((struct outcome *)userdata)->result = result;
}

static double latency_of(const struct motif_file *files, size_t n)
{
        struct npu_override overrides[32];
        struct npu_request req = { .manifest = fx->manifest, .seed = 1 };
        struct outcome o = { 0 };
        double latency;

        assert_true(n <= 32);
        for (size_t i = 0; i < n; i++)
                overrides[i] = (struct npu_override){ files[i].path, files[i].text };
        req.overrides = overrides;
        req.n_overrides = n;
        assert_int_equal(npu_evaluate(fx->evaluator, &req, on_evaluated, &o, NULL), 0);
        while (!o.result)
                event_base_loop(fx->base, EVLOOP_ONCE);
        assert_string_equal(json_string_value(json_object_get(o.result, "status")), "ok");
        latency = json_number_value(json_object_get(o.result, "latency_us"));
        json_decref(o.result);
        return latency;
}

/* Applying the step's motif forward to the slow version gives the fast one back. */
static void check_reversible(const json_t *step)
{
        const struct motif *motif = motif_find(json_string_value(json_object_get(step, "motif")));
        struct motif_file slow[32], fast[32], *changed = NULL;
        size_t n_slow, n_fast, n_changed = 0;
        double before = json_number_value(json_object_get(step, "before_us"));

        assert_non_null(motif);
        n_slow =
            candidate_files(json_string_value(json_object_get(step, "slow_identity")), slow, 32);
        n_fast =
            candidate_files(json_string_value(json_object_get(step, "fast_identity")), fast, 32);
        assert_int_equal(
            motif_apply(motif, MOTIF_FORWARD, slow, n_slow, MOTIF_ALL_SITES, &changed, &n_changed),
            0);
        assert_true(n_changed >= 1);
        for (size_t c = 0; c < n_changed; c++) {
                for (size_t i = 0; i < n_slow; i++) {
                        if (strcmp(slow[i].path, changed[c].path) != 0)
                                continue;
                        free((void *)slow[i].text);
                        slow[i].text = changed[c].text;
                        changed[c].text = NULL;
                }
        }
        motif_files_free(changed, n_changed);
        /* as fast as the fast version, or faster when forward found more to do */
        assert_true(latency_of(slow, n_slow) <= before * (1 + THRESHOLD_PCT / 100));
        (void)n_fast;
        files_release(slow, n_slow);
        files_release(fast, n_fast);
}

/* ------------------------------------------------------------------ tests */

static void test_rewind_add(void **state)
{
        struct rewind_options options = { .threshold_pct = THRESHOLD_PCT, .max_steps = 2 };
        json_t *summary, *again, *entries = NULL, *entries_again = NULL, *step;
        struct walk w, w2;
        size_t i;

        summary = walk(&options, &w);
        assert_true(json_integer_value(json_object_get(summary, "kept")) >= 1);
        assert_int_equal(json_integer_value(json_object_get(summary, "kept")), w.kept_reported);
        assert_int_equal(json_integer_value(json_object_get(summary, "new_entries")),
                         json_integer_value(json_object_get(summary, "kept")));
        assert_int_equal(json_array_size(json_object_get(summary, "tried")), w.progress_calls);
        assert_int_equal(experience_list(fx->store, &entries), 0);
        assert_int_equal(json_array_size(entries),
                         json_integer_value(json_object_get(summary, "kept")));
        json_array_foreach(json_object_get(summary, "steps"), i, step)
        {
                const json_t *e =
                    find_entry(entries, json_string_value(json_object_get(step, "entry")));
                const char *sig, *p;
                double before = json_number_value(json_object_get(step, "before_us"));
                double after = json_number_value(json_object_get(step, "after_us"));

                print_message("# kept %s: %.2f us -> %.2f us\n",
                              json_string_value(json_object_get(step, "motif")), before, after);
                assert_non_null(e);
                assert_true(after > before * (1 + THRESHOLD_PCT / 100));
                assert_true(json_number_value(json_object_get(e, "gain")) > 1.0);
                assert_string_equal(json_string_value(json_object_get(e, "motif")),
                                    json_string_value(json_object_get(step, "motif")));
                assert_string_equal(
                    json_string_value(json_object_get(e, "title")),
                    motif_find(json_string_value(json_object_get(e, "motif")))->title);
                assert_string_equal(json_string_value(json_object_get(e, "operator")), "AddCustom");
                assert_int_equal(json_integer_value(json_object_get(e, "level")), 1);
                assert_string_equal(json_string_value(json_object_get(e, "origin")), "rewind");
                assert_string_equal(json_string_value(json_object_get(e, "backend")), "sim");
                assert_string_equal(json_string_value(json_object_get(e, "platform")),
                                    "Ascend910B2");
                /* the diff leads from slow (---) to fast (+++), paths relative to the operator */
                assert_true(strncmp(json_string_value(json_object_get(e, "diff")), "--- op_", 7) ==
                            0);
                assert_non_null(strstr(json_string_value(json_object_get(e, "diff")), "\n@@ "));
                sig = json_string_value(json_object_get(e, "bottleneck"));
                assert_non_null(sig);
                assert_true(*sig != '\0');
                for (p = sig; *p;) {
                        size_t len = strcspn(p, " ");
                        if (!in_vocabulary(p, len))
                                fail_msg("bottleneck token '%.*s' is not in the vocabulary",
                                         (int)len, p);
                        p += len;
                        p += *p == ' ';
                }
                check_reversible(step);
        }

        /* the same walk again: memo hits only, the same entries, nothing new */
        again = walk(&options, &w2);
        assert_int_equal(json_integer_value(json_object_get(again, "evaluations")), 0);
        assert_true(json_integer_value(json_object_get(again, "memo_hits")) >= 1);
        assert_int_equal(json_integer_value(json_object_get(again, "new_entries")), 0);
        assert_int_equal(json_integer_value(json_object_get(again, "kept")),
                         json_integer_value(json_object_get(summary, "kept")));
        json_array_foreach(json_object_get(summary, "steps"), i, step)
            assert_string_equal(json_string_value(json_object_get(step, "entry")),
                                json_string_value(json_object_get(
                                    json_array_get(json_object_get(again, "steps"), i), "entry")));
        assert_int_equal(experience_list(fx->store, &entries_again), 0);
        assert_int_equal(json_array_size(entries_again), json_array_size(entries));
        json_decref(entries);
        json_decref(entries_again);
        json_decref(summary);
        json_decref(again);
}

/* An inverse that breaks the kernel's syntax: it cannot compile. */
static int break_syntax(struct motif_scan *scan)
{
        struct cxx_file *f = &scan->files[scan->kernel];

        site_begin(scan, f, 0, "prepend a line that is not C++");
        site_edit(scan, f, 0, 0, "this is not C++ at all;\n");
        return site_end(scan);
}

/* An inverse that turns Add into Sub: it compiles and gives the wrong answer. */
static int add_to_sub(struct motif_scan *scan)
{
        struct cxx_file *f = &scan->files[scan->kernel];

        for (size_t i = 0; i < f->tokens.n; i++) {
                if (!cxx_tok_eq(f, i, "Add") || !cxx_tok_eq(f, cxx_tok_next(f, i), "("))
                        continue;
                site_begin(scan, f, i, "compute Sub instead of Add");
                site_replace(scan, f, i, i, "Sub");
                return site_end(scan);
        }
        return 0;
}

static const struct motif broken_compile = {
        .name = "test_broken_compile",
        .title = "Break the syntax",
        .description = "A test double whose inverse does not compile.",
        .bottleneck = "bound=mte2",
        .inverse = break_syntax,
};

static const struct motif wrong_answer = {
        .name = "test_wrong_answer",
        .title = "Subtract instead of adding",
        .description = "A test double whose inverse gives the wrong answer.",
        .bottleneck = "bound=mte2",
        .inverse = add_to_sub,
};

static void test_failures_are_skipped(void **state)
{
        const struct motif *motifs[] = { &broken_compile, &wrong_answer,
                                         motif_find("barrier_removal") };
        struct rewind_options options = {
                .threshold_pct = THRESHOLD_PCT, .max_steps = 1, .motifs = motifs, .n_motifs = 3
        };
        json_t *summary, *failures, *steps;
        const char *kind;
        json_t *count;
        struct walk w;
        int broken = 0;

        assert_non_null(motifs[2]);
        summary = walk(&options, &w);
        failures = json_object_get(summary, "failures");
        steps = json_object_get(summary, "steps");
        /* both are skipped and counted; the walk goes on to the real motif */
        assert_non_null(json_object_get(failures, "test_broken_compile"));
        json_object_foreach(json_object_get(failures, "test_broken_compile"), kind, count) broken +=
            (int)json_integer_value(count);
        assert_int_equal(broken, 1);
        assert_int_equal(json_integer_value(json_object_get(
                             json_object_get(failures, "test_wrong_answer"), "wrong_answer")),
                         1);
        assert_int_equal(json_array_size(steps), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 0), "motif")),
                            "barrier_removal");
        json_decref(summary);
}

static void test_no_expert(void **state)
{
        char opdir[512], err[256] = "";

        snprintf(opdir, sizeof(opdir), "%s/examples/ops/level1/abs", source_dir());
        assert_false(rewind_has_expert(opdir));
        assert_true(rewind_has_expert(fx->opdir));
        assert_int_equal(rewind_start(fx->evaluator, fx->store, opdir, NULL, NULL, on_done, NULL,
                                      NULL, err, sizeof(err)),
                         -ENOENT);
        assert_non_null(strstr(err, "expert"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rewind_add),
                cmocka_unit_test(test_failures_are_skipped),
                cmocka_unit_test(test_no_expert),
        };
        return cmocka_run_group_tests_name("optimizer_rewind", tests, setup, teardown);
}
