/* SPDX-License-Identifier: MIT */
/*
 * A small pool of worker threads for the work that would block the event
 * loop (git object reads and writes, tree diffs, report rendering).  Jobs
 * wait in a bounded FIFO; a worker runs a job's work function and hands
 * the job back, and the loop runs its done function, woken through an
 * eventfd.  Idle workers sleep on a condition variable: no polling.
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>

struct worker_job {
        worker_work_fn work;
        worker_done_fn done;
        void *data;
        struct worker_job *next;
};

struct worker_pool {
        struct event_base *base;
        pthread_t threads[WORKER_POOL_MAX_THREADS];
        size_t n_threads;
        size_t max_jobs;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        bool stopping;
        /* under lock: jobs waiting for a worker, and jobs done waiting for the loop */
        struct worker_job *todo_head, *todo_tail;
        struct worker_job *done_head, *done_tail;
        size_t in_pool; /* submitted and not yet handed back to the loop */
        int eventfd;
        struct event *done_event;
};

static void append(struct worker_job **head, struct worker_job **tail, struct worker_job *job)
{
        job->next = NULL;
        if (*tail)
                (*tail)->next = job;
        else
                *head = job;
        *tail = job;
}

static struct worker_job *take(struct worker_job **head, struct worker_job **tail)
{
        struct worker_job *job = *head;

        if (job) {
                *head = job->next;
                if (!*head)
                        *tail = NULL;
                job->next = NULL;
        }
        return job;
}

static void *worker_main(void *arg)
{
        struct worker_pool *pool = arg;

        pthread_mutex_lock(&pool->lock);
        for (;;) {
                struct worker_job *job;
                uint64_t one = 1;

                while (!pool->stopping && !pool->todo_head)
                        pthread_cond_wait(&pool->wake, &pool->lock);
                if (pool->stopping)
                        break;
                job = take(&pool->todo_head, &pool->todo_tail);
                pthread_mutex_unlock(&pool->lock);
                job->work(job->data);
                pthread_mutex_lock(&pool->lock);
                append(&pool->done_head, &pool->done_tail, job);
                /* the eventfd counter cannot overflow with at most max_jobs writes pending */
                if (write(pool->eventfd, &one, sizeof(one)) < 0) {
                        /* nothing to do: the loop still drains every finished job on its next wake */
                }
        }
        pthread_mutex_unlock(&pool->lock);
        return NULL;
}

/* On the loop: hands every finished job back, in the order they finished. */
static void on_jobs_done(evutil_socket_t fd, short what, void *arg)
{
        struct worker_pool *pool = arg;
        struct worker_job *jobs;
        uint64_t count;

        (void)what;
        if (read(fd, &count, sizeof(count)) < 0) {
                /* EAGAIN: another wake already drained it */
        }
        pthread_mutex_lock(&pool->lock);
        jobs = pool->done_head;
        pool->done_head = pool->done_tail = NULL;
        pthread_mutex_unlock(&pool->lock);
        while (jobs) {
                struct worker_job *job = jobs;
                jobs = job->next;
                pool->in_pool--;
                job->done(job->data, 0);
                free(job);
        }
}

int worker_pool_new(struct event_base *base, size_t threads, size_t max_jobs,
                    struct worker_pool **ret_pool)
{
        struct worker_pool *pool;
        int r = 0;

        if (!base || threads == 0 || threads > WORKER_POOL_MAX_THREADS || max_jobs == 0)
                return -EINVAL;
        pool = calloc(1, sizeof(*pool));
        if (!pool)
                return -ENOMEM;
        pool->base = base;
        pool->max_jobs = max_jobs;
        pthread_mutex_init(&pool->lock, NULL);
        pthread_cond_init(&pool->wake, NULL);
        pool->eventfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (pool->eventfd < 0) {
                r = -errno;
                goto fail;
        }
        pool->done_event = event_new(base, pool->eventfd, EV_READ | EV_PERSIST, on_jobs_done, pool);
        if (!pool->done_event || event_add(pool->done_event, NULL) < 0) {
                r = -ENOMEM;
                goto fail;
        }
        for (; pool->n_threads < threads; pool->n_threads++) {
                pthread_attr_t attr;
                pthread_attr_init(&attr);
                /* git and rendering need little stack; keep the idle footprint small */
                pthread_attr_setstacksize(&attr, 1u << 20);
                r = -pthread_create(&pool->threads[pool->n_threads], &attr, worker_main, pool);
                pthread_attr_destroy(&attr);
                if (r < 0)
                        goto fail;
        }
        *ret_pool = pool;
        return 0;
fail:
        worker_pool_free(pool);
        return r;
}

int worker_pool_submit(struct worker_pool *pool, worker_work_fn work, worker_done_fn done,
                       void *data)
{
        struct worker_job *job;

        if (!pool || !work || !done)
                return -EINVAL;
        if (pool->in_pool >= pool->max_jobs)
                return -EAGAIN;
        job = calloc(1, sizeof(*job));
        if (!job)
                return -ENOMEM;
        job->work = work;
        job->done = done;
        job->data = data;
        pool->in_pool++;
        pthread_mutex_lock(&pool->lock);
        append(&pool->todo_head, &pool->todo_tail, job);
        pthread_cond_signal(&pool->wake);
        pthread_mutex_unlock(&pool->lock);
        return 0;
}

size_t worker_pool_pending(const struct worker_pool *pool)
{
        return pool ? pool->in_pool : 0;
}

struct worker_pool *worker_pool_free(struct worker_pool *pool)
{
        struct worker_job *job;

        if (!pool)
                return NULL;
        pthread_mutex_lock(&pool->lock);
        pool->stopping = true;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->lock);
        /* a worker finishes the job it is on; the queued ones never run */
        for (size_t i = 0; i < pool->n_threads; i++)
                pthread_join(pool->threads[i], NULL);
        while ((job = take(&pool->done_head, &pool->done_tail))) {
                job->done(job->data, -ECANCELED);
                free(job);
        }
        while ((job = take(&pool->todo_head, &pool->todo_tail))) {
                job->done(job->data, -ECANCELED);
                free(job);
        }
        if (pool->done_event)
                event_free(pool->done_event);
        if (pool->eventfd >= 0)
                close(pool->eventfd);
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->lock);
        free(pool);
        return NULL;
}
