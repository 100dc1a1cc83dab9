/* SPDX-License-Identifier: MIT */
/*
 * Tests of Stage I's structural tiling moves on real operators of the
 * corpus (examples/ops/level1 and level2) and of tests/ops/ok: each move is
 * detected where its pattern is and not elsewhere, applies once (the
 * result no longer matches), touches only op_host/ files, and (on the
 * simulator) the rewritten operator builds and gives the baseline's
 * outputs.
 *
 * expensive: applies the tiling moves to real operators and evaluates them
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "op-fixture.h"
#include "config/config.h"

#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

static const char *host_text(const struct op_files *op, const char *path)
{
        for (size_t i = 0; i < op->n; i++)
                if (strcmp(op->files[i].path, path) == 0)
                        return op->files[i].text;
        return NULL;
}

static size_t move_sites(const char *name, const struct op_files *op)
{
        struct motif_site *s = NULL;
        size_t n = 0;

        assert_int_equal(tiling_move_detect(tiling_move_find(name), op->files, op->n, &s, &n), 0);
        for (size_t i = 0; i < n; i++) {
                assert_true(s[i].line > 0);
                assert_true(s[i].what[0] != '\0');
                assert_int_equal(strncmp(s[i].file, "op_host/", 8), 0);
        }
        free(s);
        return n;
}

/* Applies name at site to op (which takes the new texts); fails the test on an error. */
static void move_apply(const char *name, struct op_files *op, size_t site)
{
        struct motif_file *changed = NULL;
        size_t n = 0;
        int r = tiling_move_apply(tiling_move_find(name), op->files, op->n, site, &changed, &n);

        if (r < 0)
                fail_msg("%s at site %zu: %d", name, site, r);
        assert_true(n >= 1);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(strncmp(changed[i].path, "op_host/", 8), 0);
        op_update(op, changed, n);
}

/* ------------------------------------------------------------------ the table */

static void test_table(void **state)
{
        assert_int_equal(tiling_move_count(), 4);
        assert_null(tiling_move_at(tiling_move_count()));
        assert_null(tiling_move_find("no_such_move"));
        for (size_t i = 0; i < tiling_move_count(); i++) {
                const struct tiling_move *m = tiling_move_at(i);
                assert_ptr_equal(tiling_move_find(m->name), m);
                assert_true(m->name[0] && m->description[0]);
                assert_non_null(m->scan);
                /* a move's name is a technique name in the trajectory: not a search technique's */
                for (int t = 0; t < TECHNIQUE_COUNT; t++)
                        assert_string_not_equal(m->name, search_technique_name(t));
        }
}

/* ------------------------------------------------------------------ detection on the corpus */

struct expect {
        const char *opdir;
        size_t cores, size, tile, remainder; /* sites of each move */
};

static const struct expect expects[] = {
        /* a fixed BLOCK_DIM and TILE_LENGTH, no platform query */
        { "examples/ops/level1/rsqrt", 1, 0, 3, 0 },
        /* a fixed BLOCK_DIM, the tile a share of TILE_NUM: no fixed tile to derive */
        { "examples/ops/level1/relu", 1, 0, 0, 0 },
        /* the platform's core count, a fixed tile */
        { "examples/ops/level1/silu", 0, 3, 3, 0 },
        /* a fixed TILE_BYTES: no element-size variant */
        { "examples/ops/level1/exp", 0, 3, 2, 0 },
        /* the tile already comes from the UB */
        { "examples/ops/level1/sigmoid", 0, 3, 0, 0 },
        { "examples/ops/level1/add", 0, 3, 0, 0 },
        { "examples/ops/level2/softmax", 0, 3, 0, 0 },
        /* the core count lives in a struct, not a local: nothing to cap */
        { "tests/ops/ok/tiling_key_dispatch", 0, 0, 0, 0 },
        /* a former/tail split with one tail core taking the remainder */
        { "tests/ops/ok/tail_core_split", 0, 3, 3, 1 },
        /* a balanced big/small split (add_custom): nothing to spread */
        { "tests/ops/ok/add_custom", 0, 3, 0, 0 },
        /* a core count hard-coded in a local, aivNum = 40, and a fixed tile */
        { "tests/ops/ok/hidden_core_count", 1, 0, 3, 0 },
        /* cores = 8 in a local, and no tile constant */
        { "tests/ops/ok/inplace_axpy", 1, 0, 0, 0 },
};

