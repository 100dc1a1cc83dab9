/* SPDX-License-Identifier: MIT */
/*
 * What an operator's host code declares, asked of the code itself: its
 * op_host units are compiled for the simulator, linked with the runtime
 * and no kernel, and run with --describe, which prints every OpDef as
 * registered (inputs, outputs, dtypes, attributes and their defaults).
 * Running the OpDef's constructor reads what loops, variables and helper
 * functions build, which no reading of the source would.
 */
#include "sim-run.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS (16 + NPU_LAYOUT_MAX_DIRS)

enum describe_step { DESCRIBE_COMPILE, DESCRIBE_LINK, DESCRIBE_RUN };

struct npu_describe {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;
        char opdir[PATH_MAX];
        char work_dir[PATH_MAX];
        double timeout_s;
        struct npu_op_layout *layout;
        size_t next_unit;
        enum describe_step step;
        struct child *child; /* the step in flight; NULL while its callback runs */
        npu_describe_done_fn done;
        void *userdata;
};

static void describe_free(struct npu_describe *d)
{
        npu_op_layout_free(d->layout);
        free(d);
}

/* A unit's name for messages: relative to the operator, else to its repository. */
static const char *unit_name(const struct npu_describe *d, size_t u)
{
        const char *path = d->layout->host_units[u];
        size_t n = strlen(d->layout->op_dir), m = strlen(d->layout->repo_root);

        if (strncmp(path, d->layout->op_dir, n) == 0 && path[n] == '/')
                return path + n + 1;
        if (strncmp(path, d->layout->repo_root, m) == 0 && path[m] == '/')
                return path + m + 1;
        return path;
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
        /* the operator's code runs sandboxed, seeing its repository and the simulator read-only */
        const char *ro_paths[] = { npu_op_layout_uses_repo(d->layout) ? d->layout->repo_root
                                                                      : d->layout->op_dir,
                                   d->paths->root, d->paths->include_dir, d->paths->platforms_dir,
                                   NULL };
        struct child_spec spec = {
                .argv = argv,
                .cwd = d->work_dir,
                .sandbox_dir = d->work_dir,
                .sandbox_ro_paths = ro_paths,
                .timeout_s = d->timeout_s,
                .output_cap = 256 * 1024,
                .throttled = d->step != DESCRIBE_RUN,
                .nice = d->step != DESCRIBE_RUN ? NPU_COMPILE_NICE : 0,
        };

        return child_start(d->runner, &spec, on_child_done, d, &d->child);
}

/* Compiles the next op_host unit as the evaluator does, with the host prelude forced in. */
static int start_compile(struct npu_describe *d)
{
        char include[4 + NPU_LAYOUT_MAX_DIRS][PATH_MAX + 2], source[PATH_MAX], object[PATH_MAX];
        const char *argv[MAX_ARGS];
        size_t n = 0, u = d->next_unit++, inc = 4;

        for (size_t i = 0; i < NPU_SIM_COMPILE_FLAGS; i++)
                argv[n++] = npu_sim_host_compile_flags[i];
        if (format_path(include[0], PATH_MAX, "-I%s", d->paths->include_dir) < 0 ||
            format_path(include[1], PATH_MAX, "-I%s/op_host", d->opdir) < 0 ||
            format_path(include[2], PATH_MAX, "-I%s/op_kernel", d->opdir) < 0 ||
            format_path(include[3], PATH_MAX, "-I%s", d->opdir) < 0)
                return -ENAMETOOLONG;
        for (size_t i = 0; i < d->layout->n_host_includes; i++)
                snprintf(include[inc++], sizeof(include[0]), "-I%s", d->layout->host_includes[i]);
        for (size_t i = 0; i < inc; i++)
                argv[n++] = include[i];
        argv[n++] = "-include";
        argv[n++] = "ascendsim/host_prelude.h";
        if (format_path(source, sizeof(source), "%s", d->layout->host_units[u]) < 0 ||
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
        char objects[NPU_LAYOUT_MAX_UNITS][PATH_MAX], libdir[PATH_MAX], program[PATH_MAX];
        const char *argv[NPU_LAYOUT_MAX_UNITS + 12];
        size_t n = 0;

        argv[n++] = "g++";
        for (size_t u = 0; u < d->layout->n_host_units; u++) {
                if (format_path(objects[u], PATH_MAX, "%s/host_%zu.o", d->work_dir, u) < 0)
                        return -ENAMETOOLONG;
                argv[n++] = objects[u];
        }
        if (format_path(libdir, sizeof(libdir), "-L%s", d->paths->root) < 0)
                return -ENAMETOOLONG;
        argv[n++] = libdir;
        argv[n++] = "-lascendsim";
        /* a real build links the OpDef, tiling and proto units into separate
         * libraries, so a non-inline function defined in a header they share
         * is no conflict there; here they are one program */
        argv[n++] = "-Wl,--allow-multiple-definition";
        argv[n++] = "-ljansson";
        argv[n++] = "-lm";
        if (format_path(program, sizeof(program), "%s/describe", d->work_dir) < 0)
                return -ENAMETOOLONG;
        argv[n++] = "-o";
        argv[n++] = program;
        argv[n] = NULL;
        return start(d, argv);
}

static int start_run(struct npu_describe *d)
{
        char program[PATH_MAX];
        const char *argv[] = { program, "--describe", NULL };

        if (format_path(program, sizeof(program), "%s/describe", d->work_dir) < 0)
                return -ENAMETOOLONG;
        return start(d, argv);
}

/*
 * The first line of a compiler's complaint, for one line of message; of a
 * linker's, the first symbol it could not resolve or found twice (its
 * "error:" line only says that it failed).
 */
static const char *first_error(const struct child_result *r, char *buf, size_t size)
{
        const char *text = r->err.data ? r->err.data : "";
        const char *e = strstr(text, "undefined reference");

        if (!e)
                e = strstr(text, "multiple definition");
        if (!e)
                e = strstr(text, "error:");

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

        d->child = NULL;
        if (r->cancelled) {
                finish(d, NULL, "cancelled");
                return;
        }
        if (r->exit_code != 0 || r->timed_out) {
                if (d->step == DESCRIBE_COMPILE)
                        finish(d, NULL, "%s does not compile for the simulator: %s",
                               unit_name(d, d->next_unit - 1), first_error(r, why, sizeof(why)));
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
                if (d->next_unit < d->layout->n_host_units) {
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
                finish(d, NULL, "cannot start the next step: %s", child_strerror(rc));
}

void npu_sim_describe_cancel(struct npu_describe *d)
{
        if (d)
                child_cancel(d->child);
}

int npu_sim_describe_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                           const char *opdir, const char *work_dir, double timeout_s,
                           npu_describe_done_fn done, void *userdata,
                           struct npu_describe **ret_describe)
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
        r = npu_op_layout_read(d->opdir, NULL, &d->layout, NULL, 0);
        if (r == 0)
                r = start_compile(d);
        if (r < 0) {
                describe_free(d);
                return r;
        }
        if (ret_describe)
                *ret_describe = d;
        return 0;
}
