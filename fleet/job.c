/* SPDX-License-Identifier: MIT */
/*
 * One fleet job on disk and on Slurm's command line: its name, its folder
 * under the shared directory, the script the node runs and the sbatch
 * arguments that submit it (docs/fleet.md, "One job").
 */
#include "fleet.h"

#include "common/common.h"
#include "config/config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fleet_job_name(uint64_t item_id, unsigned attempt, char *buf, size_t size)
{
        return format_path(buf, size, "ascendopt-%" PRIu64 "-%u", item_id, attempt);
}

int fleet_job_dir(const struct config_fleet *fleet, const char *name, char *buf, size_t size)
{
        return format_path(buf, size, "%s/jobs/%s", fleet->shared_dir, name);
}

/* s in single quotes, each ' written as '\'' */
static void put_quoted(struct strbuf *b, const char *s)
{
        strbuf_putn(b, "'", 1);
        for (; *s; s++) {
                if (*s == '\'')
                        strbuf_putn(b, "'\\''", 4);
                else
                        strbuf_putn(b, s, 1);
        }
        strbuf_putn(b, "'", 1);
}

int fleet_write_script(const char *dir, const char *const *argv, const char *device_env, char *err,
                       size_t err_size)
{
        struct strbuf b = { 0 };
        char path[PATH_MAX], *text;
        int r;

        strbuf_printf(&b, "#!/bin/sh\n"
                          "# Written by ascendoptd: one optimization episode of the fleet\n"
                          "# (docs/fleet.md).  Slurm runs it on a node with the shared folder.\n"
                          "set -u\n");
        if (device_env)
                strbuf_printf(&b,
                              "if [ -z \"${%s:-}\" ]; then\n"
                              "\techo \"ascendopt job: %s is not set: the site's TaskProlog "
                              "must export it from the GRES Slurm allocated (docs/fleet.md)\" >&2\n"
                              "\texit 78\n"
                              "fi\n",
                              device_env, device_env);
        /* where it runs, for the head's status: "<job id> <node>" */
        strbuf_printf(&b, "printf '%%s %%s\\n' \"${SLURM_JOB_ID:-}\" \"$(hostname -s)\" >");
        put_quoted(&b, dir);
        strbuf_printf(&b, "/node.tmp && mv -f ");
        put_quoted(&b, dir);
        strbuf_printf(&b, "/node.tmp ");
        put_quoted(&b, dir);
        strbuf_printf(&b, "/node\n");
        strbuf_printf(&b, "exec");
        for (size_t i = 0; argv[i]; i++) {
                if (i == FLEET_MAX_ARGS) {
                        strbuf_release(&b);
                        snprintf(err, err_size, "%s/job.sh: more than %d arguments", dir,
                                 FLEET_MAX_ARGS);
                        return -E2BIG;
                }
                strbuf_putn(&b, " ", 1);
                put_quoted(&b, argv[i]);
        }
        if (device_env)
                strbuf_printf(&b, " --device \"$%s\"", device_env);
        strbuf_putn(&b, "\n", 1);
        text = strbuf_detach(&b);
        r = text ? format_path(path, sizeof(path), "%s/job.sh", dir) : -ENOMEM;
        if (r == 0)
                r = write_file_atomic(path, text, strlen(text), 0755);
        if (r < 0)
                snprintf(err, err_size, "%s/job.sh: %s", dir, strerror(-r));
        free(text);
        return r;
}

void fleet_argv_free(char **argv)
{
        for (size_t i = 0; argv && argv[i]; i++)
                free(argv[i]);
        free(argv);
}

int fleet_sbatch_argv(const struct config_fleet *fleet, const char *sbatch, const char *name,
                      const char *dir, char ***ret_argv)
{
        char **argv = calloc(16, sizeof(*argv));
        size_t n = 0;
        int r = 0;

        if (!argv)
                return -ENOMEM;
#define ADD(...)                                                   \
        do {                                                       \
                if (r == 0 && asprintf(&argv[n], __VA_ARGS__) < 0) \
                        r = -ENOMEM;                               \
                else if (r == 0)                                   \
                        n++;                                       \
        } while (0)
        ADD("%s", sbatch);
        ADD("--parsable"); /* the job id alone on stdout */
        ADD("--wait");     /* exits when the job ends: what the head's child waits on */
        ADD("--job-name=%s", name);
        ADD("--chdir=%s", dir);
        ADD("--output=%s/slurm.out", dir);
        ADD("--gres=%s", fleet->gres);
        /* Slurm's --time takes minutes; never less than the limit asked for */
        ADD("--time=%.0f", ceil(fleet->time_limit_s / 60.0));
        if (fleet->partition)
                ADD("--partition=%s", fleet->partition);
        if (fleet->account)
                ADD("--account=%s", fleet->account);
        ADD("%s/job.sh", dir);
#undef ADD
        if (r < 0) {
                fleet_argv_free(argv);
                return r;
        }
        *ret_argv = argv;
        return 0;
}
