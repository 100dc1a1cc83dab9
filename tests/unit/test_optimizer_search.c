/* SPDX-License-Identifier: MIT */
/*
 * Tests of Stage I's search on a synthetic tiling landscape: determinism,
 * no genome proposed twice, the UB-overflow region avoided, evolution
 * beating random sampling on the same budget, a resumed search that
 * continues exactly where the saved one was, frozen genes, unordered
 * choices and the one-gene sweep.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "optimizer/optimizer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gene genes[3] = {
        { .name = "tileLength", .value = 2048, .lo = 128, .hi = 32768, .scale = GENE_POW2 },
        { .name = "ubPartNum", .value = 3, .lo = 1, .hi = 12, .scale = GENE_STEP },
        { .name = "blockDim", .value = 8, .lo = 2, .hi = 40, .scale = GENE_STEP },
};

/*
 * A stand-in for the simulator: bigger tiles and more cores help until the
 * UB (tile * parts * 2 bytes) overflows 96 KiB; 40 cores is the machine,
 * and blockDim not dividing 48 leaves a tail.
 */
static bool evaluate(const int64_t *v, double *latency, const char **kind)
{
        if (v[0] * v[1] * 2 > 96 * 1024) {
                *kind = "ub_overflow";
                return false;
        }
        if (v[1] < 2) {
                *kind = "wrong_answer";
                return false;
        }
        *latency = 1e5 / (double)v[2] * (1.0 + 4096.0 / (double)v[0]) * (48 % v[2] ? 1.25 : 1.0) +
                   3.0 * (double)v[1];
        return true;
}

/* Runs an episode of budget evaluations; returns the best latency. */
static double run(uint64_t seed, bool random_only, int budget, int64_t *trace, size_t trace_len)
{
        struct search_options options = { .seed = seed, .random_only = random_only };
        struct search *s = NULL;
        int64_t v[3], base[3] = { 2048, 3, 8 };
        double latency = 0, best = 0;
        const char *kind = NULL;

        assert_int_equal(search_new(genes, 3, &options, &s), 0);
        assert_true(evaluate(base, &latency, &kind));
        search_record(s, base, TECHNIQUE_COUNT, true, latency, NULL);
        for (int i = 0; i < budget; i++) {
                enum search_technique t;
                bool ok;
                if (search_propose(s, v, &t) < 0)
                        break;
                if (trace && (size_t)i * 3 + 2 < trace_len)
                        memcpy(trace + 3 * i, v, sizeof(v));
                ok = evaluate(v, &latency, &kind);
                search_record(s, v, t, ok, latency, kind);
        }
        assert_non_null(search_best(s, &best));
        search_free(s);
        return best;
}

static void test_same_seed_same_trajectory(void **state)
{
        int64_t a[120] = { 0 }, b[120] = { 0 }, c[120] = { 0 };

        run(7, false, 40, a, 120);
        run(7, false, 40, b, 120);
        run(8, false, 40, c, 120);
        assert_memory_equal(a, b, sizeof(a));
        assert_memory_not_equal(a, c, sizeof(a));
}

