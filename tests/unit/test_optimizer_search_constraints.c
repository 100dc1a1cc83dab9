/* SPDX-License-Identifier: MIT */
/*
 * Tests of what Stage I's search learns from failures, on a synthetic
 * kernel without tail handling (40 rows over CORE_NUM cores, each row of
 * 1024 or 2048 walked in TILE_LEN tiles): the constraints it learns
 * ("must divide 40", "must divide 1024"), that no proposal breaks one once
 * it is learnt, that none rules out a value that answers right, that a
 * lone failure teaches only what a dimension alone explains, that a pass
 * drops what it breaks, a move's site that keeps failing, UB overflows
 * teaching a live-tensor count's bound, that the constraints survive
 * a resume, a count of fixed meaning held as written, and a space of many
 * genes searched around the baseline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "optimizer/optimizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CORES, TILE, MOVE, N_GENES };

static const struct gene genes[N_GENES] = {
        [CORES] = { .name = "CORE_NUM", .value = 8, .lo = 1, .hi = 64, .scale = GENE_POW2 },
        [TILE] = { .name = "TILE_LEN", .value = 256, .lo = 32, .hi = 4096, .scale = GENE_ALIGN32 },
        /* a structural move whose sites 1 and 2 break the kernel, 3 is harmless */
        [MOVE] = { .name = "move:tile_from_ub",
                   .value = 0,
                   .lo = 0,
                   .hi = 3,
                   .scale = GENE_CHOICE },
};

/* The case shapes' facts, as episode_shape_facts makes them from [40, 1024] and [40, 2048]. */
static const int64_t facts[] = { 40, 1024, 40960, 2048, 81920 };

static struct search_options options_with_facts(uint64_t seed)
{
        struct search_options o = { .seed = seed };

        memcpy(o.facts, facts, sizeof(facts));
        o.n_facts = sizeof(facts) / sizeof(facts[0]);
        return o;
}

/* The truth: right answers need the rows split evenly, the row tiled evenly, no bad move. */
static bool answers_right(const int64_t *v)
{
        return 40 % v[CORES] == 0 && 1024 % v[TILE] == 0 && v[MOVE] != 1 && v[MOVE] != 2;
}

static double latency_of(const int64_t *v)
{
        return 1000.0 / (double)v[CORES] + 4096.0 / (double)v[TILE] + (double)v[MOVE];
}

static bool constraint_text(const struct search *s, const char *text)
{
        const struct search_constraint *c;
        size_t n = search_constraints(s, &c);
        char buf[512];

        for (size_t i = 0; i < n; i++) {
                search_constraint_describe(s, &c[i], buf, sizeof(buf));
                if (strncmp(buf, text, strlen(text)) == 0)
                        return true;
        }
        return false;
}

/* A search at seed 1 that has measured the baseline (8 cores, tile 256) at 10 us. */
static struct search *search_after_baseline(void)
{
        struct search_options o = options_with_facts(1);
        struct search *s = NULL;
        int64_t base[N_GENES] = { 8, 256, 0 };