static void test_detect(void **state)
{
        for (size_t i = 0; i < sizeof(expects) / sizeof(*expects); i++) {
                const struct expect *e = &expects[i];
                struct op_files op;
                op_load(e->opdir, &op);
                if (move_sites("cores_from_platform", &op) != e->cores ||
                    move_sites("blockdim_from_size", &op) != e->size ||
                    move_sites("tile_from_ub", &op) != e->tile ||
                    move_sites("remainder_to_first_cores", &op) != e->remainder)
                        fail_msg("%s: sites %zu %zu %zu %zu, expected %zu %zu %zu %zu", e->opdir,
                                 move_sites("cores_from_platform", &op),
                                 move_sites("blockdim_from_size", &op),
                                 move_sites("tile_from_ub", &op),
                                 move_sites("remainder_to_first_cores", &op), e->cores, e->size,
                                 e->tile, e->remainder);
                op_release(&op);
        }
}

/* Every move at every site of every operator: it applies, and then no longer applies. */
static void test_apply_once_everywhere(void **state)
{
        static const char *const roots[] = { "examples/ops/level1", "examples/ops/level2",
                                             "tests/ops/ok" };
        size_t applied = 0;

        for (size_t r = 0; r < 3; r++) {
                char path[1200];
                DIR *d;
                struct dirent *e;
                snprintf(path, sizeof(path), "%s/%s", source_dir(), roots[r]);
                d = opendir(path);
                assert_non_null(d);
                while ((e = readdir(d))) {
                        char dir[300], sub[1200];
                        if (e->d_name[0] == '.')
                                continue;
                        snprintf(dir, sizeof(dir), "%s/%s", roots[r], e->d_name);
                        snprintf(sub, sizeof(sub), "%s/%s/op_host", source_dir(), dir);
                        if (access(sub, F_OK) != 0)
                                continue;
                        for (size_t m = 0; m < tiling_move_count(); m++) {
                                const char *name = tiling_move_at(m)->name;
                                struct op_files op;
                                size_t n;
                                op_load(dir, &op);
                                n = move_sites(name, &op);
                                op_release(&op);
                                for (size_t s = 0; s < n; s++) {
                                        op_load(dir, &op);
                                        move_apply(name, &op, s);
                                        if (move_sites(name, &op) >= n)
                                                fail_msg("%s still applies to %s after site %zu",
                                                         name, dir, s);
                                        applied++;
                                        op_release(&op);
                                }
                        }
                }
                closedir(d);
        }
        print_message("# %zu move sites applied across the corpus\n", applied);
        assert_true(applied >= 20);
}

/* The rewrites of relu: the constant goes, the platform is asked, and the next move opens. */
static void test_relu_text(void **state)
{
        struct op_files op;
        const char *text;

        op_load("examples/ops/level1/relu", &op);
        move_apply("cores_from_platform", &op, 0);
        text = host_text(&op, "op_host/relu_custom.cpp");
        assert_non_null(text);
        assert_null(strstr(text, "constexpr uint32_t BLOCK_DIM"));
        assert_null(strstr(text, "/ BLOCK_DIM"));
        assert_non_null(strstr(text, "GetCoreNumAiv()"));
        /* comments stay, and so does the tile count the share is cut into */
        assert_non_null(strstr(text, "// Host side of ReluCustom"));
        assert_non_null(strstr(text, "/ TILE_NUM"));
        assert_int_equal(move_sites("cores_from_platform", &op), 0);
        /* a core count from the platform is what blockdim_from_size caps */
        assert_int_equal(move_sites("blockdim_from_size", &op), 3);
        move_apply("blockdim_from_size", &op, 1);
        assert_non_null(
            strstr(host_text(&op, "op_host/relu_custom.cpp"), "MIN_BYTES_PER_CORE = 16384"));
        op_release(&op);
}