static void test_no_repeats_and_failures_avoided(void **state)
{
        struct search_options options = { .seed = 3 };
        struct search *s = NULL;
        int64_t proposals[60][3], fail[3] = { 16384, 6, 8 }, base[3] = { 2048, 3, 8 };
        enum search_technique t;

        assert_int_equal(search_new(genes, 3, &options, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 1000, NULL);
        search_record(s, fail, TECHNIQUE_MUTATE_SCALE, false, 0, "ub_overflow");
        for (int i = 0; i < 60; i++) {
                assert_int_equal(search_propose(s, proposals[i], &t), 0);
                assert_true(t < TECHNIQUE_COUNT);
                /* nothing beyond the overflowing genome, seen from the baseline:
                 * tile and parts at least as large, the core count unchanged */
                assert_false(proposals[i][0] >= 16384 && proposals[i][1] >= 6 &&
                             proposals[i][2] == 8);
                for (int g = 0; g < 3; g++) {
                        assert_true(proposals[i][g] >= genes[g].lo);
                        assert_true(proposals[i][g] <= genes[g].hi);
                }
                for (int j = 0; j < i; j++)
                        assert_memory_not_equal(proposals[i], proposals[j], sizeof(proposals[i]));
                search_record(s, proposals[i], t, true, 2000 + i, NULL);
        }
        search_free(s);
}

static void test_evolution_beats_random_on_the_same_budget(void **state)
{
        double evolved = 0, random = 0;

        for (uint64_t seed = 1; seed <= 5; seed++) {
                evolved += log(run(seed, false, 40, NULL, 0));
                random += log(run(seed, true, 40, NULL, 0));
        }
        /* geometric means over five seeds */
        assert_true(exp(evolved / 5) < exp(random / 5));
}

/*
 * A sweep moves one gene of the best genome to its nearest untried value:
 * every value of a gene with at most 16 (tileLength's powers of two,
 * ubPartNum's counts), else the best value times or divided by powers of
 * two (blockDim).  Every proposal here is worse, so the best stays the
 * baseline, and each gene's first swept value is the one nearest to it
 * unless another technique proposed that genome first.
 */
static void test_sweep_moves_one_gene_nearest_first(void **state)
{
        struct search_options options = { .seed = 5 };
        struct search *s = NULL;
        int64_t v[3], base[3] = { 2048, 3, 8 }, first[3] = { 0 };
        const int64_t nearest[3] = { 1024, 4, 16 };
        bool nearest_seen[3] = { false };
        enum search_technique t;
        int sweeps = 0;

        assert_int_equal(search_new(genes, 3, &options, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 1000, NULL);
        for (int i = 0; i < 200 && search_propose(s, v, &t) == 0; i++) {
                if (t == TECHNIQUE_SWEEP) {
                        int changed = 0, n_changed = 0; /* n_changed must come out 1 */
                        for (int g = 0; g < 3; g++)
                                if (v[g] != base[g]) {
                                        changed = g;
                                        n_changed++;
                                }
                        assert_int_equal(n_changed, 1);
                        if (!first[changed]) {
                                first[changed] = v[changed];
                                if (v[changed] != nearest[changed])
                                        assert_true(nearest_seen[changed]);
                        }
                        sweeps++;
                }
                for (int g = 0; g < 3; g++) {
                        int64_t w[3] = { base[0], base[1], base[2] };
                        w[g] = nearest[g];
                        nearest_seen[g] |= memcmp(v, w, sizeof(w)) == 0;
                }
                search_record(s, v, t, true, 2000 + i, NULL);
        }
        assert_true(sweeps >= 3);
        for (int g = 0; g < 3; g++)
                assert_true(first[g] != 0);
        search_free(s);
}

static void test_resume_continues_exactly(void **state)
{
        struct search_options options = { .seed = 11 };
        struct search *a = NULL, *b = NULL;
        int64_t v[3], w[3], base[3] = { 2048, 3, 8 };
        enum search_technique ta, tb;
        double latency;
        const char *kind;
        json_t *saved;

        assert_int_equal(search_new(genes, 3, &options, &a), 0);
        search_record(a, base, TECHNIQUE_COUNT, true, 5000, NULL);
        for (int i = 0; i < 12; i++) {
                bool ok;
                assert_int_equal(search_propose(a, v, &ta), 0);
                ok = evaluate(v, &latency, &kind);
                search_record(a, v, ta, ok, latency, kind);
        }
        saved = search_to_json(a);
        options.seed = 999; /* the saved RNG state wins over the seed */
        assert_int_equal(search_new(genes, 3, &options, &b), 0);
        assert_int_equal(search_from_json(b, saved), 0);
        for (int i = 0; i < 10; i++) {
                bool ok;
                assert_int_equal(search_propose(a, v, &ta), 0);
                assert_int_equal(search_propose(b, w, &tb), 0);
                assert_memory_equal(v, w, sizeof(v));
                assert_int_equal(ta, tb);
                ok = evaluate(v, &latency, &kind);
                search_record(a, v, ta, ok, latency, kind);
                search_record(b, w, tb, ok, latency, kind);
        }
        json_decref(saved);
        search_free(a);
        search_free(b);
}

/* A tile derived by dividing the UB overflows when the divisor shrinks. */
static void test_failures_downwards_are_avoided_too(void **state)
{
        static const struct gene divisor[1] = {
                { .name = "BUFFER_NUM", .value = 4, .lo = 1, .hi = 32, .scale = GENE_POW2 },
        };
        struct search_options options = { .seed = 5 };
        struct search *s = NULL;
        int64_t base[1] = { 4 }, fail[1] = { 2 }, v[1];
        enum search_technique t;
        int proposed = 0;

        assert_int_equal(search_new(divisor, 1, &options, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 100, NULL);
        search_record(s, fail, TECHNIQUE_MUTATE_SCALE, false, 0, "ub_overflow");
        while (search_propose(s, v, &t) == 0) {
                assert_true(v[0] > 2);
                search_record(s, v, t, true, 100 + proposed++, NULL);
        }
        /* 8, 16 and 32 remain; 1 lies beyond the failure */
        assert_int_equal(proposed, 3);
        search_free(s);
}

/*
 * Coupled knobs: the tile is a core's share cut into TILE_NUM pieces, so
 * fewer tiles overflow, and so do fewer cores.  One overflow came with more
 * cores and one with fewer, so the cores say nothing about which way is
 * safe: 32 cores with 64 tiles (half of 16 cores' tile) must still be
 * tried, while fewer tiles at 16 or at 4 cores must not.
 */
static void test_coupled_failures_rule_out_only_their_own_side(void **state)
{
        static const struct gene coupled[2] = {
                { .name = "BLOCK_DIM", .value = 8, .lo = 4, .hi = 32, .scale = GENE_POW2 },
                { .name = "TILE_NUM", .value = 256, .lo = 16, .hi = 256, .scale = GENE_POW2 },
        };
        struct search_options options = { .seed = 3 };
        struct search *s = NULL;
        int64_t v[2];
        enum search_technique t;
        bool tried_32_64 = false;
        int proposed = 0;

        assert_int_equal(search_new(coupled, 2, &options, &s), 0);
        search_record(s, (int64_t[2]){ 8, 256 }, TECHNIQUE_COUNT, true, 100, NULL);
        search_record(s, (int64_t[2]){ 16, 64 }, TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        search_record(s, (int64_t[2]){ 4, 128 }, TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        while (search_propose(s, v, &t) == 0) {
                /* beyond (16, 64) and (4, 128) on the tiles, with the same cores */
                assert_false(v[0] == 16 && v[1] < 64);
                assert_false(v[0] == 4 && v[1] < 128);
                tried_32_64 |= v[0] == 32 && v[1] == 64;
                search_record(s, v, t, true, 100 + proposed++, NULL);
        }
        assert_true(tried_32_64);
        /* 20 genomes less the baseline, the 2 failures and the 3 + 2 beyond them */
        assert_int_equal(proposed, 12);
        search_free(s);
}

/*
 * Stage II's overflow repair asks which way each gene overflows: the tile
 * grew in every overflow, the UB parts shrank in most, the cores went
 * either way and so say nothing; no overflow seen yet, nothing at all.
 */
static void test_overflow_direction_is_learnt_per_gene(void **state)
{
        struct search_options options = { .seed = 3 };
        struct search *s = NULL;
        int64_t base[3] = { 2048, 3, 8 };
        int64_t overflows[4][3] = {
                { 16384, 3, 16 }, { 32768, 2, 4 }, { 8192, 1, 16 }, { 16384, 4, 4 }
        };

        (void)state;
        assert_int_equal(search_new(genes, 3, &options, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 100, NULL);
        assert_int_equal(search_overflow_direction(s, 0), 0);
        for (int i = 0; i < 4; i++)
                search_record(s, overflows[i], TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        assert_int_equal(search_overflow_direction(s, 0), 1);
        assert_int_equal(search_overflow_direction(s, 2), 0);
        /* parts: 0 -1 -1 +1 is -1 of 4 failures, not a majority: no say */
        assert_int_equal(search_overflow_direction(s, 1), 0);
        search_record(s, (int64_t[3]){ 4096, 1, 8 }, TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        search_record(s, (int64_t[3]){ 2048, 2, 8 }, TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        search_record(s, (int64_t[3]){ 1024, 1, 8 }, TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        /* parts now -4 of 7 failures: fewer parts overflow; the tile still +4 of 7 */
        assert_int_equal(search_overflow_direction(s, 1), -1);
        /* other failures are not overflows */
        search_record(s, (int64_t[3]){ 128, 3, 8 }, TECHNIQUE_RANDOM, false, 0, "wrong_answer");
        assert_int_equal(search_overflow_direction(s, 0), 1);
        assert_int_equal(search_overflow_direction(s, 7), 0);
        search_free(s);
}

/* The noise policy: a close "improvement" counts with its slower measurement. */
static void test_noise_policy(void **state)
{
        (void)state;
        /* 10% better: a clear win counts as measured */
        assert_true(episode_noise_latency(90, 99, 100, 2) == 90);
        /* 1% better on the first run, 1% worse on the re-measurement: no improvement */
        assert_true(episode_noise_latency(99, 101, 100, 2) == 101);
        assert_false(episode_noise_latency(99, 101, 100, 2) < 100);
        /* close, and confirmed by the re-measurement: the slower of the two still wins */
        assert_true(episode_noise_latency(99, 99.5, 100, 2) == 99.5);
        /* a wider margin re-measures more */
        assert_true(episode_noise_latency(95, 101, 100, 10) == 101);
        /* nothing to compare with: as measured */
        assert_true(episode_noise_latency(99, 0, 100, 2) == 99);
}

/*
 * A structural move is proposed only when the episode says one applies,
 * never by Best-of-N's search, and with the best genome; a frozen gene
 * keeps the best's value in every proposal.
 */
/*
 * Random genomes over a wide range are spread log-uniformly: a tile length
 * from 128 to 32768 lands below 2048 (the geometric middle) about as often
 * as above it, instead of mostly in the top half where the UB overflows.
 */
static void test_wide_ranges_are_drawn_log_uniformly(void **state)
{
        const struct gene wide = {
                .name = "tileLength", .value = 2048, .lo = 128, .hi = 32768, .scale = GENE_ALIGN32
        };
        struct search_options options = { .seed = 3, .random_only = true };
        struct search *s = NULL;
        int below = 0, draws = 0;
        int64_t base = 2048, v;

        assert_int_equal(search_new(&wide, 1, &options, &s), 0);
        search_record(s, &base, TECHNIQUE_COUNT, true, 100.0, NULL);
        /* few enough draws that repeats, which are drawn again, are rare */
        for (int i = 0; i < 60; i++) {
                enum search_technique t;
                if (search_propose(s, &v, &t) < 0)
                        break;
                assert_int_equal(v % 32, 0);
                assert_in_range(v, 128, 32768);
                below += v < 2048;
                draws++;
                search_record(s, &v, t, true, 100.0 + (double)i, NULL);
        }
        search_free(s);
        assert_int_equal(draws, 60);
        assert_in_range(below, 18, 42);
}

static void test_frozen_genes_keep_the_best(void **state)
{
        struct search_options options = { .seed = 3 };
        struct search *s = NULL;
        int64_t v[3], base[3] = { 2048, 3, 8 }, best[3];
        bool frozen[3] = { false, true, false };
        double latency = 0;
        const char *kind = NULL;

        assert_int_equal(search_new(genes, 3, &options, &s), 0);
        assert_true(evaluate(base, &latency, &kind));
        search_record(s, base, TECHNIQUE_COUNT, true, latency, NULL);
        for (int i = 0; i < 12; i++) {
                enum search_technique t;
                assert_int_equal(search_propose(s, v, &t), 0);
                search_record(s, v, t, evaluate(v, &latency, &kind), latency, kind);
        }
        memcpy(best, search_best(s, NULL), sizeof(best));
        search_set_frozen(s, frozen);
        for (int i = 0; i < 24; i++) {
                enum search_technique t;
                if (search_propose(s, v, &t) < 0)
                        break;
                assert_int_equal(v[1], best[1]);
                search_record(s, v, t, evaluate(v, &latency, &kind), latency, kind);
                memcpy(best, search_best(s, NULL), sizeof(best));
        }
        search_free(s);

        /* Best-of-N's search only draws whole random genomes */
        options.random_only = true;
        assert_int_equal(search_new(genes, 3, &options, &s), 0);
        for (int i = 0; i < 16; i++) {
                enum search_technique t;
                assert_int_equal(search_propose(s, v, &t), 0);
                assert_int_equal(t, TECHNIQUE_RANDOM);
                search_record(s, v, t, evaluate(v, &latency, &kind), latency, kind);
        }
        search_free(s);

        /* no genes: nothing to propose */
        options.random_only = false;
        assert_int_equal(search_new(genes, 0, &options, &s), 0);
        {
                enum search_technique t;
                assert_int_equal(search_propose(s, v, &t), -ENOSPC);
        }
        search_free(s);
}

/*
 * A choice (a structural move's site, 0 for none) has no order: halving,
 * doubling and aligning leave it alone while a numeric gene is there, any
 * other mutation picks a different value, and an overflow with one choice
 * says nothing of the others.  Every proposal here fails, so each mutation's
 * parent is the baseline.
 */
static void test_choices_are_unordered(void **state)
{
        static const struct gene mixed[2] = {
                { .name = "tileLength", .value = 2048, .lo = 128, .hi = 32768, .scale = GENE_POW2 },
                { .name = "move:tile_from_ub", .value = 0, .lo = 0, .hi = 3, .scale = GENE_CHOICE },
        };
        struct search_options options = { .seed = 9 };
        struct search *s = NULL;
        int64_t v[2], base[2] = { 2048, 0 }, overflow[2] = { 4096, 2 };
        bool seen_choice[4] = { false };
        int numeric_only = 0;
        enum search_technique t;

        assert_int_equal(search_new(mixed, 2, &options, &s), 0);
        search_record(s, base, TECHNIQUE_COUNT, true, 1000, NULL);
        search_record(s, overflow, TECHNIQUE_RANDOM, false, 0, "ub_overflow");
        for (int i = 0; i < 40 && search_propose(s, v, &t) == 0; i++) {
                assert_true(v[1] >= 0 && v[1] <= 3);
                seen_choice[v[1]] = true;
                /* beyond the overflow only with the same choice (3 is not "more" than 2) */
                assert_false(v[1] == 2 && v[0] >= 4096);
                if (t == TECHNIQUE_MUTATE_SCALE || t == TECHNIQUE_MUTATE_ALIGN) {
                        assert_int_equal(v[1], 0);
                        numeric_only++;
                }
                search_record(s, v, t, false, 0, "wrong_answer");
        }
        assert_true(numeric_only > 0);
        assert_true(seen_choice[1] && seen_choice[2] && seen_choice[3]);
        search_free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_frozen_genes_keep_the_best),
                cmocka_unit_test(test_choices_are_unordered),
                cmocka_unit_test(test_same_seed_same_trajectory),
                cmocka_unit_test(test_no_repeats_and_failures_avoided),
                cmocka_unit_test(test_failures_downwards_are_avoided_too),
                cmocka_unit_test(test_coupled_failures_rule_out_only_their_own_side),
                cmocka_unit_test(test_overflow_direction_is_learnt_per_gene),
                cmocka_unit_test(test_evolution_beats_random_on_the_same_budget),
                cmocka_unit_test(test_sweep_moves_one_gene_nearest_first),
                cmocka_unit_test(test_resume_continues_exactly),
                cmocka_unit_test(test_noise_policy),
                cmocka_unit_test(test_wide_ranges_are_drawn_log_uniformly),
        };
        return cmocka_run_group_tests_name("optimizer_search", tests, NULL, NULL);
}