        assert_int_equal(search_new(genes, N_GENES, &o, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 10, NULL);
        return s;
}

/* Whether every genome that answers right keeps every constraint learnt. */
static void assert_nothing_right_ruled_out(const struct search *s)
{
        for (int64_t cores = 1; cores <= 64; cores *= 2)
                for (int64_t tile = 32; tile <= 4096; tile += 32)
                        for (int64_t move = 0; move <= 3; move++) {
                                int64_t v[N_GENES] = {
                                        [CORES] = cores, [TILE] = tile, [MOVE] = move
                                };
                                if (answers_right(v))
                                        assert_true(search_allows(s, v));
                        }
}

/*
 * Runs a search of budget proposals on the synthetic kernel; returns how
 * many answered wrong, and asserts on the way that nothing proposed breaks
 * a constraint learnt before it.
 */
static int run(struct search *s, int budget)
{
        int64_t v[N_GENES], base[N_GENES] = { 8, 256, 0 };
        int wrong = 0;

        search_record(s, base, TECHNIQUE_COUNT, true, latency_of(base), NULL);
        for (int i = 0; i < budget; i++) {
                enum search_technique t;
                bool ok;
                if (search_propose(s, v, &t) < 0)
                        break;
                assert_true(search_allows(s, v));
                ok = answers_right(v);
                wrong += !ok;
                search_record(s, v, t, ok, ok ? latency_of(v) : 0, ok ? NULL : "wrong_answer");
                assert_nothing_right_ruled_out(s);
        }
        return wrong;
}

static void test_wrong_answers_teach_the_dimensions(void **state)
{
        int learnt_both = 0;

        for (uint64_t seed = 1; seed <= 5; seed++) {
                struct search_options o = options_with_facts(seed);
                struct search *s = NULL;
                int64_t base[N_GENES] = { 8, 256, 0 };

                assert_int_equal(search_new(genes, N_GENES, &o, &s), 0);
                run(s, 80);
                assert_true(search_allows(s, base));
                learnt_both += constraint_text(s, "CORE_NUM must divide 40 ") &&
                               constraint_text(s, "TILE_LEN must divide 1024 ");
                search_free(s);
        }
        /* each seed's search pins both down exactly within 80 proposals */
        assert_int_equal(learnt_both, 5);
}

/*
 * Once a dimension is learnt no proposal breaks it: the wrong answers
 * after that are other genes' (a move's, the other dimension's).
 */
static void test_no_proposal_breaks_what_was_learnt(void **state)
{
        int after_cores = 0, after_tile = 0;

        for (uint64_t seed = 1; seed <= 5; seed++) {
                struct search_options o = options_with_facts(seed);
                struct search *s = NULL;
                int64_t v[N_GENES], base[N_GENES] = { 8, 256, 0 };
                bool cores_learnt = false, tile_learnt = false;

                assert_int_equal(search_new(genes, N_GENES, &o, &s), 0);
                search_record(s, base, TECHNIQUE_COUNT, true, latency_of(base), NULL);
                for (int i = 0; i < 60; i++) {
                        enum search_technique t;
                        bool ok;
                        if (search_propose(s, v, &t) < 0)
                                break;
                        if (cores_learnt) {
                                assert_int_equal(40 % v[CORES], 0);
                                after_cores++;
                        }
                        if (tile_learnt) {
                                assert_int_equal(1024 % v[TILE], 0);
                                after_tile++;
                        }
                        ok = answers_right(v);
                        search_record(s, v, t, ok, ok ? latency_of(v) : 0,
                                      ok ? NULL : "wrong_answer");
                        cores_learnt = constraint_text(s, "CORE_NUM must divide 40 ");
                        tile_learnt = constraint_text(s, "TILE_LEN must divide 1024 ");
                }
                assert_true(search_constraint_rejections(s) > 0);
                search_free(s);
        }
        /* learnt early enough that the search went on for a while */
        assert_true(after_cores > 150);
        assert_true(after_tile > 100);
}

/*
 * A lone failure teaches only what one dimension explains and nothing else
 * does; more failures narrow what stands, and what stands is kept as
 * alternatives: nothing is ruled out that one of them allows.
 */
static void test_one_failure_needs_a_dimension(void **state)
{
        struct search_options o = options_with_facts(1);
        struct search *s = NULL;
        const struct search_constraint *c;
        int64_t base[N_GENES] = { 8, 256, 0 }, cores16[N_GENES] = { 16, 256, 0 };

        assert_int_equal(search_new(genes, N_GENES, &o, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 10, NULL);
        /* 704 does not divide 1024, but neither is it a multiple of 128, nor under 704: no telling */
        search_record(s, (int64_t[]){ 8, 704, 0 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_int_equal(search_constraints(s, &c), 0);
        /* 16 cores: only "divides 40" (or "at most 8", which allows the same) explains it */
        search_record(s, cores16, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_int_equal(search_constraints(s, &c), 1);
        assert_true(constraint_text(s, "CORE_NUM must divide 40 (1 failure, wrong_answer: 16)"));
        /* a second tile failure: three ways to explain both stand */
        search_record(s, (int64_t[]){ 8, 1248, 0 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_int_equal(search_constraints(s, &c), 2);
        assert_true(constraint_text(s, "TILE_LEN must divide 40960 or be a multiple of 128 or be "
                                       "at most 672 (2 failures, wrong_answer: 704, 1248)"));
        assert_true(search_allows(s, (int64_t[]){ 8, 96, 0 }));
        assert_false(search_allows(s, (int64_t[]){ 8, 1120, 0 }));
        /* 96 fails too: no bound explains it with the others */
        search_record(s, (int64_t[]){ 8, 96, 0 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_true(constraint_text(s, "TILE_LEN must divide 40960 or be a multiple of 128 (3 "));
        assert_false(search_allows(s, (int64_t[]){ 8, 96, 0 }));
        assert_true(search_allows(s, (int64_t[]){ 8, 384, 0 }));
        assert_true(search_allows(s, (int64_t[]){ 8, 160, 0 }));
        search_free(s);
}

/*
 * Timeouts and slow runs teach nothing, and one UB overflow, which a
 * bound or a dimension would explain alike, is not enough; a pass that
 * breaks a constraint drops it.
 */
static void test_what_teaches_and_what_drops(void **state)
{
        struct search *s = search_after_baseline();
        const struct search_constraint *c;
        search_record(s, (int64_t[]){ 16, 256, 0 }, TECHNIQUE_SWEEP, false, 0, "timeout");
        search_record(s, (int64_t[]){ 32, 256, 0 }, TECHNIQUE_SWEEP, false, 0, "ub_overflow");
        search_record(s, (int64_t[]){ 64, 256, 0 }, TECHNIQUE_SWEEP, false, 0, "slow");
        assert_int_equal(search_constraints(s, &c), 0);
        /* a kernel reading past a tensor and a wrong answer agree */
        search_record(s, (int64_t[]){ 8, 704, 0 }, TECHNIQUE_SWEEP, false, 0, "out_of_bounds");
        search_record(s, (int64_t[]){ 8, 1248, 0 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        search_record(s, (int64_t[]){ 8, 384, 0 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_true(constraint_text(s, "TILE_LEN must divide 40960 or be a multiple of 256 or be "
                                       "at most 352 (3 failures, out_of_bounds,wrong_answer: 704, "
                                       "1248, 384)"));
        /* an outside proposal (an LLM's) at 768 answers right: "multiple of 256" stands alone */
        search_record(s, (int64_t[]){ 8, 768, 0 }, TECHNIQUE_COUNT, true, 9, NULL);
        assert_true(constraint_text(s, "TILE_LEN must be a multiple of 256 "));
        assert_true(search_allows(s, (int64_t[]){ 8, 768, 0 }));
        /* one at 96 breaks that too: nothing explains every failure and passes them all */
        search_record(s, (int64_t[]){ 8, 96, 0 }, TECHNIQUE_COUNT, true, 9, NULL);
        assert_int_equal(search_constraints(s, &c), 0);
        search_free(s);
}

/*
 * cann-ops' gelu_quant: the UB is divided by live-tensor counts (6 and 7,
 * what the kernel allocates), and a share per core that does not matter
 * to the UB varies at random.  Fewer live tensors than the kernel's
 * overflows every time; the region memory alone, which asks every other
 * gene to agree with a failure, let 20 of 40 evaluations overflow.  Blamed
 * on a count alone, overflows teach its bound, which no later proposal
 * breaks, and fewer evaluations overflow.
 */
static void test_overflows_teach_a_bound(void **state)
{
        static const struct gene counts[] = {
                { .name = "LIVE", .value = 6, .lo = 1, .hi = 24, .scale = GENE_STEP },
                { .name = "WORKSPACE_LIVE", .value = 7, .lo = 1, .hi = 28, .scale = GENE_STEP },
                { .name = "MIN_SHARE", .value = 128, .lo = 8, .hi = 2048, .scale = GENE_POW2 },
        };
        int overflows = 0, learnt = 0;

        (void)state;
        for (uint64_t seed = 1; seed <= 5; seed++) {
                struct search_options o = { .seed = seed };
                struct search *s = NULL;
                int64_t v[3], base[3] = { 6, 7, 128 };

                assert_int_equal(search_new(counts, 3, &o, &s), 0);
                search_record(s, base, TECHNIQUE_COUNT, true, 100, NULL);
                for (int i = 0; i < 40; i++) {
                        enum search_technique t;
                        bool ok;
                        if (search_propose(s, v, &t) < 0)
                                break;
                        assert_true(search_allows(s, v));
                        ok = v[0] >= 6 && v[1] >= 7;
                        overflows += !ok;
                        search_record(s, v, t, ok, ok ? 100.0 - (double)v[2] / 1024 : 0,
                                      ok ? NULL : "ub_overflow");
                        /* nothing that fits is ruled out */
                        assert_true(search_allows(s, (int64_t[]){ 6, 7, 8 }));
                        assert_true(search_allows(s, (int64_t[]){ 24, 28, 2048 }));
                }
                /* a bound just short of the nearest overflow, never inside a pass */
                learnt += constraint_text(s, "LIVE must be at least ") &&
                          constraint_text(s, "WORKSPACE_LIVE must be at least ");
                search_free(s);
        }
        print_message("overflows in 5 x 40 evaluations: %d; both bounds learnt on %d seeds\n",
                      overflows, learnt);
        /* 87 overflows with the region memory alone (the 8 random genomes make 15 or so) */
        assert_int_equal(learnt, 5);
        assert_true(overflows <= 70);
}

/* A move's site that fails twice on its own is not made again; once is not enough. */
static void test_a_move_that_keeps_failing(void **state)
{
        struct search_options o = options_with_facts(1);
        struct search *s = NULL;
        int64_t base[N_GENES] = { 8, 256, 0 }, other[N_GENES] = { 4, 128, 0 };

        assert_int_equal(search_new(genes, N_GENES, &o, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 10, NULL);
        search_record(s, (int64_t[]){ 8, 256, 2 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_true(search_allows(s, (int64_t[]){ 4, 128, 2 }));
        search_record(s, other, TECHNIQUE_SWEEP, true, 9, NULL);
        search_record(s, (int64_t[]){ 4, 128, 2 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        assert_true(constraint_text(s, "move:tile_from_ub must not be 2 (2 failures"));
        assert_false(search_allows(s, (int64_t[]){ 2, 64, 2 }));
        assert_true(search_allows(s, (int64_t[]){ 2, 64, 3 }));
        search_free(s);
}

/*
 * A count whose meaning is fixed (the cores a kernel's indexing assumes)
 * fails whichever way it moves, and no bound, alignment or dimension
 * explains failures on both sides: after two it stays as written, and a
 * pass at another value drops that again.
 */
static void test_a_count_of_fixed_meaning(void **state)
{
        struct search *s = search_after_baseline();
        const struct search_constraint *c;
        search_record(s, (int64_t[]){ 16, 256, 0 }, TECHNIQUE_SWEEP, false, 0, "wrong_answer");
        /* one failure: the rows (40) explain it */
        assert_true(constraint_text(s, "CORE_NUM must divide 40 (1 failure"));
        search_record(s, (int64_t[]){ 4, 256, 0 }, TECHNIQUE_SWEEP, false, 0, "out_of_bounds");
        assert_int_equal(search_constraints(s, &c), 1);
        assert_true(constraint_text(s, "CORE_NUM must stay 8 (2 failures, "
                                       "wrong_answer,out_of_bounds: 16, 4)"));
        assert_false(search_allows(s, (int64_t[]){ 2, 256, 0 }));
        assert_true(search_allows(s, (int64_t[]){ 8, 512, 0 }));
        /* an outside proposal at 2 cores answers right: the count was a choice after all */
        search_record(s, (int64_t[]){ 2, 256, 0 }, TECHNIQUE_COUNT, true, 12, NULL);
        assert_false(constraint_text(s, "CORE_NUM must stay"));
        search_free(s);
}

/*
 * A real tiling program has ten or twenty genes, and some of them slip
 * through the freezing though their meaning is fixed.  Here 6 of 12 break
 * the kernel whenever they move.  A whole random genome moves them all, so
 * nearly every one of Best-of-N's fails; Stage I's first population moves a
 * few genes at a time, blames a failure on the gene it moved and holds that
 * gene once it failed on both sides: over 5 seeds of 40 evaluations it fails less than half
 * as often, and ends faster.
 */
enum { WIDE = 12, FIXED = 6 };

static bool wide_right(const int64_t *v)
{
        for (int g = 0; g < FIXED; g++)
                if (v[g] != 8)
                        return false;
        return true;
}

static double wide_latency(const int64_t *v)
{
        double t = 100;

        for (int g = FIXED; g < WIDE; g++)
                t += 64.0 / (double)v[g];
        return t;
}

static void run_wide(bool random_only, int *ret_failures, double *ret_best)
{
        struct gene wide[WIDE];

        for (int g = 0; g < WIDE; g++) {
                wide[g] = (struct gene){ .value = 8, .lo = 1, .hi = 64, .scale = GENE_POW2 };
                snprintf(wide[g].name, sizeof(wide[g].name), "G%d", g);
        }
        *ret_failures = 0;
        *ret_best = 0;
        for (uint64_t seed = 1; seed <= 5; seed++) {
                struct search_options o = { .seed = seed, .random_only = random_only };
                struct search *s = NULL;
                int64_t v[WIDE], base[WIDE];
                double best;

                for (int g = 0; g < WIDE; g++)
                        base[g] = 8;
                assert_int_equal(search_new(wide, WIDE, &o, &s), 0);
                search_record(s, base, TECHNIQUE_COUNT, true, wide_latency(base), NULL);
                for (int i = 0; i < 40; i++) {
                        enum search_technique t;
                        bool ok;
                        if (search_propose(s, v, &t) < 0)
                                break;
                        ok = wide_right(v);
                        *ret_failures += !ok;
                        search_record(s, v, t, ok, ok ? wide_latency(v) : 0,
                                      ok ? NULL : "wrong_answer");
                }
                search_best(s, &best);
                *ret_best += best / 5;
                search_free(s);
        }
}

static void test_many_genes_fail_less_than_random_genomes(void **state)
{
        int stage1_failures, bon_failures;
        double stage1_best, bon_best;

        run_wide(false, &stage1_failures, &stage1_best);
        run_wide(true, &bon_failures, &bon_best);
        printf("# 12 genes, 6 fixed, 5 x 40: failures %d (Best-of-N %d), mean best %.1f (%.1f; "
               "baseline %.1f)\n",
               stage1_failures, bon_failures, stage1_best, bon_best, 148.0);
        assert_true(stage1_failures * 2 < bon_failures);
        assert_true(stage1_best < bon_best);
}

/*
 * Coupled genes, as on cann-ops' moe_soft_max_topk: a copy misaligns
 * once tiles times cores reach 1024, whichever of the two grows.  No rule
 * of the tile count's own explains its failures (16 tiles pass with 16
 * cores), so its product with the cores is bounded; a pass beyond the
 * bound drops it again.
 */
static void test_coupled_genes_bound_their_product(void **state)
{
        static const struct gene coupled[2] = {
                { .name = "set_tileNum", .value = 1, .lo = 1, .hi = 16, .scale = GENE_POW2 },
                { .name = "blockDim", .value = 32, .lo = 2, .hi = 512, .scale = GENE_POW2 },
        };
        struct search_options o = { .seed = 1 };
        struct search *s = NULL;
        int64_t v[2];

        (void)state;
        assert_int_equal(search_new(coupled, 2, &o, &s), 0);
        search_record(s, (int64_t[]){ 1, 32 }, TECHNIQUE_COUNT, true, 28, NULL);
        search_record(s, (int64_t[]){ 4, 128 }, TECHNIQUE_SWEEP, true, 29, NULL);
        search_record(s, (int64_t[]){ 16, 16 }, TECHNIQUE_SWEEP, true, 53, NULL);
        search_record(s, (int64_t[]){ 8, 128 }, TECHNIQUE_SWEEP, false, 0, "misaligned_copy");
        assert_false(constraint_text(s, "set_tileNum x blockDim"));
        search_record(s, (int64_t[]){ 8, 64 }, TECHNIQUE_SWEEP, true, 33, NULL);
        search_record(s, (int64_t[]){ 16, 64 }, TECHNIQUE_SWEEP, false, 0, "misaligned_copy");
        assert_true(constraint_text(s, "set_tileNum x blockDim must be at most 1023 (2 failures, "
                                       "misaligned_copy: 1024, 1024)"));
        /* the tile count alone is still free: 16 with few cores, 2 with 256 */
        assert_true(search_allows(s, (int64_t[]){ 16, 32 }));
        assert_true(search_allows(s, (int64_t[]){ 2, 256 }));
        assert_false(search_allows(s, (int64_t[]){ 4, 256 }));
        for (int i = 0; i < 20 && search_propose(s, v, &(enum search_technique){ 0 }) == 0; i++) {
                assert_true(v[0] * v[1] < 1024);
                search_record(s, v, TECHNIQUE_SWEEP, true, 40, NULL);
        }
        /* an outside proposal beyond the bound answers right: it was not the product */
        search_record(s, (int64_t[]){ 1, 2048 }, TECHNIQUE_COUNT, true, 60, NULL);
        assert_false(constraint_text(s, "set_tileNum x blockDim must be at most 1023"));
        search_free(s);
}

/*
 * As on the corpus's relu: the tile is the input over BLOCK_DIM times
 * TILE_NUM, so the UB overflows below a product of 2048, and the move
 * cores_from_platform holds BLOCK_DIM as written (8) while the kernel runs
 * on the platform's 48 cores.  Such a genome passing with 8 x 64 says
 * nothing of the product: the bound is learnt from the others.
 */
static void test_a_gene_a_move_holds_says_nothing_of_a_product(void **state)
{
        enum { MOVE_CORES, BLOCK_DIM, TILE_NUM };
        static const struct gene relu[3] = {
                [MOVE_CORES] = { .name = "move:cores_from_platform",
                                 .value = 0,
                                 .lo = 0,
                                 .hi = 1,
                                 .scale = GENE_CHOICE },
                [BLOCK_DIM] = { .name = "BLOCK_DIM",
                                .value = 8,
                                .lo = 1,
                                .hi = 128,
                                .scale = GENE_POW2 },
                [TILE_NUM] = { .name = "TILE_NUM",
                               .value = 256,
                               .lo = 16,
                               .hi = 4096,
                               .scale = GENE_POW2 },
        };
        static const struct search_inert held[] = {
                { .move = MOVE_CORES, .site = 1, .gene = BLOCK_DIM }
        };
        struct search_options o = { .seed = 1 };
        struct search *s = NULL;
        int64_t v[3];

        (void)state;
        assert_int_equal(search_new(relu, 3, &o, &s), 0);
        search_set_inert(s, held, 1);
        search_record(s, (int64_t[]){ 0, 8, 256 }, TECHNIQUE_COUNT, true, 157, NULL);
        search_record(s, (int64_t[]){ 1, 8, 64 }, TECHNIQUE_RANDOM, true, 127, NULL);
        search_record(s, (int64_t[]){ 0, 32, 64 }, TECHNIQUE_SWEEP, true, 68, NULL);
        search_record(s, (int64_t[]){ 0, 16, 128 }, TECHNIQUE_SWEEP, true, 76, NULL);
        search_record(s, (int64_t[]){ 0, 16, 64 }, TECHNIQUE_SWEEP, false, 0, "ub_overflow");
        search_record(s, (int64_t[]){ 0, 4, 64 }, TECHNIQUE_SWEEP, false, 0, "ub_overflow");
        assert_true(constraint_text(s, "BLOCK_DIM x TILE_NUM must be at least 1025 (2 failures, "
                                       "ub_overflow: 1024, 256)"));
        /* with the move, BLOCK_DIM is not the core count: 8 x 64 stays allowed */
        assert_true(search_allows(s, (int64_t[]){ 1, 8, 64 }));
        assert_false(search_allows(s, (int64_t[]){ 0, 8, 128 }));
        for (int i = 0; i < 20 && search_propose(s, v, &(enum search_technique){ 0 }) == 0; i++) {
                assert_true(v[MOVE_CORES] == 1 || v[BLOCK_DIM] * v[TILE_NUM] > 1024);
                search_record(s, v, TECHNIQUE_SWEEP, true, 90, NULL);
        }
        search_free(s);
}

/* A resumed search learns the same constraints again and keeps proposing within them. */
static void test_constraints_survive_a_resume(void **state)
{
        struct search_options o = options_with_facts(3);
        struct search *a = NULL, *b = NULL;
        const struct search_constraint *ca, *cb;
        json_t *saved, *ja, *jb;
        size_t n;

        assert_int_equal(search_new(genes, N_GENES, &o, &a), 0);
        run(a, 60);
        n = search_constraints(a, &ca);
        assert_true(n > 0);
        saved = search_to_json(a);
        assert_int_equal(json_array_size(json_object_get(saved, "constraints")), n);
        assert_int_equal(search_new(genes, N_GENES, &o, &b), 0);
        assert_int_equal(search_from_json(b, saved), 0);
        assert_int_equal(search_constraints(b, &cb), n);
        ja = search_constraints_json(a);
        jb = search_constraints_json(b);
        assert_true(json_equal(ja, jb));
        json_decref(ja);
        json_decref(jb);
        assert_int_equal(search_constraint_rejections(b), search_constraint_rejections(a));
        for (int i = 0; i < 10; i++) {
                int64_t v[N_GENES], w[N_GENES];
                enum search_technique ta, tb;
                if (search_propose(a, v, &ta) < 0)
                        break;
                assert_int_equal(search_propose(b, w, &tb), 0);
                assert_memory_equal(v, w, sizeof(v));
                search_record(a, v, ta, answers_right(v), latency_of(v), "wrong_answer");
                search_record(b, w, tb, answers_right(w), latency_of(w), "wrong_answer");
        }
        json_decref(saved);
        search_free(a);
        search_free(b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_one_failure_needs_a_dimension),
                cmocka_unit_test(test_what_teaches_and_what_drops),
                cmocka_unit_test(test_a_move_that_keeps_failing),
                cmocka_unit_test(test_overflows_teach_a_bound),
                cmocka_unit_test(test_wrong_answers_teach_the_dimensions),
                cmocka_unit_test(test_no_proposal_breaks_what_was_learnt),
                cmocka_unit_test(test_constraints_survive_a_resume),
                cmocka_unit_test(test_a_count_of_fixed_meaning),
                cmocka_unit_test(test_many_genes_fail_less_than_random_genomes),
                cmocka_unit_test(test_coupled_genes_bound_their_product),
                cmocka_unit_test(test_a_gene_a_move_holds_says_nothing_of_a_product),
        };
        return cmocka_run_group_tests_name("optimizer_search_constraints", tests, NULL, NULL);
}