/* The rewrite of rsqrt's fixed tile: TILE_LENGTH goes and the UB size is asked. */
static void test_tile_text(void **state)
{
        struct op_files op;
        const char *text;

        op_load("examples/ops/level1/rsqrt", &op);
        move_apply("tile_from_ub", &op, 0);
        text = host_text(&op, "op_host/rsqrt_custom.cpp");
        assert_non_null(text);
        assert_null(strstr(text, "constexpr uint32_t TILE_LENGTH"));
        assert_null(strstr(text, "set_tileLength(TILE_LENGTH)"));
        assert_non_null(strstr(text, "CoreMemType::UB"));
        /* rsqrt's kernel: two queues of depth BUFFER_NUM = 2 and two float scratch TBufs */
        assert_non_null(strstr(text, "ubBytes / 6 / 512 * 512 / 4"));
        assert_int_equal(move_sites("tile_from_ub", &op), 0);
        op_release(&op);
}

/* The rewrite of tail_core_split: the four fields come from the balanced split. */
static void test_remainder_text(void **state)
{
        struct op_files op;
        const char *text;

        op_load("tests/ops/ok/tail_core_split", &op);
        move_apply("remainder_to_first_cores", &op, 0);
        text = host_text(&op, "op_host/tail_core_split.cpp");
        assert_non_null(text);
        assert_null(strstr(text, "set_tailNum(1)"));
        assert_non_null(strstr(text, "tiling.set_formerNum(splitFormerNum);"));
        assert_non_null(strstr(text, "tiling.set_tailLength(splitTailLength);"));
        assert_non_null(strstr(text, "uint64_t splitFormerNum = coreNum - 1"));
        /* the size of a unit comes from input 0's data type */
        assert_non_null(strstr(text, "ge::GetSizeByDataType(context->GetInputDesc(0)"));
        assert_int_equal(move_sites("remainder_to_first_cores", &op), 0);
        op_release(&op);
}

/* ------------------------------------------------------------------ on the simulator */

struct sim_case {
        const char *opdir;
        const char *moves[3]; /* applied in order, at site[k] */
        size_t site[3];
        bool faster; /* the bench case must get faster */
};

static const struct sim_case sim_cases[] = {
        { "examples/ops/level1/relu", { "cores_from_platform" }, { 0 }, false },
        { "examples/ops/level1/relu",
          { "cores_from_platform", "blockdim_from_size" },
          { 0, 2 },
          false },
        { "examples/ops/level1/rsqrt", { "tile_from_ub" }, { 0 }, false },
        { "examples/ops/level1/rsqrt", { "cores_from_platform", "tile_from_ub" }, { 0, 0 }, false },
        { "examples/ops/level1/silu", { "blockdim_from_size", "tile_from_ub" }, { 0, 2 }, false },
        { "examples/ops/level1/exp", { "tile_from_ub" }, { 1 }, false },
        { "examples/ops/level2/softmax", { "blockdim_from_size" }, { 1 }, false },
        { "tests/ops/ok/bf16_scale", { "blockdim_from_size" }, { 0 }, false },
        /* the last of 48 cores took 247 blocks, now 47 take 201 and one 200 */
        { "tests/ops/ok/tail_core_split", { "remainder_to_first_cores" }, { 0 }, true },
        /* vector-bound on 40 cores of 48: the platform's count is faster */
        { "tests/ops/ok/hidden_core_count", { "cores_from_platform" }, { 0 }, true },
};

