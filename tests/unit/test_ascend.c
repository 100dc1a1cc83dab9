/* SPDX-License-Identifier: MIT */
/*
 * Tests of the real-hardware backend without hardware: npu-smi, set_env.sh
 * and msprof op parsing on recorded outputs (tests/fixtures/ascend), the
 * project and command lines, the aclnn harness generator (compiled against
 * stub declarations), and whole evaluations against the fake toolchain in
 * tests/fixtures/fake-cann, driven by real child processes on a real loop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "npu/ascend.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

static char fixtures[PATH_MAX];

/* ------------------------------------------------------------ helpers */

/* snprintf that fails the test instead of truncating. */
static void pathf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void pathf(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= size)
                fail_msg("path too long: %s", buf);
}

static void fixture_path(char *buf, size_t size, const char *rel)
{
        assert_int_equal(format_path(buf, size, "%s/%s", fixtures, rel), 0);
}

static char *read_fixture(const char *rel)
{
        char path[PATH_MAX];
        FILE *f;
        char *text;
        long n;

        fixture_path(path, sizeof(path), rel);
        f = fopen(path, "rb");
        if (!f)
                fail_msg("cannot open %s", path);
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        text = malloc((size_t)n + 1);
        assert_non_null(text);
        assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
        text[n] = '\0';
        fclose(f);
        return text;
}

/* The whole of a file the test wrote or had written, NUL-terminated. */
static char *read_whole(const char *path)
{
        char *text = NULL;
        size_t len;

        if (read_text_file(path, 1 << 20, &text, &len) < 0)
                fail_msg("cannot read %s", path);
        return text;
}

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static void make_temp_dir(char *buf, size_t size)
{
        pathf(buf, size, "/tmp/ascendopt-ascend-test-XXXXXX");
        assert_non_null(mkdtemp(buf));
}

static bool contains(const char *hay, const char *needle)
{
        return hay && strstr(hay, needle);
}

static void assert_contains(const char *hay, const char *needle)
{
        if (!contains(hay, needle))
                fail_msg("\"%s\" does not contain \"%s\"", hay ? hay : "(null)", needle);
}

static void assert_close(double got, double want)
{
        if (!(fabs(got - want) <= 1e-6 * (fabs(want) + 1)))
                fail_msg("got %.9g, want %.9g", got, want);
}

