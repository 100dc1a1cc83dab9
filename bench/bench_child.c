/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the child-process runner: the cost of one short child through
 * the runner (exec helper, pidfd, pipes), with and without the bubblewrap
 * sandbox, against a bare posix_spawn + waitpid measured in the same run.
 * Prints a table and one JSON line; the ratios are what to compare.
 */
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define CHILDREN    200
#define CONCURRENCY 8

extern char **environ;

static double now_s(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double bare_spawn_ms(void)
{
        char *argv[] = { "/bin/true", NULL };
        double start = now_s();

        for (int i = 0; i < CHILDREN; i++) {
                pid_t pid;
                int status;
                if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
                        return -1;
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
        }
        return (now_s() - start) * 1000.0 / CHILDREN;
}

struct batch {
        struct child_runner *runner;
        struct child_spec spec;
        int started, finished, failed;
};

static void on_done(const struct child_result *r, void *userdata);

static void start_next(struct batch *b)
{
        if (b->started >= CHILDREN)
                return;
        if (child_start(b->runner, &b->spec, on_done, b, NULL) < 0)
                b->failed++, b->finished++;
        b->started++;
}

static void on_done(const struct child_result *r, void *userdata)
{
        struct batch *b = userdata;

        b->finished++;
        if (r->exit_code != 0)
                b->failed++;
        start_next(b);
}

/* Runs CHILDREN children, CONCURRENCY at a time; returns wall ms per child. */
static double runner_ms(struct event_base *base, struct child_runner *runner, const char *sandbox,
                        int *ret_failed)
{
        const char *argv[] = { "/bin/true", NULL };
        struct batch b = { .runner = runner, .spec = { .argv = argv, .sandbox_dir = sandbox } };
        double start = now_s();

        for (int i = 0; i < CONCURRENCY; i++)
                start_next(&b);
        while (b.finished < CHILDREN)
                event_base_loop(base, EVLOOP_ONCE);
        *ret_failed = b.failed;
        return (now_s() - start) * 1000.0 / CHILDREN;
}

int main(void)
{
        struct event_base *base = event_base_new();
        struct child_runner *runner = NULL;
        char dir[] = "/tmp/ascendopt-bench-XXXXXX";
        int failed = 0, failed_sandbox = 0;
        double bare, plain, boxed = 0;
        json_t *report;
        char *line;

        if (!base || child_runner_new(base, NULL, &runner) < 0 || !mkdtemp(dir)) {
                fprintf(stderr, "bench_child: cannot set up (is ascendopt-exec built?)\n");
                return 1;
        }
        bare = bare_spawn_ms();
        plain = runner_ms(base, runner, NULL, &failed);
        if (child_runner_has_sandbox(runner))
                boxed = runner_ms(base, runner, dir, &failed_sandbox);

        printf("child runner, %d children of /bin/true (runner: %d at a time)\n", CHILDREN,
               CONCURRENCY);
        printf("  %-28s %8.3f ms/child\n", "bare posix_spawn+waitpid", bare);
        printf("  %-28s %8.3f ms/child  (%.2fx bare)\n", "runner, no sandbox", plain, plain / bare);
        if (boxed > 0)
                printf("  %-28s %8.3f ms/child  (%.2fx bare)\n", "runner, bubblewrap", boxed,
                       boxed / bare);
        else
                printf("  %-28s unavailable\n", "runner, bubblewrap");

        report =
            json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:i}", "bench", "child_runner", "children",
                      CHILDREN, "bare_ms", bare, "runner_ms", plain, "sandbox_ms", boxed,
                      "runner_over_bare", plain / bare, "failures", failed + failed_sandbox);
        line = report ? json_dumps(report, JSON_COMPACT) : NULL;
        if (line) {
                printf("%s\n", line);
        } else {
                fprintf(stderr, "bench_child: out of memory\n");
                failed++;
        }
        free(line);
        json_decref(report);
        rmdir(dir);
        child_runner_free(runner);
        event_base_free(base);
        return failed + failed_sandbox ? 1 : 0;
}
