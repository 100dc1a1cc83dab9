/* SPDX-License-Identifier: MIT */
/*
 * Shared by cli/doctor.c (the command, its report, the checks every
 * backend has) and cli/doctor-ascend.c (the ascend backend's checks).
 */
#ifndef ASCENDOPT_CLI_DOCTOR_INTERNAL_H
#define ASCENDOPT_CLI_DOCTOR_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "config/config.h"

#define DOCTOR_MAX_GROUPS 256

struct event_base;
struct child_runner;

enum doctor_status {
        DOCTOR_OK,
        DOCTOR_WARN,
        DOCTOR_FAIL,
};

struct doctor {
        /* what is checked */
        struct config *config;       /* the file's, or the defaults */
        char config_path[PATH_MAX];  /* "" when no file was read */
        enum config_backend backend; /* the config's, or --backend */
        struct config_unit *unit;    /* the installed system unit; NULL: none */
        /* the service user and every group it runs with */
        char user[256];
        uid_t uid;
        gid_t groups[DOCTOR_MAX_GROUPS];
        size_t n_groups;
        bool user_known; /* the name resolved; else uid and groups mean nothing */
        /* ascend: the devices whose nodes are checked; the first runs the trivial operator */
        int ids[CONFIG_MAX_DEVICES];
        size_t n_ids;
        bool device_given; /* --device */
        /* children (tools run to their end, one at a time) */
        struct event_base *base;
        struct child_runner *runner; /* NULL when ascendopt-exec is missing */
        /* the report */
        bool json;
        json_t *checks;
        size_t warnings, failures;
};

/*
 * Adds one check to the report and prints it at once as a line (unless
 * --json): status, name, the detail, and for a warning or a failure the
 * fix to apply (NULL: none).
 */
void doctor_report(struct doctor *d, const char *name, enum doctor_status status, const char *fix,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The config file read, or "the config" when none was. */
const char *doctor_config_name(const struct doctor *d);

/* A fix built from parts (a message longer than size is cut); returns buf. */
const char *doctor_fix(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* How a tool ended. */
struct doctor_tool {
        bool ok;       /* exit 0 */
        char *out;     /* its stdout (owned), "" when none */
        char how[384]; /* "exit 2: first line of stderr" when not ok */
};

/*
 * Runs argv (envp NULL: ours) to its end, unsandboxed, within timeout_s.
 * -errno when it could not be started; free t->out either way.
 */
int doctor_run_tool(struct doctor *d, const char *const *argv, const char *const *envp,
                    double timeout_s, struct doctor_tool *t);

/*
 * Whether the service user may access path with mode (R_OK, W_OK, X_OK);
 * reports nothing.  0 when it may; else why says what refuses it and fix
 * what to run: -ENOENT (or another stat error) when something is missing,
 * -EACCES when a directory above may not be searched or the user lacks a
 * group whose bits would do, -EPERM when the path's own bits refuse (fix
 * is then the caller's to choose).
 */
int doctor_user_access(const struct doctor *d, const char *path, int mode, char *why,
                       size_t why_size, char *fix, size_t fix_size);

/* The ascend backend's checks (cli/doctor-ascend.c). */
void doctor_check_ascend(struct doctor *d);

/* A "fleet" config's checks: Slurm, the partition, the GRES, the shared directory (cli/doctor-fleet.c). */
void doctor_check_fleet(struct doctor *d);

#endif