static void copy_tree_cmd(const char *from, const char *to)
{
        char cmd[3 * PATH_MAX];

        pathf(cmd, sizeof(cmd), "cp -R '%s' '%s'", from, to);
        assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------ npu-smi */

static void test_device_list(void **state)
{
        struct ascend_device_list list;
        char err[512] = "", *text;

        (void)state;
        text = read_fixture("ascend/npu-smi/info-l.txt");
        if (ascend_parse_device_list(text, &list, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        free(text);
        assert_int_equal(list.n, 2);
        assert_int_equal(list.devices[1].npu_id, 1);
        assert_int_equal(list.devices[1].logic_id, 1);

        /* odd spacing, fields we do not know, a two-chip card, ids with gaps */
        text = read_fixture("ascend/npu-smi/info-l-extra.txt");
        if (ascend_parse_device_list(text, &list, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        free(text);
        assert_int_equal(list.n, 4);
        assert_int_equal(list.devices[0].npu_id, 4);
        assert_int_equal(list.devices[1].npu_id, 5);
        assert_int_equal(list.devices[1].chip_id, 0);
        assert_int_equal(list.devices[2].npu_id, 5);
        assert_int_equal(list.devices[2].chip_id, 1);
        assert_int_equal(list.devices[3].npu_id, 7);
        assert_int_equal(list.devices[3].logic_id, 3);

        text = read_fixture("ascend/npu-smi/info-l-mismatch.txt");
        assert_int_equal(ascend_parse_device_list(text, &list, err, sizeof(err)), -EINVAL);
        assert_contains(err, "Total Count is 2 but 1 NPU IDs are listed");
        free(text);
        text = read_fixture("ascend/npu-smi/info-l-garbage.txt");
        assert_int_equal(ascend_parse_device_list(text, &list, err, sizeof(err)), -EINVAL);
        assert_contains(err, "no \"Total Count\" line; is this npu-smi's output? It begins "
                             "\"bash: npu-smi: command not found\"");
        free(text);
        assert_int_equal(ascend_parse_device_list("", &list, err, sizeof(err)), -EINVAL);
        assert_contains(err, "no \"Total Count\"");
        assert_int_equal(ascend_parse_device_list("Total Count : 1\nNPU ID : 0\nChip Count : x\n",
                                                  &list, err, sizeof(err)),
                         -EINVAL);
        assert_contains(err, "Chip Count \"x\"");
}

static void test_npu_info(void **state)
{
        struct ascend_npu_info info;
        const struct ascend_npu_process *p;
        const pid_t ours[] = { 31337 }, both[] = { 4242, 31337 };
        char err[512] = "", *text;

        (void)state;
        text = read_fixture("ascend/npu-smi/info-idle.txt");
        if (ascend_parse_npu_info(text, &info, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        free(text);
        assert_int_equal(info.n_npus, 2);
        assert_string_equal(info.npus[0].name, "910B4");
        assert_string_equal(info.npus[0].soc, "Ascend910B4");
        assert_string_equal(info.npus[1].health, "OK");
        assert_int_equal(info.n_processes, 0);
        assert_null(ascend_npu_foreign_process(&info, 1, 0, NULL, 0));

        text = read_fixture("ascend/npu-smi/info-busy.txt");
        if (ascend_parse_npu_info(text, &info, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        free(text);
        assert_int_equal(info.n_processes, 2);
        assert_true(info.npus[1].aicore_pct == 97);
        assert_null(ascend_npu_foreign_process(&info, 0, 0, ours, 1));
        p = ascend_npu_foreign_process(&info, 1, 0, ours, 1);
        assert_non_null(p);
        assert_int_equal(p->pid, 4242);
        assert_string_equal(p->name, "python3");
        assert_int_equal(p->memory_mb, 6352);
        /* our own processes are not someone else's */
        assert_null(ascend_npu_foreign_process(&info, 1, 0, both, 2));
        assert_non_null(ascend_npu_foreign_process(&info, 1, -1, ours, 1));

        /* another npu-smi version: wider table, Phy-ID, an extra process column */
        text = read_fixture("ascend/npu-smi/info-wide.txt");
        if (ascend_parse_npu_info(text, &info, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        free(text);
        assert_int_equal(info.n_npus, 2);
        assert_int_equal(info.npus[0].npu_id, 2);
        assert_string_equal(info.npus[0].soc, "Ascend910B3");
        assert_true(info.npus[0].aicore_pct == 12);
        assert_string_equal(info.npus[1].health, "Warning");
        assert_int_equal(ascend_npu_by_logic_id(&info, 1)->npu_id, 3);
        assert_null(ascend_npu_by_logic_id(&info, 2));
        p = ascend_npu_foreign_process(&info, 2, 0, NULL, 0);
        assert_non_null(p);
        assert_string_equal(p->name, "train.py");
        assert_int_equal(p->memory_mb, 2048);

        text = read_fixture("ascend/npu-smi/info-garbage.txt");
        assert_int_equal(ascend_parse_npu_info(text, &info, err, sizeof(err)), -EINVAL);
        assert_contains(err, "no device table");
        free(text);
        text = read_fixture("ascend/npu-smi/info-bad-row.txt");
        assert_int_equal(ascend_parse_npu_info(text, &info, err, sizeof(err)), -EINVAL);
        assert_contains(err, "cannot read the device row \"zero  910B4\"");
        free(text);
}

/* ------------------------------------------------------------ environment */

static void test_toolkit_find(void **state)
{
        struct ascend_toolkit tk = { 0 };
        char err[4096] = "", path[PATH_MAX], want[PATH_MAX];
        const char *defaults[] = { "/nonexistent/ascend-a", NULL, NULL };

        (void)state;
        /* ascend-toolkit/latest finds ascend-toolkit/set_env.sh */
        fixture_path(path, sizeof(path), "ascend/set_env/ascend-toolkit/latest");
        if (ascend_toolkit_find(path, "/ignored", NULL, &tk, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        fixture_path(want, sizeof(want), "ascend/set_env/ascend-toolkit/set_env.sh");
        assert_string_equal(tk.set_env, realpath(want, path) ? path : want);
        assert_contains(tk.root, "ascend-toolkit/latest");
        ascend_toolkit_release(&tk);

        /* the script itself may be configured */
        fixture_path(path, sizeof(path), "ascend/set_env/ascend-toolkit/set_env.sh");
        assert_int_equal(ascend_toolkit_find(path, NULL, NULL, &tk, err, sizeof(err)), 0);
        assert_contains(tk.root, "/ascend-toolkit");
        ascend_toolkit_release(&tk);

        /* ASCEND_HOME_PATH when nothing is configured */
        fixture_path(path, sizeof(path), "ascend/set_env/ascend-toolkit/latest");
        assert_int_equal(ascend_toolkit_find(NULL, path, NULL, &tk, err, sizeof(err)), 0);
        ascend_toolkit_release(&tk);

        /* the defaults, in order, including CANN 9's .../cann/set_env.sh */
        fixture_path(path, sizeof(path), "ascend/set_env/Ascend");
        defaults[1] = path;
        assert_int_equal(ascend_toolkit_find(NULL, NULL, defaults, &tk, err, sizeof(err)), 0);
        assert_contains(tk.set_env, "Ascend/cann/set_env.sh");
        assert_contains(tk.root, "Ascend/cann");
        ascend_toolkit_release(&tk);

        /* nothing: the message lists every place looked at */
        defaults[1] = NULL;
        assert_int_equal(ascend_toolkit_find(NULL, "", defaults, &tk, err, sizeof(err)), -ENOENT);
        assert_contains(err, "CANN toolkit not found");
        assert_contains(err, "/nonexistent/ascend-a/set_env.sh");
        assert_contains(err, "/nonexistent/ascend-a/../set_env.sh");
        assert_contains(err, "/nonexistent/ascend-a/cann/set_env.sh");
        /* a wrong config is not silently replaced by the defaults */
        assert_int_equal(
            ascend_toolkit_find("/nonexistent/configured", NULL, NULL, &tk, err, sizeof(err)),
            -ENOENT);
        assert_contains(err, "the configured toolkit");
        assert_false(contains(err, "/usr/local/Ascend"));
        assert_null(tk.root);
}

static void test_env_parse_and_edit(void **state)
{
        static const char data[] = "_=/usr/bin/env\0SHLVL=2\0A=1\0B=x=y\0NOEQUALS\0"
                                   "MULTI=line one\nline two\0A=2\0\0PATH=/p/bin:/usr/bin\0";
        struct ascend_env *env = NULL, *copy = NULL;
        char err[512], buf[PATH_MAX];

        (void)state;
        assert_int_equal(ascend_env_parse(data, sizeof(data) - 1, &env, err, sizeof(err)), 0);
        assert_int_equal(env->n, 4);
        assert_null(ascend_env_get(env, "_"));
        assert_null(ascend_env_get(env, "SHLVL"));
        assert_string_equal(ascend_env_get(env, "A"), "2"); /* the last one wins */
        assert_string_equal(ascend_env_get(env, "B"), "x=y");
        assert_string_equal(ascend_env_get(env, "MULTI"), "line one\nline two");
        assert_null(env->envp[env->n]);

        assert_int_equal(ascend_env_copy(env, &copy), 0);
        assert_int_equal(ascend_env_prepend(copy, "PATH", "/first"), 0);
        assert_int_equal(ascend_env_prepend(copy, "LD_LIBRARY_PATH", "/lib/a"), 0);
        assert_int_equal(ascend_env_set(copy, "A", "3"), 0);
        assert_string_equal(ascend_env_get(copy, "PATH"), "/first:/p/bin:/usr/bin");
        assert_string_equal(ascend_env_get(copy, "LD_LIBRARY_PATH"), "/lib/a");
        assert_string_equal(ascend_env_get(env, "A"), "2"); /* copies are independent */
        assert_int_equal(ascend_env_set(copy, "BAD=NAME", "x"), -EINVAL);

        /* programs are looked up in the toolkit's PATH, not ours */
        assert_int_equal(ascend_env_which(env, "sh", NULL, buf, sizeof(buf), err, sizeof(err)), 0);
        assert_string_equal(buf, "/usr/bin/sh");
        assert_int_equal(ascend_env_which(env, "msprof", NULL, buf, sizeof(buf), err, sizeof(err)),
                         -ENOENT);
        assert_contains(err,
                        "msprof not found in the toolkit environment's PATH (/p/bin:/usr/bin)");
        ascend_env_free(copy);
        ascend_env_free(env);
        assert_null(ascend_env_free(NULL));

        assert_int_equal(ascend_env_parse("\0\0", 2, &env, err, sizeof(err)), -EINVAL);
        assert_contains(err, "no NAME=value records");
}

/* ------------------------------------------------------------ loop plumbing */

struct fixture {
        struct event_base *base;
        struct child_runner *runner;
        char tmp[PATH_MAX];
        char repo[PATH_MAX];      /* a checkout of the cann-ops style fixture repository */
        char third_lib[PATH_MAX]; /* what ascend.third_lib_path names: json/ inside */
};

static int setup_runner(void **state)
{
        struct fixture *fx = calloc(1, sizeof(*fx));
        struct child_runner_options options = { .bwrap = "" };
        char src[PATH_MAX];

        assert_non_null(fx);
        fx->base = event_base_new();
        assert_non_null(fx->base);
        if (child_runner_new(fx->base, &options, &fx->runner) < 0)
                fail_msg("no ascendopt-exec: build it (make build/ascendopt-exec) or set "
                         "ASCENDOPT_EXEC_HELPER");
        make_temp_dir(fx->tmp, sizeof(fx->tmp));
        /* a checkout, as a user has one: the repository's root has .git */
        fixture_path(src, sizeof(src), "fake-cann/cann-ops");
        pathf(fx->repo, sizeof(fx->repo), "%s/cann-ops", fx->tmp);
        copy_tree_cmd(src, fx->repo);
        pathf(src, sizeof(src), "%s/.git", fx->repo);
        assert_int_equal(mkdir(src, 0755), 0);
        fixture_path(fx->third_lib, sizeof(fx->third_lib), "fake-cann/third-party");
        *state = fx;
        return 0;
}

static int teardown_runner(void **state)
{
        struct fixture *fx = *state;

        child_runner_free(fx->runner);
        event_base_free(fx->base);
        rm_rf(fx->tmp);
        free(fx);
        unsetenv("FAKE_NPU_SMI_INFO");
        unsetenv("FAKE_MSPROF_LOG");
        unsetenv("FAKE_BUILD_LOG");
        unsetenv("FAKE_HARNESS_FAIL");
        unsetenv("FAKE_INSTALL_FAIL");
        unsetenv("FAKE_CANN_BIN");
        return 0;
}

static void on_guard(evutil_socket_t fd, short what, void *arg)
{
        (void)fd;
        (void)what;
        *(bool *)arg = true;
}

static void run_until(struct event_base *base, const int *count, int want, double limit_s)
{
        struct timeval tv = { .tv_sec = (time_t)limit_s };
        bool expired = false;
        struct event *guard = evtimer_new(base, on_guard, &expired);

        evtimer_add(guard, &tv);
        while (*count < want && !expired)
                event_base_loop(base, EVLOOP_ONCE);
        event_free(guard);
        if (*count != want)
                fail_msg("nothing finished within %.0f s", limit_s);
}

struct env_outcome {
        int count;
        int r;
        struct ascend_env *env;
        char message[2048];
};

static void on_env(int r, struct ascend_env *env, const char *message, void *userdata)
{
        struct env_outcome *o = userdata;

        o->count++;
        o->r = r;
        o->env = env;
        pathf(o->message, sizeof(o->message), "%s", message ? message : "");
}

static void load_env(struct fixture *fx, const char *set_env, struct env_outcome *o)
{
        struct ascend_toolkit tk = { .root = NULL, .set_env = (char *)set_env };

        memset(o, 0, sizeof(*o));
        assert_int_equal(ascend_env_load_start(fx->runner, &tk, NULL, 30, on_env, o, NULL), 0);
        run_until(fx->base, &o->count, 1, 30);
}

static void test_env_load(void **state)
{
        struct fixture *fx = *state;
        struct env_outcome o;
        char path[PATH_MAX], empty[PATH_MAX];
        const char *home, *ld;

        fixture_path(path, sizeof(path), "ascend/set_env/ascend-toolkit/set_env.sh");
        load_env(fx, path, &o);
        if (o.r < 0)
                fail_msg("%s", o.message);
        home = ascend_env_get(o.env, "ASCEND_HOME_PATH");
        assert_contains(home, "/ascend/set_env/ascend-toolkit/latest");
        ld = ascend_env_get(o.env, "LD_LIBRARY_PATH");
        assert_true(ld && strncmp(ld, home, strlen(home)) == 0);
        assert_contains(ascend_env_get(o.env, "PATH"), "/ascend-toolkit/latest/bin:");
        /* the capturing shell's own variables are not part of it */
        assert_null(ascend_env_get(o.env, "_"));
        assert_null(ascend_env_get(o.env, "_home"));
        ascend_env_free(o.env);

        /* the fake toolkit prints while sourced and exports a multi-line value */
        fixture_path(path, sizeof(path), "fake-cann/ascend-toolkit/set_env.sh");
        load_env(fx, path, &o);
        if (o.r < 0)
                fail_msg("%s", o.message);
        assert_string_equal(ascend_env_get(o.env, "FAKE_CANN_VALUE_WITH_NEWLINE"),
                            "line one\nline two");
        for (size_t i = 0; i < o.env->n; i++)
                assert_false(contains(o.env->envp[i], "fake CANN environment loaded"));
        ascend_env_free(o.env);

        /* a script that sets nothing of CANN's */
        pathf(empty, sizeof(empty), "%s/set_env.sh", fx->tmp);
        write_file(empty, "export UNRELATED=1\n");
        load_env(fx, empty, &o);
        assert_int_equal(o.r, -ENOENT);
        assert_null(o.env);
        assert_contains(o.message, "set none of ASCEND_HOME_PATH");

        /* a script that is not there: bash says so */
        pathf(empty, sizeof(empty), "%s/missing.sh", fx->tmp);
        load_env(fx, empty, &o);
        assert_true(o.r < 0);
        assert_contains(o.message, "missing.sh");
}

/* ------------------------------------------------------------ CSV and msprof */

static void test_csv(void **state)
{
        static const char text[] = "\xef\xbb\xbf"
                                   " Op Name ,\"Task Duration(us)\",Block Dim\r\n"
                                   "\"a,b\",\"1\"\"2\",3,extra\r\n"
                                   "\r\n"
                                   "\"multi\nline\",  4.5  \r\n";
        struct ascend_csv *csv = NULL;
        char err[512];

        (void)state;
        if (ascend_csv_parse(text, sizeof(text) - 1, "t.csv", &csv, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(csv->n_cols, 3);
        assert_int_equal(csv->n_rows, 2);
        assert_string_equal(csv->header[0], "Op Name");
        assert_int_equal(ascend_csv_column(csv, "op name"), 0);
        assert_int_equal(ascend_csv_column(csv, "TaskDuration(us)"), 1);
        assert_int_equal(ascend_csv_column(csv, "Pid"), -1);
        assert_string_equal(csv->rows[0][0], "a,b");
        assert_string_equal(csv->rows[0][1], "1\"2");
        assert_string_equal(csv->rows[1][0], "multi\nline");
        assert_string_equal(csv->rows[1][1], "4.5");
        assert_string_equal(csv->rows[1][2], ""); /* missing cells are empty */
        ascend_csv_free(csv);

        assert_int_equal(ascend_csv_parse("a,\"b\nc", 6, "bad.csv", &csv, err, sizeof(err)),
                         -EINVAL);
        assert_string_equal(err, "bad.csv:1: a quoted cell is not closed");
        assert_int_equal(ascend_csv_parse("\r\n\r\n", 4, "empty.csv", &csv, err, sizeof(err)),
                         -EINVAL);
        assert_contains(err, "empty.csv: empty");
}

static void test_median_iqr(void **state)
{
        const double one[] = { 5 }, two[] = { 3, 1 }, four[] = { 4, 1, 3, 2 };
        double median, iqr;

        (void)state;
        ascend_median_iqr(one, 1, &median, &iqr);
        assert_close(median, 5);
        assert_close(iqr, 0);
        ascend_median_iqr(two, 2, &median, &iqr);
        assert_close(median, 2);
        assert_close(iqr, 1);
        ascend_median_iqr(four, 4, &median, &iqr);
        assert_close(median, 2.5);
        assert_close(iqr, 1.5);
}

static json_t *collect_json(const char *rel, const char *const *match)
{
        struct ascend_profile profile = { 0 };
        char dir[PATH_MAX], err[2048];
        json_t *result = json_object();

        fixture_path(dir, sizeof(dir), rel);
        if (ascend_msprof_collect(dir, match, &profile, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(ascend_profile_to_json(&profile, result), 0);
        ascend_profile_release(&profile);
        return result;
}

static double number_at(const json_t *doc, const char *a, const char *b, const char *c)
{
        const json_t *v = json_object_get(doc, a);

        if (b)
                v = json_object_get(v, b);
        if (c)
                v = json_object_get(v, c);
        if (!json_is_number(v))
                fail_msg("no number at .%s%s%s%s%s", a, b ? "." : "", b ? b : "", c ? "." : "",
                         c ? c : "");
        return json_number_value(v);
}

static void test_msprof_single_launch(void **state)
{
        const char *match[] = { "AddCustom_", NULL };
        json_t *r;

        (void)state;
        r = collect_json("ascend/msprof/single", match);
        assert_int_equal(json_array_size(json_object_get(r, "samples_us")), 1);
        assert_close(number_at(r, "latency_us", NULL, NULL), 268.52);
        assert_close(number_at(r, "iqr_us", NULL, NULL), 0);
        assert_int_equal(json_integer_value(json_object_get(r, "block_dim")), 8);
        assert_int_equal(json_integer_value(json_object_get(r, "cycles")), 469800);
        assert_close(number_at(r, "profile", "clock_mhz", NULL), 1800);
        assert_close(number_at(r, "profile", "rated_clock_mhz", NULL), 1800);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(r, "profile"), "cores")), 8);
        assert_close(
            json_number_value(json_object_get(
                json_object_get(json_object_get(json_object_get(r, "profile"), "pipes"), "MTE2"),
                "utilization")),
            0.953);
        assert_non_null(
            json_object_get(json_object_get(json_object_get(r, "profile"), "pipes"), "S"));
        assert_non_null(
            json_object_get(json_object_get(json_object_get(r, "profile"), "pipes"), "V"));
        assert_non_null(
            json_object_get(json_object_get(json_object_get(r, "profile"), "pipes"), "MTE3"));
        assert_true(number_at(r, "profile", "core_imbalance", NULL) > 1.0);
        json_decref(r);
}

static void test_msprof_many_launches(void **state)
{
        const char *match[] = { "AddCustom_", NULL };
        const json_t *samples;
        json_t *r;

        (void)state;
        r = collect_json("ascend/msprof/launches", match);
        samples = json_object_get(r, "samples_us");
        /* device0/AddCustom/{0..10}: natural order, and the Cast kernel left out */
        assert_int_equal(json_array_size(samples), 11);
        assert_close(json_real_value(json_array_get(samples, 2)), 269.5);
        assert_close(json_real_value(json_array_get(samples, 3)), 300.2);
        assert_close(json_real_value(json_array_get(samples, 10)), 268.6);
        assert_close(number_at(r, "latency_us", NULL, NULL), 268.8);
        assert_close(number_at(r, "iqr_us", NULL, NULL), 1.5);
        assert_int_equal(json_integer_value(json_object_get(r, "block_dim")), 48);
        assert_close(number_at(r, "profile", "task_duration_us", NULL), 268.8);
        assert_close(number_at(r, "profile", "clock_mhz", NULL), 1650);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(r, "profile"), "cores")), 48);
        json_decref(r);
}

static void test_msprof_odd_files(void **state)
{
        const char *match[] = { "AddCustom_", NULL };
        const json_t *prof, *pipes;
        json_t *r;

        (void)state;
        /* BOM, CRLF, quoted names with commas, reordered and extra columns,
         * rows shorter than the header, optional columns missing, N/A cells */
        r = collect_json("ascend/msprof/odd", match);
        assert_int_equal(json_array_size(json_object_get(r, "samples_us")), 3);
        assert_close(number_at(r, "latency_us", NULL, NULL), 253);
        assert_int_equal(json_integer_value(json_object_get(r, "block_dim")), 40);
        assert_null(json_object_get(r, "cycles"));
        prof = json_object_get(r, "profile");
        assert_string_equal(json_string_value(json_object_get(prof, "op_name")),
                            "AddCustom_0f,quoted_1");
        assert_close(number_at(r, "profile", "clock_mhz", NULL), 1500); /* "1500MHz" */
        assert_null(json_object_get(prof, "rated_clock_mhz"));
        assert_null(json_object_get(prof, "mix_block_dim"));
        assert_int_equal(json_integer_value(json_object_get(prof, "cores")), 2);
        assert_close(number_at(r, "profile", "aiv_time_us", NULL), 245);
        pipes = json_object_get(prof, "pipes");
        /* busy derived from the ratio, and utilisation from the busy time */
        assert_close(json_number_value(json_object_get(json_object_get(pipes, "V"), "busy_us")),
                     24.5);
        assert_close(
            json_number_value(json_object_get(json_object_get(pipes, "MTE3"), "utilization")),
            105.0 / 245.0);
        assert_close(json_number_value(json_object_get(json_object_get(pipes, "MTE2"), "busy_us")),
                     0.9 * 245);
        json_decref(r);
}

static void test_msprof_errors(void **state)
{
        const char *match[] = { "AddCustom_", NULL };
        struct ascend_profile profile = { 0 };
        char dir[PATH_MAX], err[2048], tmp[PATH_MAX];

        (void)state;
        fixture_path(dir, sizeof(dir), "ascend/msprof/missing-required");
        assert_int_equal(ascend_msprof_collect(dir, match, &profile, err, sizeof(err)), -EINVAL);
        assert_contains(err, "OpBasicInfo.csv: no \"Task Duration(us)\" column");
        fixture_path(dir, sizeof(dir), "ascend/msprof/other-kernel");
        assert_int_equal(ascend_msprof_collect(dir, match, &profile, err, sizeof(err)), -ESRCH);
        assert_contains(err, "no launch of \"AddCustom_\"");
        assert_contains(err, "\"Cast_1b2c_2\", \"Muls_3\"");
        make_temp_dir(tmp, sizeof(tmp));
        assert_int_equal(ascend_msprof_collect(tmp, match, &profile, err, sizeof(err)), -ENOENT);
        assert_contains(err, "msprof op wrote no OpBasicInfo.csv");
        rm_rf(tmp);
        assert_int_equal(
            ascend_msprof_collect("/nonexistent/msprof", match, &profile, err, sizeof(err)),
            -ENOENT);
        assert_null(profile.launches);
        assert_int_equal(ascend_profile_to_json(&profile, NULL), -EINVAL);
}

/* ------------------------------------------------------------ project and commands */

static struct npu_manifest *load_manifest(const char *dir)
{
        struct npu_manifest *m = NULL;
        char err[1024];

        if (npu_manifest_load(dir, &m, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        return m;
}

/* AddCustom, inside the fixture repository's checkout. */
static struct npu_manifest *fixture_manifest(const struct fixture *fx)
{
        char dir[PATH_MAX];

        pathf(dir, sizeof(dir), "%s/src/math/add_custom", fx->repo);
        return load_manifest(dir);
}

static void test_compute_unit(void **state)
{
        static const char *const cases[][2] = {
                { "Ascend910B4", "ascend910b" },
                { "Ascend910B2", "ascend910b" },
                { "Ascend910B4-1", "ascend910b" },
                { "Ascend910_9392", "ascend910_93" },
                { "Ascend310P3", "ascend310p" },
                { "Ascend310B1", "ascend310b" },
                { "Ascend910", "ascend910" },
                /* the family, whatever bin and variant follow it */
                { "Ascend910B2C", "ascend910b" },
                { "Ascend910B1", "ascend910b" },
                { "Ascend910A", "ascend910" },
                { "Ascend910ProB", "ascend910" },
                { "Ascend310P1", "ascend310p" },
                { "Ascend910_9362", "ascend910_93" },
        };
        char buf[64];

        (void)state;
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                assert_int_equal(ascend_compute_unit(cases[i][0], buf, sizeof(buf)), 0);
                assert_string_equal(buf, cases[i][1]);
        }
        assert_int_equal(ascend_compute_unit("910B4", buf, sizeof(buf)), -EINVAL);
        assert_int_equal(ascend_compute_unit(NULL, buf, sizeof(buf)), -EINVAL);
}

static bool exists(const char *dir, const char *rel)
{
        char path[PATH_MAX];

        pathf(path, sizeof(path), "%s/%s", dir, rel);
        return access(path, F_OK) == 0;
}

static void test_project_own_build(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        struct ascend_project p;
        struct ascend_argv argv = { 0 };
        struct ascend_env *base = NULL, *run = NULL;
        const char *harness[] = { "/h/harness", "0", "6", "/in/x.bin", NULL };
        const char *const base_env[] = { "PATH=/usr/bin", "LD_LIBRARY_PATH=/toolkit/lib64",
                                         "ASCEND_RT_VISIBLE_DEVICES=0,1",
                                         "ASCEND_CUSTOM_OPP_PATH=/opt/other/vendors/x", NULL };
        char err[2048], path[PATH_MAX], prefix[64];
        json_t *presets, *vars;

        if (ascend_project_materialise(m, NULL, NULL, fx->tmp, "Ascend910B4", "/opt/toolkit", &p,
                                       err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(p.kind, ASCEND_PROJECT_OWN);
        assert_string_equal(p.compute_unit, "ascend910b");
        assert_string_equal(p.op_dir_name, "add_custom");
        assert_contains(p.op_dir, "/project/src/math/add_custom");
        /* the repository less the other operators: the build files, the CMake
         * chain, src/common (the top-level CMake adds it), the operator */
        assert_true(exists(p.root, "build.sh"));
        assert_true(exists(p.root, "cmake/func.cmake"));
        assert_true(exists(p.root, "CMakeLists.txt"));
        assert_true(exists(p.root, "src/CMakeLists.txt"));
        assert_true(exists(p.root, "src/math/CMakeLists.txt"));
        assert_true(exists(p.root, "src/common/CMakeLists.txt"));
        assert_true(exists(p.root, "src/common/inc/fixture_common.h"));
        assert_true(exists(p.root, "src/math/add_custom/op_kernel/add_custom.cpp"));
        assert_true(exists(p.root, "src/math/add_custom/op_host/add_custom_tiling.h"));
        assert_false(exists(p.root, "src/math/sub_custom"));
        assert_false(exists(p.root, ".git"));
        /* CMakePresets.json says our SoC and toolkit, in both value styles */
        pathf(path, sizeof(path), "%s/CMakePresets.json", p.root);
        presets = json_load_file(path, 0, NULL);
        assert_non_null(presets);
        vars = json_object_get(json_array_get(json_object_get(presets, "configurePresets"), 0),
                               "cacheVariables");
        assert_string_equal(json_string_value(json_object_get(
                                json_object_get(vars, "ASCEND_COMPUTE_UNIT"), "value")),
                            "ascend910b");
        assert_string_equal(json_string_value(json_object_get(
                                json_object_get(vars, "ASCEND_CANN_PACKAGE_PATH"), "value")),
                            "/opt/toolkit");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(vars, "vendor_name"), "value")),
            "customize");
        json_decref(presets);

        assert_int_equal(ascend_build_argv(&p, "/bin/bash", NULL, &argv), 0);
        assert_int_equal(argv.n, 4);
        assert_string_equal(argv.argv[0], "/bin/bash");
        assert_string_equal(argv.argv[1], "build.sh");
        assert_string_equal(argv.argv[2], "-n");
        assert_string_equal(argv.argv[3], "add_custom");
        assert_null(ascend_argv_view(&argv)[4]);
        ascend_argv_release(&argv);
        /* ascend.third_lib_path: build.sh never clones nlohmann/json */
        assert_int_equal(ascend_build_argv(&p, "/bin/bash", "/srv/third", &argv), 0);
        assert_int_equal(argv.n, 6);
        assert_string_equal(argv.argv[4], "--third_lib_path");
        assert_string_equal(argv.argv[5], "/srv/third");
        ascend_argv_release(&argv);

        assert_int_equal(ascend_install_argv("/p/x.run", "/c/vendor", &argv), 0);
        assert_string_equal(argv.argv[1], "--quiet");
        assert_string_equal(argv.argv[2], "--install-path=/c/vendor");
        ascend_argv_release(&argv);

        /* msprof matches a prefix of <OpType>_<hash>_<tiling key> */
        assert_int_equal(ascend_kernel_prefix(m->name, prefix, sizeof(prefix)), 0);
        assert_string_equal(prefix, "AddCustom_");
        assert_int_equal(ascend_msprof_argv("/t/msprof", "/c/msprof", prefix, 5, 1, harness, &argv),
                         0);
        assert_int_equal(argv.n, 10);
        assert_string_equal(argv.argv[1], "op");
        assert_string_equal(argv.argv[2], "--output=/c/msprof");
        assert_string_equal(argv.argv[3], "--kernel-name=AddCustom_");
        assert_string_equal(argv.argv[4], "--launch-count=5");
        assert_string_equal(argv.argv[5], "--launch-skip-before-match=1");
        assert_string_equal(argv.argv[6], "/h/harness");
        assert_string_equal(argv.argv[9], "/in/x.bin");
        ascend_argv_release(&argv);
        assert_int_equal(ascend_msprof_argv("m", "o", "k", 101, 0, harness, &argv), -EINVAL);

        assert_int_equal(ascend_env_from_envp(base_env, &base), 0);
        /* msprof does not support ASCEND_RT_VISIBLE_DEVICES: the harness picks the device */
        assert_int_equal(ascend_run_env(base, "/c/vendor/vendors/customize", &run), 0);
        assert_null(ascend_env_get(run, "ASCEND_RT_VISIBLE_DEVICES"));
        assert_string_equal(ascend_env_get(run, "LD_LIBRARY_PATH"),
                            "/c/vendor/vendors/customize/op_api/lib:/toolkit/lib64");
        assert_string_equal(ascend_env_get(run, "ASCEND_CUSTOM_OPP_PATH"),
                            "/c/vendor/vendors/customize:/opt/other/vendors/x");
        assert_string_equal(ascend_env_get(base, "ASCEND_RT_VISIBLE_DEVICES"), "0,1");
        ascend_env_free(run);
        /* the build sees no installed custom package, and the compute unit */
        assert_int_equal(ascend_build_env(base, "ascend910b", &run), 0);
        assert_null(ascend_env_get(run, "ASCEND_CUSTOM_OPP_PATH"));
        assert_string_equal(ascend_env_get(run, "ASCEND_COMPUTE_UNIT"), "ascend910b");
        assert_string_equal(ascend_env_get(base, "ASCEND_CUSTOM_OPP_PATH"), "/opt/other/vendors/x");
        ascend_env_free(run);
        ascend_env_free(base);

        /* the package is looked for in build_out/, then build/ */
        pathf(path, sizeof(path), "%s/build", p.root);
        assert_int_equal(mkdir_p(path), 0);
        pathf(path, sizeof(path), "%s/build/CANN-custom_ops-0.1-linux.aarch64.run", p.root);
        write_file(path, "#!/bin/sh\n");
        assert_int_equal(ascend_find_package(&p, path, sizeof(path), err, sizeof(err)), 0);
        assert_contains(path, "/project/build/CANN-custom_ops-0.1-linux.aarch64.run");

        /* a bad SoC is refused with its name */
        assert_int_equal(ascend_project_materialise(m, NULL, NULL, fx->tmp, "910B4", "/opt/t", &p,
                                                    err, sizeof(err)),
                         -EINVAL);
        assert_contains(err, "SoC \"910B4\"");
        npu_manifest_free(m);
}

static void test_project_msopgen(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m;
        struct ascend_project p;
        struct ascend_argv argv = { 0 };
        char src[PATH_MAX], op[PATH_MAX], err[2048], path[PATH_MAX];
        json_t *desc;

        /* the operator alone, outside any repository */
        fixture_path(src, sizeof(src), "fake-cann/cann-ops/src/math/add_custom");
        pathf(op, sizeof(op), "%s/add_custom", fx->tmp);
        copy_tree_cmd(src, op);
        m = load_manifest(op);
        pathf(path, sizeof(path), "%s/scratch", fx->tmp);
        if (ascend_project_materialise(m, NULL, NULL, path, "Ascend910B4", "/opt/toolkit", &p, err,
                                       sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(p.kind, ASCEND_PROJECT_MSOPGEN);
        assert_contains(p.root, "/scratch/project/CustomOp");
        pathf(path, sizeof(path), "%s/scratch/project/op.json", fx->tmp);
        desc = json_load_file(path, 0, NULL);
        assert_non_null(desc);
        assert_string_equal(json_string_value(json_object_get(json_array_get(desc, 0), "op")),
                            "AddCustom");
        assert_int_equal(json_array_size(json_object_get(json_array_get(desc, 0), "input_desc")),
                         2);
        json_decref(desc);
        assert_int_equal(ascend_msopgen_argv(&p, "/t/msopgen", &argv), 0);
        assert_string_equal(argv.argv[1], "gen");
        assert_string_equal(argv.argv[5], "ai_core-Ascend910B4");
        assert_string_equal(argv.argv[9], p.root);
        ascend_argv_release(&argv);
        assert_int_equal(ascend_build_argv(&p, NULL, NULL, &argv), 0);
        assert_int_equal(argv.n, 2);
        ascend_argv_release(&argv);
        /* an explicit repository that is not one */
        assert_int_equal(ascend_project_materialise(m, fx->tmp, NULL, fx->tmp, "Ascend910B4",
                                                    "/opt/toolkit", &p, err, sizeof(err)),
                         -ENOENT);
        assert_contains(err, "not a cann-ops style repository");
        npu_manifest_free(m);
}

/* ------------------------------------------------------------ harness */

static void test_harness_generation(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        struct ascend_harness h = { 0 }, again = { 0 }, by_manifest = { 0 };
        char **order = NULL, err[1024], dir[PATH_MAX], cmd[4 * PATH_MAX], inc[PATH_MAX];
        const char *call;

        assert_int_equal(ascend_opdef_attr_order(m, &order), 0);
        assert_non_null(order[0]);
        assert_string_equal(order[0], "alpha");
        assert_string_equal(order[1], "round_mode");
        assert_null(order[2]);

        if (ascend_harness_generate(m, (const char *const *)order, &h, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(
            ascend_harness_generate(m, (const char *const *)order, &again, err, sizeof(err)), 0);
        assert_string_equal(h.main_cpp, again.main_cpp);
        assert_string_equal(h.cmakelists, again.cmakelists);
        assert_string_equal(h.target, "ascendopt_harness_add_custom");
        assert_contains(h.main_cpp, "#include \"aclnn_add_custom.h\"");
        assert_contains(h.main_cpp, "ascendopt-harness: op=AddCustom inputs=2 outputs=1 cases=2");
        /* inputs, attributes in OpDef order, outputs, then workspace and executor */
        call = strstr(h.main_cpp, "CHECK(aclnnAddCustomGetWorkspaceSize(");
        assert_non_null(call);
        assert_contains(call, "aclnnAddCustomGetWorkspaceSize(tensor[0], tensor[1], c.attr_alpha, "
                              "const_cast<char *>(c.attr_round_mode), tensor[2], \n");
        assert_contains(call, "&workspace_size, &executor));");
        assert_contains(h.main_cpp, "CHECK(aclnnAddCustom(workspace, workspace_size, executor, "
                                    "stream));");
        /* the order of the documented calls */
        assert_true(strstr(h.main_cpp, "aclInit(nullptr)") <
                    strstr(h.main_cpp, "aclrtSetDevice(static_cast<int32_t>(device_id))"));
        assert_true(strstr(h.main_cpp, "aclrtSetDevice(static_cast<int32_t>(device_id))") <
                    strstr(h.main_cpp, "aclrtCreateStream(&stream)"));
        assert_true(strstr(h.main_cpp, "aclCreateTensor(") < call);
        assert_true(call < strstr(h.main_cpp, "aclrtSynchronizeStream(stream)"));
        assert_true(strstr(h.main_cpp, "aclrtSynchronizeStream(stream)") <
                    strstr(h.main_cpp, "ACL_MEMCPY_DEVICE_TO_HOST"));
        /* per-case shapes and attributes; the case override of alpha */
        assert_contains(h.main_cpp,
                        "{ \"small\",\n          { 2, 2, 2 },\n          { { 8, 2048 }");
        assert_contains(h.main_cpp, "\"8192x8192\"");
        assert_contains(h.main_cpp, "2.5,\n          \"rint\" }");
        assert_contains(h.main_cpp, "{ \"x\", ACL_FLOAT16, 2 }");
        assert_contains(h.cmakelists, "add_executable(ascendopt_harness_add_custom main.cpp)");
        assert_contains(h.cmakelists, "cust_opapi ascendcl nnopbase");

        /* without the OpDef's order, the manifest's: a different call */
        assert_int_equal(ascend_harness_generate(m, NULL, &by_manifest, err, sizeof(err)), 0);
        assert_contains(by_manifest.main_cpp, "tensor[1], const_cast<char *>(c.attr_round_mode), "
                                              "c.attr_alpha, tensor[2]");

        /* it compiles against stub declarations of the documented API */
        pathf(dir, sizeof(dir), "%s/harness", fx->tmp);
        assert_int_equal(ascend_harness_write(&h, dir, err, sizeof(err)), 0);
        fixture_path(inc, sizeof(inc), "ascend/stub-include");
        if (system("command -v g++ >/dev/null 2>&1") == 0) {
                pathf(cmd, sizeof(cmd),
                      "g++ -std=c++17 -fsyntax-only -Wall -Werror -I'%s' '%s/main.cpp'", inc, dir);
                assert_int_equal(system(cmd), 0);
                /* and the manifest-ordered call does not match the OpDef's prototype */
                assert_int_equal(ascend_harness_write(&by_manifest, dir, err, sizeof(err)), 0);
                pathf(cmd, sizeof(cmd),
                      "g++ -std=c++17 -fsyntax-only -I'%s' '%s/main.cpp' 2>/dev/null", inc, dir);
                assert_int_not_equal(system(cmd), 0);
        }
        ascend_harness_release(&h);
        ascend_harness_release(&again);
        ascend_harness_release(&by_manifest);
        ascend_strv_free(order);
        npu_manifest_free(m);
}

static void expect_unsupported(struct fixture *fx, const char *manifest, int want, const char *msg)
{
        struct npu_manifest *m;
        struct ascend_harness h = { 0 };
        char op[PATH_MAX], path[PATH_MAX], err[1024] = "";

        pathf(op, sizeof(op), "%s/op", fx->tmp);
        rm_rf(op);
        pathf(path, sizeof(path), "%s/op_host", op);
        assert_int_equal(mkdir_p(path), 0);
        pathf(path, sizeof(path), "%s/op_kernel", op);
        assert_int_equal(mkdir_p(path), 0);
        pathf(path, sizeof(path), "%s/op_host/list_op.cpp", op);
        write_file(path, "// host\n");
        pathf(path, sizeof(path), "%s/op_kernel/list_op.cpp", op);
        write_file(path, "// kernel\n");
        pathf(path, sizeof(path), "%s/ascendopt.json", op);
        write_file(path, manifest);
        m = load_manifest(op);
        assert_int_equal(ascend_harness_generate(m, NULL, &h, err, sizeof(err)), want);
        assert_contains(err, msg);
        assert_null(h.main_cpp);
        npu_manifest_free(m);
}

static void test_harness_unsupported(void **state)
{
        struct fixture *fx = *state;

        expect_unsupported(fx,
                           "{\"name\": \"ListOp\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                           "\"float32\"}], \"outputs\": [{\"name\": \"y\", \"dtype\": "
                           "\"float32\"}], \"cases\": [{\"name\": \"c\", \"shapes\": {\"x\": "
                           "[[4], [8]], \"y\": [12]}}]}",
                           -ENOTSUP, ".cases[0].shapes.x: a dynamic list (aclTensorList) input");
        expect_unsupported(fx,
                           "{\"name\": \"ListOp\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                           "\"float32\"}], \"outputs\": [{\"name\": \"y\", \"dtype\": "
                           "\"float32\"}], \"attrs\": {\"axes\": [[0, 1]]}, \"cases\": "
                           "[{\"name\": \"c\", \"shapes\": {\"x\": [4]}}]}",
                           -ENOTSUP, ".cases[0].attrs.axes: the ascend harness supports");
        expect_unsupported(fx,
                           "{\"name\": \"ListOp\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                           "\"float32\"}], \"outputs\": [{\"name\": \"y\", \"dtype\": "
                           "\"float32\"}], \"attrs\": {\"k\": 1}, \"cases\": [{\"name\": \"c\", "
                           "\"shapes\": {\"x\": [4]}}, {\"name\": \"d\", \"shapes\": {\"x\": "
                           "[4]}, \"attrs\": {\"k\": \"one\"}}]}",
                           -EINVAL, ".cases[1].attrs.k: a different type than in .cases[0]");
        /* an in-place tensor, and an optional input left out: not generated yet */
        expect_unsupported(fx,
                           "{\"name\": \"ListOp\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                           "\"float32\"}], \"outputs\": [{\"name\": \"x\", \"dtype\": "
                           "\"float32\", \"ref\": true}], \"cases\": [{\"name\": \"c\", "
                           "\"shapes\": {\"x\": [4]}}]}",
                           -ENOTSUP, ".outputs[0]: x is a ref output (the input updated in place)");
        expect_unsupported(fx,
                           "{\"name\": \"ListOp\", \"inputs\": [{\"name\": \"x\", \"dtype\": "
                           "\"float32\"}, {\"name\": \"b\", \"dtype\": \"float32\"}], \"outputs\": "
                           "[{\"name\": \"y\", \"dtype\": \"float32\"}], \"cases\": [{\"name\": "
                           "\"c\", \"shapes\": {\"x\": [4], \"b\": null}}]}",
                           -ENOTSUP, ".cases[0].shapes.b: an absent optional input");
}

/* ------------------------------------------------------------ whole evaluations */

struct eval_outcome {
        int count;
        json_t *result;
};

static void on_eval(json_t *result, void *userdata)
{
        struct eval_outcome *o = userdata;

        o->count++;
        o->result = result;
}

static void write_inputs(struct fixture *fx, char paths[2][PATH_MAX])
{
        static const char *const names[] = { "x", "y" };

        for (size_t i = 0; i < 2; i++) {
                FILE *f;
                pathf(paths[i], PATH_MAX, "%s/%s.bin", fx->tmp, names[i]);
                f = fopen(paths[i], "wb");
                assert_non_null(f);
                /* case "small": 8 x 2048 halves */
                for (size_t k = 0; k < 8 * 2048; k++) {
                        uint16_t v = (uint16_t)(0x3c00 + (k * 7 + i) % 512);
                        fwrite(&v, sizeof(v), 1, f);
                }
                fclose(f);
        }
}

static json_t *evaluate(struct fixture *fx, const struct npu_manifest *m,
                        struct ascend_eval_options *options)
{
        struct eval_outcome o = { 0 };
        char toolkit[PATH_MAX], work[PATH_MAX];
        int r;

        fixture_path(toolkit, sizeof(toolkit), "fake-cann/ascend-toolkit/latest");
        if (!options->toolkit && !options->env)
                options->toolkit = toolkit;
        if (!options->third_lib_path)
                options->third_lib_path = fx->third_lib;
        pathf(work, sizeof(work), "%s/work", fx->tmp);
        if (!options->work_dir)
                options->work_dir = work;
        r = ascend_eval_start(fx->runner, m, options, on_eval, &o, NULL);
        if (r < 0)
                fail_msg("ascend_eval_start: %s", strerror(-r));
        run_until(fx->base, &o.count, 1, 60);
        assert_non_null(o.result);
        assert_string_equal(json_string_value(json_object_get(o.result, "backend")), "ascend");
        return o.result;
}

static const char *status_of(const json_t *result)
{
        return json_string_value(json_object_get(result, "status"));
}

static const char *message_of(const json_t *result)
{
        return json_string_value(json_object_get(json_object_get(result, "error"), "message"));
}

static void expect_status(const json_t *result, const char *status)
{
        if (strcmp(status_of(result), status) != 0)
                fail_msg("status %s, want %s: %s", status_of(result), status,
                         message_of(result) ? message_of(result) : "(no message)");
}

/*
 * Hand-written op_host/aclnn_*.h wrappers (69 of cann-ops' 260 operators):
 * called when their parameters follow the OpDef, under their own name,
 * else unsupported with the reason.
 */
static void test_harness_hand_written_wrapper(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m;
        struct ascend_harness h = { 0 };
        char dir[PATH_MAX], path[PATH_MAX], err[1024] = "";
        char **order = NULL;
        json_t *result;
        const char *input_list[3];
        char inputs[2][PATH_MAX];
        struct ascend_eval_options options = { .device = 0, .inputs = input_list };

        /* SubCustom's wrapper takes alpha as an aclScalar */
        pathf(dir, sizeof(dir), "%s/src/math/sub_custom", fx->repo);
        m = load_manifest(dir);
        assert_int_equal(ascend_opdef_attr_order(m, &order), 0);
        assert_int_equal(
            ascend_harness_generate(m, (const char *const *)order, &h, err, sizeof(err)), -ENOTSUP);
        assert_contains(err, "op_host/aclnn_sub_custom.h is a hand-written aclnn wrapper");
        assert_contains(err, "aclnnSubCustomGetWorkspaceSize takes an aclScalar "
                             "(const aclScalar *) as parameter 3");
        assert_contains(err, "puts a float");
        order = ascend_strv_free(order);
        /* and the evaluation says unsupported, not a compile error */
        write_inputs(fx, inputs);
        input_list[0] = inputs[0];
        input_list[1] = inputs[1];
        input_list[2] = NULL;
        result = evaluate(fx, m, &options);
        expect_status(result, "unsupported");
        json_decref(result);
        npu_manifest_free(m);

        /* AddCustom with a wrapper of its own that follows the OpDef, under another name */
        pathf(path, sizeof(path), "%s/src/math/add_custom/op_host/aclnn_add_v3.h", fx->repo);
        write_file(path, "/* hand-written */\n"
                         "aclnnStatus aclnnAddV3GetWorkspaceSize(const aclTensor *x,\n"
                         "    const aclTensor *y, float alpha, char *roundMode, // comment, x\n"
                         "    aclTensor *z, uint64_t *workspaceSize, aclOpExecutor **executor);\n"
                         "aclnnStatus aclnnAddV3(void *workspace, uint64_t size,\n"
                         "    aclOpExecutor *executor, aclrtStream stream);\n");
        m = fixture_manifest(fx);
        assert_int_equal(ascend_opdef_attr_order(m, &order), 0);
        if (ascend_harness_generate(m, (const char *const *)order, &h, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_contains(h.main_cpp, "#include \"aclnn_add_v3.h\"");
        assert_contains(h.main_cpp, "CHECK(aclnnAddV3GetWorkspaceSize(tensor[0], tensor[1], ");
        assert_contains(h.main_cpp, "CHECK(aclnnAddV3(workspace, workspace_size, executor, ");
        ascend_harness_release(&h);
        order = ascend_strv_free(order);
        npu_manifest_free(m);
}

static void test_eval_ok(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        char inputs[2][PATH_MAX], log[PATH_MAX], build_log[PATH_MAX], hex[SHA256_HEX_SIZE];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = {
                .device = 1, .inputs = input_list, .launch_count = 5, .seed = 42
        };
        const json_t *out;
        json_t *result;
        char *logged;
        FILE *f;
        uint8_t buf[65536], digest[SHA256_DIGEST_SIZE];
        struct sha256 sha;
        size_t n;

        write_inputs(fx, inputs);
        pathf(log, sizeof(log), "%s/msprof.log", fx->tmp);
        setenv("FAKE_MSPROF_LOG", log, 1);
        pathf(build_log, sizeof(build_log), "%s/build.log", fx->tmp);
        setenv("FAKE_BUILD_LOG", build_log, 1);
        setenv("ASCEND_CUSTOM_OPP_PATH", "/opt/someone-elses/vendors/x", 1);
        result = evaluate(fx, m, &options);
        unsetenv("ASCEND_CUSTOM_OPP_PATH");
        expect_status(result, "ok");
        /* build.sh built the one operator, with json from ascend.third_lib_path,
         * and saw no other custom package */
        logged = read_whole(build_log);
        assert_contains(logged, "argv: build.sh -n add_custom --third_lib_path ");
        assert_contains(logged, "/fake-cann/third-party\n");
        assert_contains(logged, "ASCEND_CUSTOM_OPP_PATH unset\n");
        assert_contains(logged, "ASCEND_COMPUTE_UNIT=ascend910b\n");
        free(logged);
        assert_string_equal(json_string_value(json_object_get(result, "platform")), "Ascend910B4");
        assert_int_equal(json_integer_value(json_object_get(result, "seed")), 42);
        assert_int_equal(json_integer_value(json_object_get(result, "device")), 1);
        assert_int_equal(json_array_size(json_object_get(result, "samples_us")), 11);
        assert_close(number_at(result, "latency_us", NULL, NULL), 268.8);
        assert_close(number_at(result, "iqr_us", NULL, NULL), 1.5);
        assert_int_equal(json_integer_value(json_object_get(result, "block_dim")), 48);
        assert_non_null(
            json_object_get(json_object_get(json_object_get(result, "profile"), "pipes"), "MTE2"));
        assert_non_null(json_object_get(result, "outputs_sha256"));
        /* the output the (fake) harness wrote, named and hashed */
        out = json_array_get(
            json_object_get(json_array_get(json_object_get(result, "cases"), 0), "outputs"), 0);
        assert_string_equal(json_string_value(json_object_get(out, "name")), "z");
        f = fopen(inputs[0], "rb");
        assert_non_null(f);
        sha256_init(&sha);
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                sha256_update(&sha, buf, n);
        fclose(f);
        sha256_final(&sha, digest);
        sha256_hex(digest, hex);
        assert_string_equal(json_string_value(json_object_get(out, "sha256")), hex);
        /* msprof ran the harness pinned to the device, on this candidate's package */
        f = fopen(log, "r");
        assert_non_null(f);
        logged = calloc(1, 8192);
        assert_non_null(logged);
        assert_true(fread(logged, 1, 8191, f) > 0);
        fclose(f);
        /* the kernel as CANN names it, <OpType>_<hash>_<key>, by prefix */
        assert_contains(logged, " --kernel-name=AddCustom_ --launch-count=5 ");
        /* the device chosen by the harness (aclrtSetDevice), not by the
         * variable msprof does not support */
        assert_contains(logged, "/work/harness/build/ascendopt_harness_add_custom 1 0 6 ");
        assert_contains(logged, "ASCEND_RT_VISIBLE_DEVICES unset\n");
        assert_contains(logged, "LD_LIBRARY_PATH=");
        assert_contains(logged, "/work/vendor/vendors/customize/op_api/lib:");
        assert_contains(logged, "ASCEND_CUSTOM_OPP_PATH=");
        free(logged);
        json_decref(result);
        npu_manifest_free(m);
}

static void test_eval_msopgen_and_preloaded_env(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m;
        struct env_outcome env;
        char inputs[2][PATH_MAX], src[PATH_MAX], op[PATH_MAX], set_env[PATH_MAX];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = { .device = 0, .inputs = input_list };
        json_t *result;

        fixture_path(src, sizeof(src), "fake-cann/cann-ops/src/math/add_custom");
        pathf(op, sizeof(op), "%s/add_custom", fx->tmp);
        copy_tree_cmd(src, op);
        m = load_manifest(op);
        write_inputs(fx, inputs);
        /* the environment loaded once and reused */
        fixture_path(set_env, sizeof(set_env), "fake-cann/ascend-toolkit/set_env.sh");
        load_env(fx, set_env, &env);
        if (env.r < 0)
                fail_msg("%s", env.message);
        options.env = env.env;
        options.soc = "Ascend910B2";
        result = evaluate(fx, m, &options);
        expect_status(result, "ok");
        assert_string_equal(json_string_value(json_object_get(result, "platform")), "Ascend910B2");
        /* msopgen's skeleton got the operator's sources, and kept its CMakeLists */
        assert_true(exists(fx->tmp, "work/project/CustomOp/op_kernel/add_custom.cpp"));
        assert_true(exists(fx->tmp, "work/project/CustomOp/op_host/add_custom_tiling.h"));
        assert_true(exists(fx->tmp, "work/project/CustomOp/op_host/CMakeLists.txt"));
        json_decref(result);
        ascend_env_free(env.env);
        npu_manifest_free(m);
}

static void test_eval_device_busy(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        char inputs[2][PATH_MAX], smi[PATH_MAX];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = { .device = 1, .inputs = input_list };
        json_t *result;

        write_inputs(fx, inputs);
        fixture_path(smi, sizeof(smi), "ascend/npu-smi/info-busy.txt");
        setenv("FAKE_NPU_SMI_INFO", smi, 1);
        result = evaluate(fx, m, &options);
        expect_status(result, "infra_error");
        assert_contains(message_of(result), "device 1 (NPU 1 chip 0) is busy: process 4242 "
                                            "(python3, 6352 MB) of someone else");
        json_decref(result);
        /* the other device is free */
        options.device = 0;
        options.work_dir = NULL;
        result = evaluate(fx, m, &options);
        expect_status(result, "ok");
        json_decref(result);
        /* a device npu-smi does not list */
        options.device = 5;
        result = evaluate(fx, m, &options);
        expect_status(result, "infra_error");
        assert_contains(message_of(result), "device 5 is not among the 2 NPUs");
        json_decref(result);
        npu_manifest_free(m);
}

static void test_eval_toolchain_missing(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        char inputs[2][PATH_MAX], bin[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = { .device = 0, .inputs = input_list };
        json_t *result;

        write_inputs(fx, inputs);
        options.toolkit = "/nonexistent/Ascend/ascend-toolkit/latest";
        result = evaluate(fx, m, &options);
        expect_status(result, "infra_error");
        assert_contains(message_of(result), "CANN toolkit not found");
        assert_contains(message_of(result), "/nonexistent/Ascend/ascend-toolkit/latest/set_env.sh");
        json_decref(result);

        /* a toolkit without msprof: the message names it and the PATH searched */
        pathf(bin, sizeof(bin), "%s/bin", fx->tmp);
        assert_int_equal(mkdir_p(bin), 0);
        static const char *const tools[] = { "npu-smi", "cmake" };
        for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
                fixture_path(target, sizeof(target), "fake-cann/bin");
                pathf(target + strlen(target), sizeof(target) - strlen(target), "/%s", tools[i]);
                pathf(link, sizeof(link), "%s/%s", bin, tools[i]);
                assert_int_equal(symlink(target, link), 0);
        }
        setenv("FAKE_CANN_BIN", bin, 1);
        options.toolkit = NULL;
        result = evaluate(fx, m, &options);
        expect_status(result, "infra_error");
        assert_contains(message_of(result), "toolchain incomplete: msprof not found in the toolkit "
                                            "environment's PATH (");
        assert_contains(message_of(result), bin);
        json_decref(result);
        npu_manifest_free(m);
}

static void test_eval_build_failure(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m;
        char inputs[2][PATH_MAX], src[PATH_MAX], repo[PATH_MAX], kernel[PATH_MAX];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = { .device = 0, .inputs = input_list };
        const json_t *error;
        json_t *result;
        FILE *f;

        fixture_path(src, sizeof(src), "fake-cann/cann-ops");
        pathf(repo, sizeof(repo), "%s/cann-ops", fx->tmp);
        copy_tree_cmd(src, repo);
        pathf(kernel, sizeof(kernel), "%s/src/math/add_custom/op_kernel/add_custom.cpp", repo);
        f = fopen(kernel, "a");
        assert_non_null(f);
        fputs("void broken()\n{\n        FAKE_COMPILE_ERROR;\n}\n", f);
        fclose(f);
        pathf(src, sizeof(src), "%s/src/math/add_custom", repo);
        m = load_manifest(src);
        write_inputs(fx, inputs);
        result = evaluate(fx, m, &options);
        expect_status(result, "compile_error");
        error = json_object_get(result, "error");
        assert_string_equal(json_string_value(json_object_get(error, "kind")), "compile_error");
        assert_contains(message_of(result), "build.sh exit 1:");
        assert_contains(message_of(result), "error: use of undeclared identifier "
                                            "'FAKE_COMPILE_ERROR'");
        assert_contains(json_string_value(json_object_get(error, "file")),
                        "/work/project/src/math/add_custom/op_kernel/add_custom.cpp");
        assert_int_equal(json_integer_value(json_object_get(error, "line")), 13);
        json_decref(result);
        npu_manifest_free(m);
}

static void test_eval_install_and_run_failures(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        char inputs[2][PATH_MAX];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = { .device = 0, .inputs = input_list };
        json_t *result;

        write_inputs(fx, inputs);
        setenv("FAKE_INSTALL_FAIL", "1", 1);
        result = evaluate(fx, m, &options);
        expect_status(result, "infra_error");
        assert_contains(message_of(result), "installing the .run package exit 1:");
        assert_contains(message_of(result), "No space left on device");
        json_decref(result);
        unsetenv("FAKE_INSTALL_FAIL");

        setenv("FAKE_HARNESS_FAIL", "1", 1);
        result = evaluate(fx, m, &options);
        expect_status(result, "runtime_error");
        assert_contains(message_of(result), "failed: error 161002: EZ1001");
        json_decref(result);
        unsetenv("FAKE_HARNESS_FAIL");

        /* bad requests start nothing */
        options.case_index = 7;
        assert_int_equal(ascend_eval_start(fx->runner, m, &options, on_eval, NULL, NULL), -EINVAL);
        npu_manifest_free(m);
}

static void test_eval_cancel(void **state)
{
        struct fixture *fx = *state;
        struct npu_manifest *m = fixture_manifest(fx);
        char inputs[2][PATH_MAX], toolkit[PATH_MAX];
        const char *input_list[] = { inputs[0], inputs[1], NULL };
        struct ascend_eval_options options = { .device = 0, .inputs = input_list };
        struct eval_outcome o = { 0 };
        struct ascend_eval *eval = NULL;

        write_inputs(fx, inputs);
        fixture_path(toolkit, sizeof(toolkit), "fake-cann/ascend-toolkit/latest");
        options.toolkit = toolkit;
        assert_int_equal(ascend_eval_start(fx->runner, m, &options, on_eval, &o, &eval), 0);
        ascend_eval_cancel(eval);
        run_until(fx->base, &o.count, 1, 30);
        expect_status(o.result, "infra_error");
        assert_string_equal(message_of(o.result), "cancelled");
        assert_int_equal(child_runner_running(fx->runner), 0);
        json_decref(o.result);
        ascend_eval_cancel(NULL);
        npu_manifest_free(m);
}

/* ------------------------------------------------------------ main */

static void find_fixtures(void)
{
        char exe[PATH_MAX], candidate[PATH_MAX + 32];
        const char *env = getenv("ASCENDOPT_FIXTURES");
        ssize_t n;

        if (env && realpath(env, fixtures))
                return;
        /* build/tests/unit/test_ascend -> tests/fixtures */
        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0) {
                exe[n] = '\0';
                *strrchr(exe, '/') = '\0';
                pathf(candidate, sizeof(candidate), "%s/../../../tests/fixtures", exe);
                if (realpath(candidate, fixtures))
                        return;
        }
        if (!realpath("tests/fixtures", fixtures)) {
                fprintf(stderr, "test_ascend: cannot find tests/fixtures\n");
                exit(1);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_device_list),
                cmocka_unit_test(test_npu_info),
                cmocka_unit_test(test_toolkit_find),
                cmocka_unit_test(test_env_parse_and_edit),
                cmocka_unit_test_setup_teardown(test_env_load, setup_runner, teardown_runner),
                cmocka_unit_test(test_csv),
                cmocka_unit_test(test_median_iqr),
                cmocka_unit_test(test_msprof_single_launch),
                cmocka_unit_test(test_msprof_many_launches),
                cmocka_unit_test(test_msprof_odd_files),
                cmocka_unit_test(test_msprof_errors),
                cmocka_unit_test(test_compute_unit),
                cmocka_unit_test_setup_teardown(test_project_own_build, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_project_msopgen, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_harness_generation, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_harness_unsupported, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_harness_hand_written_wrapper, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_ok, setup_runner, teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_msopgen_and_preloaded_env, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_device_busy, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_toolchain_missing, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_build_failure, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_install_and_run_failures, setup_runner,
                                                teardown_runner),
                cmocka_unit_test_setup_teardown(test_eval_cancel, setup_runner, teardown_runner),
        };
        char exe[PATH_MAX], helper[PATH_MAX + 32];
        ssize_t n;

        find_fixtures();
        /* run directly rather than by make check: the exec helper is in build/ */
        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (!getenv("ASCENDOPT_EXEC_HELPER") && n > 0) {
                exe[n] = '\0';
                *strrchr(exe, '/') = '\0';
                pathf(helper, sizeof(helper), "%s/../../ascendopt-exec", exe);
                if (access(helper, X_OK) == 0)
                        setenv("ASCENDOPT_EXEC_HELPER", helper, 1);
        }
        /* the tests name their toolkit; the caller's must not leak in */
        unsetenv("ASCEND_HOME_PATH");
        signal(SIGPIPE, SIG_IGN);
        return cmocka_run_group_tests_name("ascend", tests, NULL, NULL);
}
