/* SPDX-License-Identifier: MIT */
/*
 * Which lines of an operator's host code its cases run: one simulator run
 * (npu/sim-run.c) with the op_host units built under gcov's
 * instrumentation and no kernel, each case stopping after its tiling
 * function, then gcov on each unit's counts (sandboxed, like every child
 * that reads what operator code wrote).  Lines are reported per file of
 * the operator, relative to its folder: the ones that ran in some case and
 * the ones that hold code no case ran.
 */
#include "sim-run.h"

#include "common/common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GCOV_OUTPUT_MAX (16u << 20) /* one unit's JSON, the operator's own files only */
#define FILES_MAX       64
#define LINES_MAX       200000

/* One file's lines: 0 no code, 1 code no case ran, 2 ran. */
struct covered_file {
        char *rel;
        unsigned char *state;
        size_t n;
};

struct npu_sim_coverage {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;
        const struct npu_manifest *manifest;
        struct npu_sim_run_options options;
        struct npu_op_layout *layout;
        char work_dir[PATH_MAX];
        struct npu_sim_run *run;
        struct child *gcov;
        size_t next_unit;
        bool cancelled;
        struct covered_file files[FILES_MAX];
        size_t n_files;
        npu_coverage_done_fn done;
        void *userdata;
};

static void coverage_free(struct npu_sim_coverage *c)
{
        for (size_t i = 0; i < c->n_files; i++) {
                free(c->files[i].rel);
                free(c->files[i].state);
        }
        npu_op_layout_free(c->layout);
        free(c);
}

static json_t *lines_json(const struct covered_file *f, unsigned char state)
{
        json_t *a = json_array();

        for (size_t line = 1; a && line < f->n; line++)
                if (f->state[line] == state &&
                    json_array_append_new(a, json_integer((json_int_t)line)) < 0) {
                        json_decref(a);
                        return NULL;
                }
        return a;
}