static void test_on_the_simulator(void **state)
{
        for (size_t i = 0; i < sizeof(sim_cases) / sizeof(*sim_cases); i++) {
                const struct sim_case *c = &sim_cases[i];
                struct npu_manifest *manifest = NULL;
                struct op_files op;
                json_t *base, *cand;
                char path[512], err[1024], what[256] = "";

                snprintf(path, sizeof(path), "%s/%s", source_dir(), c->opdir);
                if (npu_manifest_load(path, &manifest, err, sizeof(err)) < 0)
                        fail_msg("%s", err);
                op_load(c->opdir, &op);
                base = evaluate(manifest, &op, NULL);
                if (strcmp(json_string_value(json_object_get(base, "status")), "ok") != 0)
                        fail_msg("%s baseline: %s", c->opdir, json_dumps(base, 0));
                for (size_t k = 0; k < 3 && c->moves[k]; k++) {
                        move_apply(c->moves[k], &op, c->site[k]);
                        snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s#%zu",
                                 k ? "+" : "", c->moves[k], c->site[k]);
                }
                cand = evaluate(manifest, &op, base);
                if (strcmp(json_string_value(json_object_get(cand, "status")), "ok") != 0)
                        fail_msg("%s after %s: %s", c->opdir, what, json_dumps(cand, 0));
                print_message("# %s on %s: %.2f us -> %.2f us\n", what, c->opdir, latency(base),
                              latency(cand));
                if (c->faster && !(latency(cand) < latency(base)))
                        fail_msg("%s on %s is no faster", what, c->opdir);
                rm_rf(json_string_value(json_object_get(base, "scratch_dir")));
                json_decref(base);
                json_decref(cand);
                op_release(&op);
                npu_manifest_free(manifest);
        }
}

/* ------------------------------------------------------------------ in an episode */

struct arm {
        struct store *store;
        struct npu_evaluator *evaluator;
        struct episode *episode;
        json_t *record;
        int stop_at; /* stop the episode once this many evaluations were used; 0: never */
};

static void arm_open(struct arm *a, const char *name)
{
        struct npu_evaluator_options options = { .base = fx->base, .timeout_s = 120 };
        char dir[160], scratch[160], cache[PATH_MAX], err[1024];

        memset(a, 0, sizeof(*a));
        snprintf(dir, sizeof(dir), "%s/%s/store", fx->root, name);
        snprintf(scratch, sizeof(scratch), "%s/%s/scratch", fx->root, name);
        assert_int_equal(state_path(cache, sizeof(cache), fx->root, STATE_CACHE),
                         0); /* $ASCENDOPT_CACHE_DIR in make check */
        options.scratch_dir = scratch;
        options.cache_dir = cache;
        if (store_open(dir, &a->store, err, sizeof(err)) < 0 ||
            npu_evaluator_new(fx->runner, &fx->paths, a->store, &options, &a->evaluator, err,
                              sizeof(err)) < 0)
                fail_msg("%s", err);
}

static void arm_close(struct arm *a)
{
        json_decref(a->record);
        npu_evaluator_free(a->evaluator);
        store_close(a->store);
}

static void on_progress(const struct episode_progress *p, void *userdata)
{
        struct arm *a = userdata;

        if (a->stop_at && p->used >= a->stop_at) {
                a->stop_at = 0;
                episode_stop(a->episode);
        }
}

static void on_episode_done(json_t *record, void *userdata)
{
        ((struct arm *)userdata)->record = record;
}

