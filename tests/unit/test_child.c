/* SPDX-License-Identifier: MIT */
/*
 * Tests of the child-process runner with real processes: exit codes and
 * output, timeouts that reach grandchildren, rlimit breaches, output caps,
 * 100 concurrent children without fd leaks, cancellation, the sandbox, and
 * that the event loop keeps running while children do.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

struct finished {
        int count;
        struct child_result last;
        char out[4096];
        char err[4096];
        size_t out_len;
        bool out_truncated;
        size_t out_total;
};

static void on_done(const struct child_result *r, void *userdata)
{
        struct finished *f = userdata;

        f->count++;
        f->last = *r;
        /* the result's buffers die with the callback: keep copies */
        f->last.out.data = NULL;
        f->last.err.data = NULL;
        snprintf(f->out, sizeof(f->out), "%s", r->out.data);
        snprintf(f->err, sizeof(f->err), "%s", r->err.data);
        f->out_len = r->out.len;
        f->out_truncated = r->out.truncated;
        f->out_total = r->out.total;
}

struct fixture {
        struct event_base *base;
        struct child_runner *runner;
};

static int setup(void **state)
{
        struct fixture *fx = calloc(1, sizeof(*fx));

        fx->base = event_base_new();
        assert_non_null(fx->base);
        assert_int_equal(child_runner_new(fx->base, NULL, &fx->runner), 0);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;

        child_runner_free(fx->runner);
        event_base_free(fx->base);
        free(fx);
        return 0;
}

static void on_guard(evutil_socket_t fd, short what, void *arg)
{
        (void)fd;
        (void)what;
        *(bool *)arg = true;
}

/* Runs the loop until *count reaches want or limit_s passes; returns seconds taken. */
static double run_until(struct event_base *base, const int *count, int want, double limit_s)
{
        struct timeval tv = { .tv_sec = (time_t)limit_s,
                              .tv_usec = (suseconds_t)((limit_s - (double)(time_t)limit_s) * 1e6) };
        struct timespec a, b;
        bool expired = false;
        struct event *guard = evtimer_new(base, on_guard, &expired);

        clock_gettime(CLOCK_MONOTONIC, &a);
        evtimer_add(guard, &tv);
        while (*count < want && !expired)
                event_base_loop(base, EVLOOP_ONCE);
        event_free(guard);
        clock_gettime(CLOCK_MONOTONIC, &b);
        assert_int_equal(*count, want);
        return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static void start(struct fixture *fx, struct child_spec *spec, struct finished *f)
{
        assert_int_equal(child_start(fx->runner, spec, on_done, f, NULL), 0);
}

static void test_exit_code_and_output(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
        struct child_spec spec = { .argv = argv };
        struct finished f = { 0 };
        char what[64];

        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 10);
        assert_int_equal(f.last.exit_code, 3);
        assert_int_equal(f.last.signal, 0);
        assert_false(f.last.timed_out);
        assert_string_equal(f.out, "out\n");
        assert_string_equal(f.err, "err\n");
        assert_string_equal(child_result_describe(&f.last, what, sizeof(what)), "exit 3");
}

static void test_environment_and_directory(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "/bin/sh", "-c", "echo \"$GREETING\"; pwd", NULL };
        const char *envp[] = { "GREETING=hello there", "PATH=/usr/bin:/bin", NULL };
        struct child_spec spec = { .argv = argv, .envp = envp, .cwd = "/" };
        struct finished f = { 0 };

        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 10);
        assert_int_equal(f.last.exit_code, 0);
        assert_string_equal(f.out, "hello there\n/\n");
}

static bool process_is_gone(pid_t pid)
{
        char path[64], stat[512];
        FILE *f;
        char *paren;
        bool gone = true;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        f = fopen(path, "r");
        if (!f)
                return true;
        if (fgets(stat, sizeof(stat), f)) {
                paren = strrchr(stat, ')');
                /* a zombie waiting for its new parent to reap it is gone too */
                gone = paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
        }
        fclose(f);
        return gone;
}

static void test_timeout_kills_grandchildren(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sh", "-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait", NULL };
        struct child_spec spec = { .argv = argv, .timeout_s = 0.3 };
        struct finished f = { 0 };
        char what[64];
        int pids[2] = { 0, 0 };
        double took;

        start(fx, &spec, &f);
        took = run_until(fx->base, &f.count, 1, 10);
        assert_true(took < 5.0);
        assert_true(f.last.timed_out);
        assert_int_equal(f.last.signal, SIGKILL);
        assert_int_equal(sscanf(f.out, "%d %d", &pids[0], &pids[1]), 2);
        for (int tries = 0; tries < 100 && !(process_is_gone(pids[0]) && process_is_gone(pids[1]));
             tries++)
                usleep(10000);
        assert_true(process_is_gone(pids[0]));
        assert_true(process_is_gone(pids[1]));
        assert_non_null(strstr(child_result_describe(&f.last, what, sizeof(what)), "timed out"));
}

