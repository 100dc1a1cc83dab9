/* SPDX-License-Identifier: MIT */
/*
 * Tests of the persistent queue on a real store: priority order,
 * supersession by newer commits, retries with reasons, recovery of items a
 * dead process left running, limits, cancellation and persistence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "queue/queue.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];
static struct store *store;
static struct queue *queue;

static void open_all(uint64_t max_items, unsigned *recovered)
{
        struct queue_options options = { .max_items = max_items };
        char err[256];

        assert_int_equal(store_open(dir, &store, err, sizeof(err)), 0);
        assert_int_equal(queue_open(store, &options, &queue, recovered), 0);
}

static void close_all(void)
{
        queue = queue_close(queue);
        store = store_close(store);
}

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/ascendopt-queue-XXXXXX");
        assert_non_null(mkdtemp(dir));
        open_all(0, NULL);
        return 0;
}

static int teardown(void **state)
{
        close_all();
        return rm_rf(dir);
}

static uint64_t enqueue(const char *op, const char *commit, enum queue_priority priority,
                        uint64_t *running_older)
{
        struct queue_request req = { .repo = "/srv/ops",
                                     .branch = "main",
                                     .op_dir = op,
                                     .commit = commit,
                                     .priority = priority };
        uint64_t id = 0;

        assert_int_equal(queue_enqueue_now(queue, &req, &id, running_older), 0);
        return id;
}

static uint64_t claim(int device)
{
        json_t *item = NULL;
        uint64_t id;

        assert_int_equal(queue_claim_next(queue, device, &item), 0);
        assert_string_equal(json_string_value(json_object_get(item, "state")), "running");
        id = (uint64_t)json_integer_value(json_object_get(item, "id"));
        json_decref(item);
        return id;
}

static const char *state_of(uint64_t id, char *buf, size_t size)
{
        json_t *item = NULL;

        assert_int_equal(queue_get(queue, id, &item), 0);
        snprintf(buf, size, "%s", json_string_value(json_object_get(item, "state")));
        json_decref(item);
        return buf;
}

static void test_manual_work_outranks_commits(void **state)
{
        uint64_t a = enqueue("ops/a", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        uint64_t b = enqueue("ops/b", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        uint64_t c = enqueue("ops/c", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        json_t *item = NULL;

        assert_int_equal(queue_depth(queue), 3);
        assert_int_equal(claim(0), c);
        assert_int_equal(claim(1), a);
        assert_int_equal(claim(0), b);
        assert_int_equal(queue_claim_next(queue, 0, &item), -ENOENT);
        assert_int_equal(queue_depth(queue), 0);
}

static void test_newer_commit_supersedes_queued_older(void **state)
{
        char buf[32];
        uint64_t old = enqueue("ops/add", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        uint64_t again = enqueue("ops/add", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        uint64_t newer = enqueue("ops/add", "c2", QUEUE_PRIORITY_COMMIT, NULL);
        json_t *item = NULL;

        /* the same commit twice is one item */
        assert_int_equal(again, old);
        assert_string_equal(state_of(old, buf, sizeof(buf)), "superseded");
        assert_int_equal(queue_depth(queue), 1);
        assert_int_equal(claim(0), newer);
        assert_int_equal(queue_get(queue, old, &item), 0);
        assert_int_equal(json_integer_value(json_object_get(item, "superseded_by")), newer);
        json_decref(item);
}