static const char *run(struct arm *a, const char *opdir, const struct episode_options *o)
{
        char err[1024];

        json_decref(a->record);
        a->record = NULL;
        if (episode_start(a->evaluator, a->store, opdir, o, on_progress, on_episode_done, a,
                          &a->episode, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        while (!a->record)
                event_base_loop(fx->base, EVLOOP_ONCE);
        return json_string_value(json_object_get(a->record, "state"));
}

static bool is_move_name(const char *technique)
{
        char copy[160], *save = NULL;

        snprintf(copy, sizeof(copy), "%s", technique ? technique : "");
        for (char *t = strtok_r(copy, "+", &save); t; t = strtok_r(NULL, "+", &save))
                if (!tiling_move_find(t))
                        return false;
        return copy[0] != '\0';
}

/* The trajectory as "technique status latency" lines, to compare runs. */
static char *trajectory_text(const json_t *record)
{
        char *text = calloc(1, 1 << 16);
        const json_t *row;
        size_t i;

        json_array_foreach(json_object_get(record, "trajectory"), i, row)
        {
                size_t len = strlen(text);
                snprintf(text + len, (1 << 16) - len, "%s %s %.3f\n",
                         json_string_value(json_object_get(row, "technique")),
                         json_string_value(json_object_get(row, "status")),
                         json_number_value(json_object_get(row, "latency_us")));
        }
        return text;
}

static void test_episode(void **state)
{
        struct episode_options o = {
                .id = "rsqrt", .seed = 1, .budget = 16, .strategy = EPISODE_STAGE1
        };
        struct arm a, b;
        char rsqrt[512], *first, *again;
        const json_t *row;
        const char *best_moves;
        size_t i, moves = 0, move_genes = 0;

        snprintf(rsqrt, sizeof(rsqrt), "%s/examples/ops/level1/rsqrt", source_dir());
        arm_open(&a, "a");
        assert_string_equal(run(&a, rsqrt, &o), "done");
        /* every move that applies to rsqrt on disk is a gene of the search */
        json_array_foreach(json_object_get(a.record, "genes"), i, row)
        {
                const char *name = json_string_value(json_object_get(row, "name"));
                if (strncmp(name, "move:", 5) == 0) {
                        assert_true(is_move_name(name + 5));
                        assert_string_equal(json_string_value(json_object_get(row, "file")), "");
                        assert_true(json_integer_value(json_object_get(row, "hi")) >= 1);
                        move_genes++;
                }
        }
        assert_true(move_genes >= 2);
        json_array_foreach(json_object_get(a.record, "trajectory"), i, row)
        {
                const char *made = json_string_value(json_object_get(row, "moves"));
                if (made) {
                        assert_true(is_move_name(made));
                        assert_int_equal(json_integer_value(json_object_get(row, "stage")), 1);
                        moves++;
                }
        }
        best_moves = json_string_value(json_object_get(json_object_get(a.record, "best"), "moves"));
        print_message(
            "# rsqrt, Stage I, budget 16: %zu move genes, %zu candidates with moves, %.2f us -> "
            "%.2f us (best by %s, moves %s)\n",
            move_genes, moves,
            json_number_value(json_object_get(json_object_get(a.record, "baseline"), "latency_us")),
            json_number_value(json_object_get(json_object_get(a.record, "best"), "latency_us")),
            json_string_value(json_object_get(json_object_get(a.record, "best"), "technique")),
            best_moves ? best_moves : "none");
        assert_true(moves >= 1);
        first = trajectory_text(a.record);

        /* the same seed in a fresh store: the same trajectory */
        arm_open(&b, "b");
        o.id = "rsqrt-b";
        b.stop_at = 7; /* and stopped halfway, as a daemon shutdown would */
        assert_string_equal(run(&b, rsqrt, &o), "stopped");
        assert_string_equal(run(&b, rsqrt, &o), "done");
        assert_int_equal(json_integer_value(json_object_get(b.record, "resumed")), 1);
        assert_int_equal(json_integer_value(json_object_get(b.record, "evaluations")),
                         json_integer_value(json_object_get(a.record, "evaluations")));
        again = trajectory_text(b.record);
        /*
         * the candidate killed by the stop may have reached the memo: on
         * resuming it is a hit, which costs no budget, so b may go one
         * candidate further; what a did, b did the same
         */
        if (strncmp(first, again, strlen(first)) != 0)
                fail_msg("trajectories differ:\n%s--- resumed:\n%s", first, again);
        free(again);

        /* run again on a's store: what the first run evaluated is all memo hits */
        {
                json_t *before = json_incref(json_object_get(a.record, "trajectory"));
                const json_t *r2;
                o.id = "rsqrt-again";
                assert_string_equal(run(&a, rsqrt, &o), "done");
                json_array_foreach(before, i, row)
                {
                        r2 = json_array_get(json_object_get(a.record, "trajectory"), i);
                        assert_non_null(r2);
                        assert_true(json_is_true(json_object_get(r2, "memo_hit")));
                        assert_string_equal(json_string_value(json_object_get(r2, "technique")),
                                            json_string_value(json_object_get(row, "technique")));
                }
                json_decref(before);
        }
        free(first);
        arm_close(&a);
        arm_close(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_detect),
                cmocka_unit_test(test_apply_once_everywhere),
                cmocka_unit_test(test_relu_text),
                cmocka_unit_test(test_tile_text),
                cmocka_unit_test(test_remainder_text),
                cmocka_unit_test_setup_teardown(test_on_the_simulator, sim_setup, sim_teardown),
                cmocka_unit_test_setup_teardown(test_episode, sim_setup, sim_teardown),
        };
        return cmocka_run_group_tests_name("optimizer_tiling_moves", tests, NULL, NULL);
}