static void test_cpu_limit_is_reported(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sh", "-c", "while :; do :; done", NULL };
        struct child_spec spec = { .argv = argv, .timeout_s = 20, .limits.cpu_seconds = 1 };
        struct finished f = { 0 };
        char what[64];

        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 30);
        assert_false(f.last.timed_out);
        assert_int_equal(f.last.limit_hit, CHILD_LIMIT_CPU);
        assert_string_equal(child_result_describe(&f.last, what, sizeof(what)),
                            "CPU time limit exceeded");
}

static void test_file_size_limit_is_reported(void **state)
{
        struct fixture *fx = *state;
        char dir[] = "/tmp/ascendopt-test-XXXXXX";
        char file[128];
        const char *argv[] = { "dd", "if=/dev/zero", NULL, "bs=65536", "count=32", NULL };
        struct child_spec spec = { .argv = argv, .limits.file_size_bytes = 100000 };
        struct finished f = { 0 };
        struct stat st;

        assert_non_null(mkdtemp(dir));
        snprintf(file, sizeof(file), "of=%s/big", dir);
        argv[2] = file;
        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 10);
        assert_int_equal(f.last.limit_hit, CHILD_LIMIT_FILE_SIZE);
        assert_int_equal(stat(file + 3, &st), 0);
        assert_true(st.st_size <= 100000);
        unlink(file + 3);
        rmdir(dir);
}

/* In the sandbox too: bubblewrap turns the signal into exit 128 + SIGXFSZ, which was shown as "exit 153". */
static void test_file_size_limit_is_named_in_the_sandbox(void **state)
{
        struct fixture *fx = *state;
        char dir[] = "/tmp/ascendopt-test-XXXXXX";
        char file[128], why[128];
        const char *argv[] = { "dd", "if=/dev/zero", NULL, "bs=65536", "count=32", NULL };
        struct child_spec spec = { .argv = argv,
                                   .limits.file_size_bytes = 100000,
                                   .timeout_s = 20 };
        struct finished f = { 0 };

        if (!child_runner_has_sandbox(fx->runner)) {
                skip();
                return;
        }
        assert_non_null(mkdtemp(dir));
        spec.sandbox_dir = dir;
        snprintf(file, sizeof(file), "of=%s/big", dir);
        argv[2] = file;
        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 30);
        assert_true(f.last.sandboxed);
        assert_int_equal(f.last.signal, SIGXFSZ);
        assert_int_equal(f.last.limit_hit, CHILD_LIMIT_FILE_SIZE);
        assert_string_equal(child_result_describe(&f.last, why, sizeof(why)),
                            "file size limit exceeded");
        unlink(file + 3);
        rmdir(dir);
}

static void test_output_over_cap_is_truncated_and_marked(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sh", "-c", "head -c 100000 /dev/zero | tr '\\000' a", NULL };
        struct child_spec spec = { .argv = argv, .output_cap = 1000 };
        struct finished f = { 0 };

        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 10);
        assert_int_equal(f.last.exit_code, 0);
        assert_true(f.out_truncated);
        assert_int_equal(f.out_total, 100000);
        assert_non_null(strstr(f.out, "[output truncated: kept 1000 of 100000 bytes]"));
        assert_int_equal(strspn(f.out, "a"), 1000);
}

static int count_open_fds(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        int n = 0;

        assert_non_null(d);
        while ((e = readdir(d)))
                n += e->d_name[0] != '.';
        closedir(d);
        return n;
}

struct many {
        int count;
        int correct;
};

static void on_many_done(const struct child_result *r, void *userdata)
{
        struct many *m = userdata;
        int n = -1;

        m->count++;
        if (r->exit_code == 0 && sscanf(r->out.data, "child %d", &n) == 1 && n >= 0 && n < 100)
                m->correct++;
}

static void test_hundred_concurrent_children_leak_no_fd(void **state)
{
        struct fixture *fx = *state;
        struct many m = { 0 };
        char scripts[100][32];
        int before = count_open_fds();

        for (int i = 0; i < 100; i++) {
                const char *argv[] = { "sh", "-c", scripts[i], NULL };
                struct child_spec spec = { .argv = argv, .timeout_s = 30 };
                snprintf(scripts[i], sizeof(scripts[i]), "sleep 0.2; echo child %d", i);
                assert_int_equal(child_start(fx->runner, &spec, on_many_done, &m, NULL), 0);
        }
        assert_int_equal(child_runner_running(fx->runner), 100);
        run_until(fx->base, &m.count, 100, 60);
        assert_int_equal(m.correct, 100);
        assert_int_equal(child_runner_running(fx->runner), 0);
        assert_int_equal(count_open_fds(), before);
}