static void test_running_older_is_reported(void **state)
{
        uint64_t running_older = 0;
        uint64_t old = enqueue("ops/add", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        uint64_t newer;

        assert_int_equal(claim(0), old);
        newer = enqueue("ops/add", "c2", QUEUE_PRIORITY_COMMIT, &running_older);
        assert_int_equal(running_older, old);
        assert_int_equal(queue_depth(queue), 1);
        assert_int_equal(claim(0), newer);
}

static void test_retries_are_bounded_and_keep_reasons(void **state)
{
        char buf[32];
        uint64_t id = enqueue("ops/add", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        json_t *item = NULL;

        for (int attempt = 1; attempt <= 3; attempt++) {
                assert_int_equal(claim(0), id);
                assert_int_equal(queue_finish(queue, id, QUEUE_FAILED, "device timed out", true),
                                 0);
        }
        /* three attempts were the limit */
        assert_string_equal(state_of(id, buf, sizeof(buf)), "failed");
        assert_int_equal(queue_depth(queue), 0);
        assert_int_equal(queue_get(queue, id, &item), 0);
        assert_int_equal(json_integer_value(json_object_get(item, "attempts")), 3);
        assert_int_equal(json_array_size(json_object_get(item, "reasons")), 3);
        json_decref(item);
        /* finishing something that is not running is refused */
        assert_int_equal(queue_finish(queue, id, QUEUE_DONE, NULL, false), -EINVAL);
        assert_int_equal(queue_finish(queue, 999, QUEUE_DONE, NULL, false), -ENOENT);
}

static void test_restart_resumes_running_items_first(void **state)
{
        unsigned recovered = 0;
        uint64_t a = enqueue("ops/a", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        uint64_t b = enqueue("ops/b", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        uint64_t c;

        assert_int_equal(claim(0), a);
        close_all(); /* as if the daemon died mid-episode */
        open_all(0, &recovered);
        assert_int_equal(recovered, 1);
        assert_int_equal(queue_depth(queue), 2);
        assert_int_equal(claim(0), a);
        assert_int_equal(claim(1), b);
        /* ids keep growing across restarts */
        c = enqueue("ops/c", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        assert_true(c > b);
}

static void test_publishing_intent_survives_a_restart_until_the_item_ends(void **state)
{
        uint64_t a = enqueue("ops/a", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        uint64_t b = enqueue("ops/b", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        json_t *intent =
            json_pack("{s:s, s:s, s:s}", "ref", "refs/heads/ascendopt/main/ops+a", "previous", "",
                      "commit", "1111111111111111111111111111111111111111");
        json_t *got = NULL;

        assert_non_null(intent);
        assert_int_equal(queue_get_intent(queue, a, &got), -ENOENT);
        assert_int_equal(claim(0), a);
        assert_int_equal(queue_put_intent(queue, a, intent), 0);
        close_all(); /* died between recording the intent and the end of the item */
        open_all(0, NULL);
        assert_int_equal(queue_get_intent(queue, a, &got), 0);
        assert_true(json_equal(got, intent));
        json_decref(got);
        got = NULL;
        assert_int_equal(queue_get_intent(queue, b, &got), -ENOENT);
        /* it goes when the item ends, in the same batch */
        assert_int_equal(claim(0), a);
        assert_int_equal(queue_finish(queue, a, QUEUE_DONE, "published", false), 0);
        assert_int_equal(queue_get_intent(queue, a, &got), -ENOENT);
        json_decref(intent);
}

/* A fleet item's job may outlive the head: it stays running, and its cancels are counted. */
static void test_fleet_jobs_stay_running_across_a_restart(void **state)
{
        unsigned recovered = 9;
        uint64_t a = enqueue("ops/a", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        json_t *job = json_pack("{s:s, s:i}", "name", "ascendopt-1-1", "attempt", 1);
        json_t *item = NULL;
        char buf[32];

        assert_non_null(job);
        /* only a running item becomes a job */
        assert_int_equal(queue_set_fleet_job(queue, a, job), -EINVAL);
        assert_int_equal(claim(-1), a);
        assert_int_equal(queue_set_fleet_job(queue, a, job), 0);
        close_all(); /* the head was killed while the job ran */
        open_all(0, &recovered);
        assert_int_equal(recovered, 0);
        assert_int_equal(queue_depth(queue), 0);
        assert_string_equal(state_of(a, buf, sizeof(buf)), "running");
        assert_int_equal(queue_get(queue, a, &item), 0);
        assert_true(json_equal(json_object_get(item, "fleet_job"), job));
        json_decref(item);

        /* cancelled from outside: queued again, the job forgotten, the cancel counted */
        assert_int_equal(queue_retry_fleet_job(queue, a, "job cancelled", true), 0);
        assert_string_equal(state_of(a, buf, sizeof(buf)), "queued");
        assert_int_equal(queue_get(queue, a, &item), 0);
        assert_null(json_object_get(item, "fleet_job"));
        assert_int_equal(json_integer_value(json_object_get(item, "fleet_cancels")), 1);
        json_decref(item);
        /* a second attempt that is not a cancel keeps the count */
        assert_int_equal(claim(-1), a);
        assert_int_equal(queue_set_fleet_job(queue, a, job), 0);
        assert_int_equal(queue_retry_fleet_job(queue, a, "sbatch failed", false), 0);
        assert_int_equal(queue_get(queue, a, &item), 0);
        assert_int_equal(json_integer_value(json_object_get(item, "fleet_cancels")), 1);
        json_decref(item);
        /* attempts still bound it: the third fails for good */
        assert_int_equal(claim(-1), a);
        assert_int_equal(queue_retry_fleet_job(queue, a, "sbatch failed", false), 0);
        assert_string_equal(state_of(a, buf, sizeof(buf)), "failed");
        json_decref(job);
}

static void test_queue_has_a_limit(void **state)
{
        struct queue_request req = {
                .repo = "/r", .branch = "main", .op_dir = "ops/x", .commit = "c1"
        };

        close_all();
        open_all(2, NULL);
        enqueue("ops/a", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        enqueue("ops/b", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        assert_int_equal(queue_enqueue_now(queue, &req, NULL, NULL), -ENOSPC);
        claim(0);
        assert_int_equal(queue_enqueue_now(queue, &req, NULL, NULL), 0);
}

/* A batch that never reached the store (a full disk) queues nothing, and the limit says so. */
static void test_an_uncommitted_enqueue_is_not_counted(void **state)
{
        struct queue_request req = {
                .repo = "/r", .branch = "main", .op_dir = "ops/x", .commit = "c1"
        };
        struct store_batch *b;
        json_t *item = NULL;

        close_all();
        open_all(1, NULL);
        b = store_batch_new(store);
        assert_non_null(b);
        assert_int_equal(queue_enqueue(queue, b, &req, NULL, NULL), 0);
        store_batch_free(b); /* as when its commit fails */
        assert_int_equal(queue_recount(queue), 0);
        assert_int_equal(queue_depth(queue), 0);
        assert_int_equal(queue_claim_next(queue, 0, &item), -ENOENT);
        assert_int_equal(queue_enqueue_now(queue, &req, NULL, NULL), 0);
        assert_int_equal(queue_depth(queue), 1);
}

static void test_cancel(void **state)
{
        char buf[32];
        uint64_t queued = enqueue("ops/a", "c1", QUEUE_PRIORITY_COMMIT, NULL);
        uint64_t running = enqueue("ops/b", "c1", QUEUE_PRIORITY_MANUAL, NULL);
        json_t *items = NULL;

        assert_int_equal(claim(0), running);
        assert_int_equal(queue_cancel(queue, queued, "asked by alice"), 0);
        assert_int_equal(queue_cancel(queue, running, NULL), 0);
        assert_string_equal(state_of(queued, buf, sizeof(buf)), "cancelled");
        assert_string_equal(state_of(running, buf, sizeof(buf)), "cancelled");
        assert_int_equal(queue_cancel(queue, queued, NULL), -EINVAL);
        assert_int_equal(queue_depth(queue), 0);
        assert_int_equal(queue_list(queue, QUEUE_CANCELLED, 0, &items), 0);
        assert_int_equal(json_array_size(items), 2);
        json_decref(items);
        assert_int_equal(queue_list(queue, -1, 1, &items), 0);
        assert_int_equal(json_array_size(items), 1);
        json_decref(items);
}

static void test_devices_are_leased_once_across_processes(void **state)
{
        const int ids[] = { 0, 1 };
        struct device_pool *mine = NULL, *theirs = NULL;
        char locks[96];
        size_t slot, other;
        json_t *status;

        snprintf(locks, sizeof(locks), "%s/locks", dir);
        assert_int_equal(device_pool_new("sim", ids, 2, locks, &mine), 0);
        assert_int_equal(device_pool_acquire(mine, &slot), 0);
        assert_int_equal(device_pool_id(mine, slot), 0);

        /* another process: flock locks are per open file, so a child sees ours */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                size_t got = 99;
                int r = device_pool_new("sim", ids, 2, locks, &theirs);
                if (r == 0)
                        r = device_pool_acquire(theirs, &got);
                /* device 0 is ours, so the child must get device 1, then
                 * nothing, and hear that another process holds device 0 */
                if (r != 0 || device_pool_id(theirs, got) != 1)
                        _exit(1);
                if (device_pool_acquire(theirs, &got) != -EAGAIN)
                        _exit(2);
                _exit(0);
        }
        int status_code = 0;
        waitpid(pid, &status_code, 0);
        assert_true(WIFEXITED(status_code));
        assert_int_equal(WEXITSTATUS(status_code), 0);

        assert_int_equal(device_pool_acquire(mine, &other), 0);
        assert_int_equal(device_pool_id(mine, other), 1);
        assert_int_equal(device_pool_acquire(mine, &other), -EBUSY);
        device_pool_release(mine, slot);
        device_pool_quarantine(mine, slot, "health probe failed");
        assert_int_equal(device_pool_acquire(mine, &other), -EBUSY);
        status = device_pool_status(mine);
        assert_string_equal(json_string_value(json_object_get(json_array_get(status, 0), "state")),
                            "quarantined");
        assert_string_equal(json_string_value(json_object_get(json_array_get(status, 1), "state")),
                            "leased");
        json_decref(status);
        device_pool_reinstate(mine, slot);
        assert_int_equal(device_pool_acquire(mine, &other), 0);
        device_pool_free(mine);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_manual_work_outranks_commits, setup, teardown),
                cmocka_unit_test_setup_teardown(test_newer_commit_supersedes_queued_older, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_running_older_is_reported, setup, teardown),
                cmocka_unit_test_setup_teardown(test_retries_are_bounded_and_keep_reasons, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_restart_resumes_running_items_first, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(
                    test_publishing_intent_survives_a_restart_until_the_item_ends, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fleet_jobs_stay_running_across_a_restart,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_queue_has_a_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_an_uncommitted_enqueue_is_not_counted, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
                cmocka_unit_test_setup_teardown(test_devices_are_leased_once_across_processes,
                                                setup, teardown),
        };
        return cmocka_run_group_tests_name("queue", tests, NULL, NULL);
}