static void finish(struct npu_sim_coverage *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Hands the coverage, or with fmt the error, to the callback and frees c. */
static void finish(struct npu_sim_coverage *c, const char *fmt, ...)
{
        char message[1024];
        json_t *coverage = NULL;
        va_list ap;

        if (!fmt) {
                coverage = json_object();
                for (size_t i = 0; coverage && i < c->n_files; i++) {
                        json_t *ran = lines_json(&c->files[i], 2);
                        json_t *not_ran = lines_json(&c->files[i], 1);
                        if (!ran || !not_ran ||
                            json_object_set_new(
                                coverage, c->files[i].rel,
                                json_pack("{s:o, s:o}", "ran", ran, "not_ran", not_ran)) < 0) {
                                json_decref(coverage);
                                coverage = NULL;
                        }
                }
                if (!coverage)
                        fmt = "out of memory";
        }
        if (fmt) {
                va_start(ap, fmt);
                vsnprintf(message, sizeof(message), fmt, ap);
                va_end(ap);
        }
        c->done(coverage, coverage ? NULL : message, c->userdata);
        coverage_free(c);
}

static struct covered_file *file_named(struct npu_sim_coverage *c, const char *rel)
{
        for (size_t i = 0; i < c->n_files; i++)
                if (strcmp(c->files[i].rel, rel) == 0)
                        return &c->files[i];
        if (c->n_files == FILES_MAX)
                return NULL;
        c->files[c->n_files].rel = strdup(rel);
        return c->files[c->n_files].rel ? &c->files[c->n_files++] : NULL;
}

/* Marks a line; a line that ran in any unit ran. */
static int mark(struct covered_file *f, size_t line, bool ran)
{
        unsigned char state = ran ? 2 : 1;

        if (line == 0 || line >= LINES_MAX)
                return 0;
        if (line >= f->n) {
                size_t n = line + 256;
                unsigned char *grown = realloc(f->state, n);
                if (!grown)
                        return -ENOMEM;
                memset(grown + f->n, 0, n - f->n);
                f->state = grown;
                f->n = n;
        }
        if (f->state[line] < state)
                f->state[line] = state;
        return 0;
}

/* Reads one unit's gcov JSON into the files of the operator's folder. */
static int take_gcov_json(struct npu_sim_coverage *c, const char *text, size_t len)
{
        size_t dir_len = strlen(c->manifest->dir), i, j;
        json_t *root = json_loadb(text, len, 0, NULL), *file, *line;
        int r = 0;

        if (!json_is_object(root)) {
                json_decref(root);
                return -EBADMSG;
        }
        json_array_foreach(json_object_get(root, "files"), i, file)
        {
                const char *path = json_string_value(json_object_get(file, "file"));
                struct covered_file *f;
                if (!path || strncmp(path, c->manifest->dir, dir_len) != 0 || path[dir_len] != '/')
                        continue;
                f = file_named(c, path + dir_len + 1);
                if (!f)
                        continue; /* past FILES_MAX: those lines are simply not known */
                json_array_foreach(json_object_get(file, "lines"), j, line)
                {
                        json_int_t number =
                            json_integer_value(json_object_get(line, "line_number"));
                        json_int_t count = json_integer_value(json_object_get(line, "count"));
                        if (number > 0 && (r = mark(f, (size_t)number, count > 0)) < 0)
                                break;
                }
                if (r < 0)
                        break;
        }
        json_decref(root);
        return r;
}

static void on_gcov_done(const struct child_result *r, void *userdata);

/* gcov on the next unit's counts, in the work directory, sandboxed. */
static int start_gcov(struct npu_sim_coverage *c)
{
        const char *ro_paths[] = { npu_op_layout_uses_repo(c->layout) ? c->layout->repo_root
                                                                      : c->manifest->dir,
                                   NULL };
        char object[64];
        const char *argv[] = {
                "gcov",           "--json-format", "--stdout", "--relative-only", "--source-prefix",
                c->manifest->dir, object,          NULL
        };
        struct child_spec spec = {
                .argv = argv,
                .cwd = c->work_dir,
                .limits = child_limits_or_defaults(c->options.limits),
                .timeout_s = c->options.timeout_s > 0 ? c->options.timeout_s : 120,
                .output_cap = GCOV_OUTPUT_MAX,
                .sandbox_dir = c->options.sandbox ? c->work_dir : NULL,
                .sandbox_ro_paths = ro_paths,
                .throttled = true,
                .nice = NPU_COMPILE_NICE,
        };

        snprintf(object, sizeof(object), "host_%zu.o", c->next_unit++);
        return child_start(c->runner, &spec, on_gcov_done, c, &c->gcov);
}

static void on_gcov_done(const struct child_result *r, void *userdata)
{
        struct npu_sim_coverage *c = userdata;
        char what[128];
        int rc;

        c->gcov = NULL;
        if (r->cancelled || c->cancelled) {
                finish(c, "cancelled");
                return;
        }
        /* gcov says 1 when a unit has no counts (its code never ran): its lines are none */
        if (r->timed_out || r->signal || r->out.truncated || !r->out.data) {
                finish(c, "gcov %s on host_%zu.o: %.300s",
                       child_result_describe(r, what, sizeof(what)), c->next_unit - 1,
                       r->err.data ? r->err.data : "");
                return;
        }
        rc = take_gcov_json(c, r->out.data, r->out.len);
        if (rc < 0) {
                finish(c, "gcov printed no coverage for host_%zu.o (%s): %.300s", c->next_unit - 1,
                       strerror(-rc), r->err.data ? r->err.data : "");
                return;
        }
        if (c->next_unit >= c->layout->n_host_units) {
                finish(c, NULL);
                return;
        }
        rc = start_gcov(c);
        if (rc < 0)
                finish(c, "cannot start gcov: %s", child_strerror(rc));
}

static void on_run_done(json_t *result, void *userdata)
{
        struct npu_sim_coverage *c = userdata;
        const char *status = json_string_value(json_object_get(result, "status"));
        const char *message =
            json_string_value(json_object_get(json_object_get(result, "error"), "message"));
        int r;

        c->run = NULL;
        if (c->cancelled) {
                json_decref(result);
                finish(c, "cancelled");
                return;
        }
        if (!status || strcmp(status, "ok") != 0) {
                finish(c, "the host code built for coverage: %s: %.600s", status ? status : "?",
                       message ? message : "no message");
                json_decref(result);
                return;
        }
        json_decref(result);
        if (c->layout->n_host_units == 0) {
                finish(c, NULL);
                return;
        }
        r = start_gcov(c);
        if (r < 0)
                finish(c, "cannot start gcov: %s", child_strerror(r));
}

int npu_sim_coverage_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                           const struct npu_manifest *manifest,
                           const struct npu_sim_run_options *run_options, const char *work_dir,
                           npu_coverage_done_fn done, void *userdata, struct npu_sim_coverage **ret)
{
        struct npu_sim_coverage *c;
        int r;

        if (!runner || !paths || !manifest || !run_options || !work_dir || !done)
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->runner = runner;
        c->paths = paths;
        c->manifest = manifest;
        c->done = done;
        c->userdata = userdata;
        c->options = *run_options;
        r = format_path(c->work_dir, sizeof(c->work_dir), "%s", work_dir);
        if (r == 0)
                r = mkdir_p(c->work_dir);
        if (r == 0)
                r = npu_op_layout_read(manifest->dir, NULL, &c->layout, NULL, 0);
        if (r < 0) {
                coverage_free(c);
                return r;
        }
        c->options.work_dir = c->work_dir;
        c->options.keep_work_dir = true;
        c->options.host_coverage = true;
        c->options.cache_dir = NULL; /* an instrumented object names where its counts go */
        c->options.build_prelude = false;
        c->options.layout = c->layout;
        c->options.only_case = -1;
        c->options.skip_bench = false;
        c->options.build_only = false;
        c->options.trace_path = NULL;
        c->options.slow_after_us = 0;
        c->options.jitter_pct = 0;
        /* run_options->input_files stays: an example's inputs, copied into work_dir */
        r = npu_sim_run_start(runner, paths, manifest, &c->options, on_run_done, c, &c->run);
        if (r < 0) {
                coverage_free(c);
                return r;
        }
        if (ret)
                *ret = c;
        return 0;
}

void npu_sim_coverage_cancel(struct npu_sim_coverage *c)
{
        if (!c)
                return;
        c->cancelled = true;
        if (c->run)
                npu_sim_run_cancel(c->run);
        if (c->gcov)
                child_cancel(c->gcov);
}