static void test_loop_keeps_running_while_child_sleeps(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sleep", "0.5", NULL };
        struct child_spec spec = { .argv = argv };
        struct finished f = { 0 };
        struct timeval tick = { 0, 50000 };
        bool ticked = false;
        struct event *timer = evtimer_new(fx->base, on_guard, &ticked);

        start(fx, &spec, &f);
        evtimer_add(timer, &tick);
        while (!ticked && f.count == 0)
                event_base_loop(fx->base, EVLOOP_ONCE);
        /* the 50 ms timer fires while the 500 ms child is still running */
        assert_true(ticked);
        assert_int_equal(f.count, 0);
        run_until(fx->base, &f.count, 1, 10);
        event_free(timer);
}

static void test_cancel_reports_cancelled(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sleep", "60", NULL };
        struct child_spec spec = { .argv = argv };
        struct finished f = { 0 };
        struct child *c = NULL;
        double took;

        assert_int_equal(child_start(fx->runner, &spec, on_done, &f, &c), 0);
        child_cancel(c);
        took = run_until(fx->base, &f.count, 1, 10);
        assert_true(took < 5.0);
        assert_true(f.last.cancelled);
        assert_false(f.last.timed_out);
}

/*
 * What a child printed is there before it exits (sbatch --parsable --wait
 * prints the job's id at once and exits when the job ends, hours later).
 */
static void test_output_so_far_while_running(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "sh", "-c", "echo 4242; exec sleep 60", NULL };
        struct child_spec spec = { .argv = argv };
        struct finished f = { 0 };
        struct child *c = NULL;
        struct timeval limit = { 10, 0 };
        bool expired = false;
        struct event *guard = evtimer_new(fx->base, on_guard, &expired);

        assert_string_equal(child_stdout_so_far(NULL), "");
        assert_int_equal(child_start(fx->runner, &spec, on_done, &f, &c), 0);
        evtimer_add(guard, &limit);
        while (!expired && strcmp(child_stdout_so_far(c), "4242\n") != 0)
                event_base_loop(fx->base, EVLOOP_ONCE);
        event_free(guard);
        assert_string_equal(child_stdout_so_far(c), "4242\n");
        assert_int_equal(f.count, 0);
        child_cancel(c);
        run_until(fx->base, &f.count, 1, 10);
        assert_string_equal(f.out, "4242\n");
}

static void test_bad_requests_are_refused(void **state)
{
        struct fixture *fx = *state;
        const char *missing[] = { "no-such-program-ascendopt", NULL };
        const char *empty[] = { NULL };
        struct child_spec spec = { .argv = missing };
        struct child_runner_options options = { .exec_helper = "/nonexistent/ascendopt-exec" };
        struct child_runner *runner = NULL;

        assert_int_equal(child_start(fx->runner, &spec, on_done, NULL, NULL), -ENOENT);
        spec.argv = empty;
        assert_int_equal(child_start(fx->runner, &spec, on_done, NULL, NULL), -EINVAL);
        assert_int_equal(child_runner_new(fx->base, &options, &runner), -ENOENT);
        assert_null(runner);
}

static void test_max_children_is_a_limit(void **state)
{
        struct fixture *fx = *state;
        struct child_runner_options options = { .max_children = 2 };
        struct child_runner *runner = NULL;
        const char *argv[] = { "sleep", "60", NULL };
        struct child_spec spec = { .argv = argv };

        assert_int_equal(child_runner_new(fx->base, &options, &runner), 0);
        assert_int_equal(child_start(runner, &spec, on_done, NULL, NULL), 0);
        assert_int_equal(child_start(runner, &spec, on_done, NULL, NULL), 0);
        assert_int_equal(child_start(runner, &spec, on_done, NULL, NULL), -EAGAIN);
        /* freeing the runner kills and reaps both sleepers without callbacks */
        child_runner_free(runner);
}

static void test_nice_is_applied(void **state)
{
        struct fixture *fx = *state;
        const char *argv[] = { "nice", NULL };
        struct child_spec spec = { .argv = argv, .nice = 7 };
        struct finished f = { 0 };
        int base_nice = nice(0);
        int want = base_nice + 7 > 19 ? 19 : base_nice + 7;
        char expect[16];

        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 10);
        snprintf(expect, sizeof(expect), "%d\n", want);
        assert_string_equal(f.out, expect);
}

/* Each throttled child prints when it started and ended (ms); none may overlap more than 2. */
struct span_log {
        int count;
        long long start[6], end[6];
};

