/* SPDX-License-Identifier: MIT */
/*
 * Tests of the worker pool: work runs off the loop thread, done runs on it,
 * the queue is bounded, and freeing the pool hands back unrun jobs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

struct job {
        pthread_t worked_on;
        pthread_t done_on;
        int status;
        bool ran, done;
        int *finished;
        struct event_base *base;
        int stop_at;
};

static void work(void *data)
{
        struct job *job = data;

        job->worked_on = pthread_self();
        job->ran = true;
        usleep(20000);
}

static void done(void *data, int status)
{
        struct job *job = data;

        job->done_on = pthread_self();
        job->status = status;
        job->done = true;
        if (job->finished && ++*job->finished == job->stop_at)
                event_base_loopbreak(job->base);
}

static void test_work_runs_off_the_loop_and_done_on_it(void **state)
{
        struct event_base *base = event_base_new();
        struct worker_pool *pool = NULL;
        struct job jobs[8] = { { 0 } };
        int finished = 0;

        (void)state;
        assert_int_equal(worker_pool_new(base, 2, 8, &pool), 0);
        for (int i = 0; i < 8; i++) {
                jobs[i] = (struct job){ .finished = &finished, .base = base, .stop_at = 8 };
                assert_int_equal(worker_pool_submit(pool, work, done, &jobs[i]), 0);
        }
        /* bounded: a ninth is refused while eight are in the pool */
        assert_int_equal(worker_pool_submit(pool, work, done, &jobs[0]), -EAGAIN);
        assert_int_equal(worker_pool_pending(pool), 8);
        event_base_dispatch(base);
        assert_int_equal(finished, 8);
        for (int i = 0; i < 8; i++) {
                assert_true(jobs[i].ran);
                assert_false(pthread_equal(jobs[i].worked_on, pthread_self()));
                assert_true(pthread_equal(jobs[i].done_on, pthread_self()));
                assert_int_equal(jobs[i].status, 0);
        }
        assert_int_equal(worker_pool_pending(pool), 0);
        worker_pool_free(pool);
        event_base_free(base);
}

static void test_free_hands_back_unrun_jobs(void **state)
{
        struct event_base *base = event_base_new();
        struct worker_pool *pool = NULL;
        struct job jobs[6] = { { 0 } };

        (void)state;
        assert_int_equal(worker_pool_new(base, 1, 16, &pool), 0);
        for (int i = 0; i < 6; i++)
                assert_int_equal(worker_pool_submit(pool, work, done, &jobs[i]), 0);
        worker_pool_free(pool); /* never dispatched: every done comes from free */
        for (int i = 0; i < 6; i++) {
                assert_true(jobs[i].done);
                assert_int_equal(jobs[i].status, -ECANCELED);
        }
        assert_false(jobs[5].ran);
        event_base_free(base);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_work_runs_off_the_loop_and_done_on_it),
                cmocka_unit_test(test_free_hands_back_unrun_jobs),
        };

        return cmocka_run_group_tests_name("workers", tests, NULL, NULL);
}
