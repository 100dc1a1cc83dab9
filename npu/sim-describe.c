/* SPDX-License-Identifier: MIT */
/*
 * What an operator's host code declares, asked of the code itself: its
 * op_host units are compiled for the simulator, linked with the runtime
 * and no kernel, and run with --describe, which prints every OpDef as
 * registered (inputs, outputs, dtypes, attributes and their defaults).
 * Running the OpDef's constructor reads what loops, variables and helper
 * functions build, which no reading of the source would.
 */
#include "npu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOST_UNITS 64
#define MAX_ARGS       48

enum describe_step { DESCRIBE_COMPILE, DESCRIBE_LINK, DESCRIBE_RUN };

struct npu_describe {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;
        char opdir[PATH_MAX];
        char work_dir[PATH_MAX];
        double timeout_s;
        char *units[MAX_HOST_UNITS];
        size_t n_units, next_unit;
        enum describe_step step;
        npu_describe_done_fn done;
        void *userdata;
};

static void describe_free(struct npu_describe *d)
{
        for (size_t i = 0; i < d->n_units; i++)
                free(d->units[i]);
        free(d);
}

static void finish(struct npu_describe *d, json_t *description, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void finish(struct npu_describe *d, json_t *description, const char *fmt, ...)
{
        char message[2048] = "";
        va_list ap;

        if (fmt) {
                va_start(ap, fmt);
                vsnprintf(message, sizeof(message), fmt, ap);
                va_end(ap);
        }
        d->done(description, description ? NULL : message, d->userdata);
        describe_free(d);
}

static void on_child_done(const struct child_result *r, void *userdata);

static int start(struct npu_describe *d, const char *const *argv)
{
        struct child_spec spec = {
                .argv = argv,
                .cwd = d->work_dir,
                .timeout_s = d->timeout_s,
                .output_cap = 256 * 1024,
                .throttled = d->step != DESCRIBE_RUN,
                .nice = d->step != DESCRIBE_RUN ? NPU_COMPILE_NICE : 0,
        };

        return child_start(d->runner, &spec, on_child_done, d, NULL);
}

/* Compiles the next op_host unit as the evaluator does, with the host prelude forced in. */
static int start_compile(struct npu_describe *d)
{
        char include[4][PATH_MAX], source[PATH_MAX], object[PATH_MAX];
        const char *argv[MAX_ARGS];
        size_t n = 0, u = d->next_unit++;

        for (size_t i = 0; i < NPU_SIM_COMPILE_FLAGS; i++)
                argv[n++] = npu_sim_host_compile_flags[i];
        if (format_path(include[0], PATH_MAX, "-I%s", d->paths->include_dir) < 0 ||
            format_path(include[1], PATH_MAX, "-I%s/op_host", d->opdir) < 0 ||
            format_path(include[2], PATH_MAX, "-I%s/op_kernel", d->opdir) < 0 ||
            format_path(include[3], PATH_MAX, "-I%s", d->opdir) < 0)
                return -ENAMETOOLONG;
        for (size_t i = 0; i < 4; i++)
                argv[n++] = include[i];
        argv[n++] = "-include";
        argv[n++] = "ascendsim/host_prelude.h";
        if (format_path(source, sizeof(source), "%s/op_host/%s", d->opdir, d->units[u]) < 0 ||
            format_path(object, sizeof(object), "%s/host_%zu.o", d->work_dir, u) < 0)
                return -ENAMETOOLONG;
        argv[n++] = "-c";
        argv[n++] = source;
        argv[n++] = "-o";
        argv[n++] = object;
        argv[n] = NULL;
        return start(d, argv);
}

static int start_link(struct npu_describe *d)
{
        char objects[MAX_HOST_UNITS][PATH_MAX], libdir[PATH_MAX], program[PATH_MAX];
        const char *argv[MAX_HOST_UNITS + 12];
        size_t n = 0;

        argv[n++] = "g++";
        for (size_t u = 0; u < d->n_units; u++) {
                format_path(objects[u], PATH_MAX, "%s/host_%zu.o", d->work_dir, u);
                argv[n++] = objects[u];
        }
        if (format_path(libdir, sizeof(libdir), "-L%s", d->paths->root) < 0)
                return -ENAMETOOLONG;
        argv[n++] = libdir;
        argv[n++] = "-lascendsim";
        argv[n++] = "-ljansson";
        argv[n++] = "-lm";
        format_path(program, sizeof(program), "%s/describe", d->work_dir);
        argv[n++] = "-o";
        argv[n++] = program;
        argv[n] = NULL;
        return start(d, argv);
}

static int start_run(struct npu_describe *d)
{
        char program[PATH_MAX];
        const char *argv[] = { program, "--describe", NULL };

        format_path(program, sizeof(program), "%s/describe", d->work_dir);
        return start(d, argv);
}

/* The first lines of a compiler's complaint, for one line of message. */
static const char *first_error(const struct child_result *r, char *buf, size_t size)
{
        const char *text = r->err.data ? r->err.data : "";
        const char *e = strstr(text, "error:");

        snprintf(buf, size, "%.400s", e ? e : text);
        buf[strcspn(buf, "\n")] = '\0';
        return buf;
}

static void on_child_done(const struct child_result *r, void *userdata)
{
        struct npu_describe *d = userdata;
        char what[128], why[512];
        json_error_t jerr;
        json_t *description;
        int rc = 0;

        if (r->cancelled) {
                finish(d, NULL, "cancelled");
                return;
        }
        if (r->exit_code != 0 || r->timed_out) {
                if (d->step == DESCRIBE_COMPILE)
                        finish(d, NULL, "op_host/%s does not compile for the simulator: %s",
                               d->units[d->next_unit - 1], first_error(r, why, sizeof(why)));
                else if (d->step == DESCRIBE_LINK)
                        finish(d, NULL, "op_host does not link with the simulator's runtime: %s",
                               first_error(r, why, sizeof(why)));
                else
                        finish(d, NULL,
                               "the operator's host code failed while registering: %s%s%.300s",
                               child_result_describe(r, what, sizeof(what)), r->err.len ? ": " : "",
                               r->err.data ? r->err.data : "");
                return;
        }
        switch (d->step) {
        case DESCRIBE_COMPILE:
                if (d->next_unit < d->n_units) {
                        rc = start_compile(d);
                } else {
                        d->step = DESCRIBE_LINK;
                        rc = start_link(d);
                }
                break;
        case DESCRIBE_LINK:
                d->step = DESCRIBE_RUN;
                rc = start_run(d);
                break;
        case DESCRIBE_RUN:
                description = json_loadb(r->out.data ? r->out.data : "", r->out.len, 0, &jerr);
                if (!json_is_object(description)) {
                        json_decref(description);
                        finish(d, NULL, "the operator's --describe printed no JSON object: %s",
                               jerr.text);
                } else {
                        finish(d, description, NULL);
                }
                return;
        }
        if (rc < 0)
                finish(d, NULL, "cannot start the next step: %s", strerror(-rc));
}

static int compare_units(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* op_host's C++ sources, sorted. */
static int list_units(struct npu_describe *d)
{
        char dir[PATH_MAX];
        struct dirent *e;
        DIR *h;

        if (format_path(dir, sizeof(dir), "%s/op_host", d->opdir) < 0)
                return -ENAMETOOLONG;
        h = opendir(dir);
        if (!h)
                return -errno;
        while ((e = readdir(h))) {
                size_t len = strlen(e->d_name);
                if (len < 5 || (strcmp(e->d_name + len - 4, ".cpp") != 0 &&
                                strcmp(e->d_name + len - 3, ".cc") != 0))
                        continue;
                if (d->n_units == MAX_HOST_UNITS) {
                        closedir(h);
                        return -E2BIG;
                }
                d->units[d->n_units] = strdup(e->d_name);
                if (!d->units[d->n_units++]) {
                        closedir(h);
                        return -ENOMEM;
                }
        }
        closedir(h);
        qsort(d->units, d->n_units, sizeof(*d->units), compare_units);
        return d->n_units ? 0 : -ENOENT;
}

int npu_sim_describe_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                           const char *opdir, const char *work_dir, double timeout_s,
                           npu_describe_done_fn done, void *userdata)
{
        struct npu_describe *d = calloc(1, sizeof(*d));
        int r;

        if (!d)
                return -ENOMEM;
        d->runner = runner;
        d->paths = paths;
        d->timeout_s = timeout_s > 0 ? timeout_s : 120;
        d->done = done;
        d->userdata = userdata;
        if (!realpath(opdir, d->opdir) ||
            format_path(d->work_dir, sizeof(d->work_dir), "%s", work_dir) < 0) {
                r = -errno ? -errno : -ENAMETOOLONG;
                describe_free(d);
                return r;
        }
        r = list_units(d);
        if (r == 0)
                r = start_compile(d);
        if (r < 0)
                describe_free(d);
        return r;
}