static void on_span(const struct child_result *r, void *userdata)
{
        struct span_log *log = userdata;

        if (log->count < 6 &&
            sscanf(r->out.data, "%lld %lld", &log->start[log->count], &log->end[log->count]) == 2)
                log->count++;
        else
                log->count = 100; /* fails the test below */
}

static void test_throttled_children_wait_for_a_slot(void **state)
{
        struct fixture *fx = *state;
        struct child_runner_options options = { .max_throttled = 2 };
        struct child_runner *runner = NULL;
        const char *argv[] = { "sh", "-c", "date +%s%3N; sleep 0.3; date +%s%3N", NULL };
        const char *free_argv[] = { "true", NULL };
        struct child_spec spec = { .argv = argv, .throttled = true, .timeout_s = 20 };
        struct child_spec unthrottled = { .argv = free_argv };
        struct child *waiting = NULL;
        struct span_log log = { 0 };
        struct finished cancelled = { 0 }, other = { 0 };
        int most = 0;

        assert_int_equal(child_runner_new(fx->base, &options, &runner), 0);
        for (int i = 0; i < 6; i++)
                assert_int_equal(child_start(runner, &spec, on_span, &log, NULL), 0);
        /* a seventh waits and is cancelled before it starts: it reports, never runs */
        assert_int_equal(child_start(runner, &spec, on_done, &cancelled, &waiting), 0);
        child_cancel(waiting);
        /* children that are not throttled never wait */
        assert_int_equal(child_start(runner, &unthrottled, on_done, &other, NULL), 0);
        assert_int_equal(child_runner_running(runner), 3);
        run_until(fx->base, &log.count, 6, 30);
        assert_int_equal(log.count, 6);
        assert_int_equal(cancelled.count, 1);
        assert_true(cancelled.last.cancelled);
        assert_int_equal(cancelled.last.pid, 0);
        assert_int_equal(other.count, 1);
        for (int i = 0; i < 6; i++) {
                int at_once = 0;
                for (int j = 0; j < 6; j++)
                        at_once += log.start[j] <= log.start[i] && log.start[i] < log.end[j];
                most = at_once > most ? at_once : most;
        }
        assert_int_equal(most, 2);
        child_runner_free(runner);
}

static void test_sandbox_confines_writes_and_network(void **state)
{
        struct fixture *fx = *state;
        char dir[] = "/tmp/ascendopt-sandbox-XXXXXX";
        char script[512];
        const char *argv[] = { "sh", "-c", script, NULL };
        struct child_spec spec = { .argv = argv, .timeout_s = 20 };
        struct finished f = { 0 };

        if (!child_runner_has_sandbox(fx->runner)) {
                skip();
                return;
        }
        assert_non_null(mkdtemp(dir));
        spec.sandbox_dir = dir;
        snprintf(script, sizeof(script),
                 "echo inside > %s/ok && cat %s/ok; "
                 "if touch /var/tmp/ascendopt-escape 2>/dev/null; then echo escaped; fi; "
                 "grep -c : /proc/net/dev",
                 dir, dir);
        start(fx, &spec, &f);
        run_until(fx->base, &f.count, 1, 30);
        assert_true(f.last.sandboxed);
        assert_int_equal(f.last.exit_code, 0);
        /* the scratch dir is writable, the system is not, and only loopback exists */
        assert_string_equal(f.out, "inside\n1\n");
        assert_int_equal(access("/var/tmp/ascendopt-escape", F_OK), -1);
        snprintf(script, sizeof(script), "%s/ok", dir);
        unlink(script);
        rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_exit_code_and_output, setup, teardown),
                cmocka_unit_test_setup_teardown(test_environment_and_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_timeout_kills_grandchildren, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cpu_limit_is_reported, setup, teardown),
                cmocka_unit_test_setup_teardown(test_file_size_limit_is_reported, setup, teardown),
                cmocka_unit_test_setup_teardown(test_file_size_limit_is_named_in_the_sandbox, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_output_over_cap_is_truncated_and_marked, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_hundred_concurrent_children_leak_no_fd, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_loop_keeps_running_while_child_sleeps, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_cancel_reports_cancelled, setup, teardown),
                cmocka_unit_test_setup_teardown(test_output_so_far_while_running, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_requests_are_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_max_children_is_a_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_nice_is_applied, setup, teardown),
                cmocka_unit_test_setup_teardown(test_throttled_children_wait_for_a_slot, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_sandbox_confines_writes_and_network, setup,
                                                teardown),
        };

        signal(SIGPIPE, SIG_IGN);
        return cmocka_run_group_tests_name("child", tests, NULL, NULL);
}
