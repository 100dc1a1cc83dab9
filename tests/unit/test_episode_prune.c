/* SPDX-License-Identifier: MIT */
/*
 * Tests of episode_prune_store on a real RocksDB: a store over its limit
 * loses the trajectories of its oldest finished episodes first, only as
 * many as it must, and never a memoized result or a failed episode's
 * record (a retry writes that one again).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "optimizer/optimizer.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];
static struct store *store;

static int setup(void **state)
{
        char err[256];

        snprintf(dir, sizeof(dir), "/tmp/ascendopt-prune-XXXXXX");
        assert_non_null(mkdtemp(dir));
        assert_int_equal(store_open(dir, &store, err, sizeof(err)), 0);
        return 0;
}

static int teardown(void **state)
{
        store = store_close(store);
        return rm_rf(dir);
}

/* A record of rows trajectory rows of 1 KB of incompressible text each. */
static void put_episode(const char *id, const char *state, json_int_t finished, size_t rows)
{
        struct store_batch *b = store_batch_new(store);
        json_t *trajectory = json_array(), *record;
        char key[64], text[1025];

        for (size_t i = 0; i < rows; i++) {
                for (size_t j = 0; j < sizeof(text) - 1; j++)
                        text[j] = "0123456789abcdef"[rand() % 16];
                text[sizeof(text) - 1] = '\0';
                assert_int_equal(
                    json_array_append_new(trajectory, json_pack("{s:s}", "source", text)), 0);
        }
        snprintf(key, sizeof(key), "episode/%s", id);
        record = json_pack("{s:s, s:I, s:o, s:{s:f}}", "state", state, "finished", finished,
                           "trajectory", trajectory, "best", "latency_us", 12.5);
        assert_non_null(record);
        assert_int_equal(store_batch_put_json(b, STORE_EPISODES, key, record), 0);
        assert_int_equal(store_batch_commit(b), 0);
        json_decref(record);
        store_batch_free(b);
}

/* Rows left in an episode's trajectory, or -1 when it was dropped (then "dropped" says how many). */
static int rows_of(const char *id, int *dropped)
{
        json_t *record = NULL;
        int rows;

        assert_int_equal(episode_load(store, id, &record), 0);
        rows = json_object_get(record, "trajectory")
                   ? (int)json_array_size(json_object_get(record, "trajectory"))
                   : -1;
        *dropped = (int)json_integer_value(json_object_get(record, "trajectory_dropped"));
        assert_true(json_real_value(
                        json_object_get(json_object_get(record, "best"), "latency_us")) == 12.5);
        json_decref(record);
        return rows;
}

static void test_oldest_trajectories_go_first_and_memoized_results_stay(void **state)
{
        struct store_batch *b = store_batch_new(store);
        struct episode_prune prune;
        json_t *memo = json_pack("{s:s}", "status", "ok"), *got = NULL;
        uint64_t size = 0;
        int dropped;

        assert_non_null(memo);
        assert_int_equal(store_candidate_put(b, "some-candidate", memo), 0);
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        json_decref(memo);
        put_episode("q3", "done", 300, 200);
        put_episode("q1", "done", 100, 200);
        put_episode("q2", "cancelled", 200, 200);
        put_episode("q0", "failed", 50, 200);
        assert_int_equal(store_compact(store), 0);
        assert_int_equal(store_size_bytes(store, &size), 0);

        /* under the limit: nothing happens */
        assert_int_equal(episode_prune_store(store, size + 1, &prune), 0);
        assert_false(prune.compacted);
        assert_int_equal(prune.dropped, 0);

        /* 100 KB over: the oldest finished one goes, the others stay */
        assert_int_equal(episode_prune_store(store, size - 100000, &prune), 0);
        assert_true(prune.compacted);
        assert_int_equal(prune.dropped, 1);
        assert_int_equal(rows_of("q1", &dropped), -1);
        assert_int_equal(dropped, 200);
        assert_int_equal(rows_of("q2", &dropped), 200);
        assert_int_equal(rows_of("q3", &dropped), 200);
        assert_true(prune.size_after < size);

        /* far over: every finished one goes, the failed one stays, and so does the memo */
        assert_int_equal(episode_prune_store(store, 1, &prune), 0);
        assert_int_equal(prune.dropped, 2);
        assert_int_equal(rows_of("q2", &dropped), -1);
        assert_int_equal(rows_of("q3", &dropped), -1);
        assert_int_equal(rows_of("q0", &dropped), 200);
        assert_int_equal(store_candidate_get(store, "some-candidate", &got), 0);
        json_decref(got);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(
                    test_oldest_trajectories_go_first_and_memoized_results_stay, setup, teardown),
        };

        return cmocka_run_group_tests_name("episode_prune", tests, NULL, NULL);
}
