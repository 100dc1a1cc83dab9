/* SPDX-License-Identifier: MIT */
/*
 * ascendopt doctor's checks of a "fleet" config (docs/fleet.md): that
 * Slurm answers, that the partition exists and is up, that its nodes
 * offer the GRES an episode asks for, and that the shared directory is
 * there for the service user to write.
 */
#include "cli-internal.h"
#include "doctor-internal.h"

#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLURM_TIMEOUT_S 30

/* name and count of a GRES request or offer, "npu:1", "npu:910b:8(S:0-1)"; false when not one */
static bool gres_parse(const char *s, size_t len, char *name, size_t name_size, long *count)
{
        const char *colon = memchr(s, ':', len), *last = colon, *p;
        char *end;

        if (!colon || (size_t)(colon - s) >= name_size)
                return false;
        memcpy(name, s, (size_t)(colon - s));
        name[colon - s] = '\0';
        for (p = colon; p && p < s + len; p = memchr(p + 1, ':', (size_t)(s + len - p - 1)))
                last = p;
        *count = strtol(last + 1, &end, 10);
        return end > last + 1 && *count > 0;
}

/* How many of name one node of the partition offers at most, from sinfo's %G ("npu:8,gpu:2"). */
static long gres_offered(const char *offer, const char *name)
{
        long best = 0;

        for (const char *s = offer; *s;) {
                size_t len = strcspn(s, ",\n");
                char have[64];
                long n;
                if (gres_parse(s, len, have, sizeof(have), &n) && strcmp(have, name) == 0 &&
                    n > best)
                        best = n;
                s += len + (s[len] ? 1 : 0);
        }
        return best;
}

static void check_shared_dir(struct doctor *d, const struct config_fleet *f)
{
        char why[512], fix[512];

        if (doctor_user_access(d, f->shared_dir, W_OK | X_OK, why, sizeof(why), fix, sizeof(fix)) <
            0) {
                doctor_report(d, "fleet shared_dir", DOCTOR_FAIL,
                              fix[0] ? fix
                                     : doctor_fix(fix, sizeof(fix),
                                                  "make %s, mounted at that path on every node, "
                                                  "writable by %s",
                                                  f->shared_dir, d->user),
                              "%s", why);
                return;
        }
        doctor_report(d, "fleet shared_dir", DOCTOR_OK, NULL,
                      "%s: writable by %s (every node must mount it at this path)", f->shared_dir,
                      d->user);
}

void doctor_check_fleet(struct doctor *d)
{
        const struct config_fleet *f = &d->config->fleet;
        const char *version_argv[] = { "sinfo", "--version", NULL };
        const char *partition_argv[] = { "sinfo", "-h", "-o", "%P|%a|%G", NULL, NULL, NULL };
        struct doctor_tool t = { 0 };
        char want[64], fix[512], line[512] = "", name[128] = "";
        long count = 0, offered = 0;
        bool up = false;

        doctor_report(d, "fleet", DOCTOR_WARN,
                      "remove .fleet to run episodes on this machine's devices meanwhile",
                      "ascendoptd does not submit episodes as Slurm jobs yet, and refuses .fleet "
                      "(docs/fleet.md); the checks below say whether the cluster is ready");
        check_shared_dir(d, f);
        if (doctor_run_tool(d, version_argv, NULL, SLURM_TIMEOUT_S, &t) < 0 || !t.ok) {
                doctor_report(d, "slurm", DOCTOR_FAIL,
                              "install slurm-client, and set SLURM_CONF if slurm.conf is not in "
                              "/etc/slurm",
                              "sinfo --version: %s", t.out ? t.how : "not found");
                free(t.out);
                return;
        }
        doctor_report(d, "slurm", DOCTOR_OK, NULL, "%.*s", (int)strcspn(t.out, "\n"), t.out);
        free(t.out);

        if (f->partition) {
                partition_argv[4] = "-p";
                partition_argv[5] = f->partition;
        }
        if (doctor_run_tool(d, partition_argv, NULL, SLURM_TIMEOUT_S, &t) < 0 || !t.ok) {
                doctor_report(d, "slurm partition", DOCTOR_FAIL,
                              "check that slurmctld runs and answers: 'sinfo'", "sinfo: %s",
                              t.out ? t.how : "could not run");
                free(t.out);
                return;
        }
        /* the partition asked for, or the default one (sinfo marks it with '*') */
        for (const char *s = t.out; *s && !name[0];) {
                size_t len = strcspn(s, "\n");
                snprintf(line, sizeof(line), "%.*s", (int)len, s);
                if (f->partition || memchr(s, '*', len)) {
                        snprintf(name, sizeof(name), "%.*s", (int)strcspn(line, "*|"), line);
                        up = strstr(line, "|up|") != NULL;
                }
                s += len + (s[len] ? 1 : 0);
        }
        /* a partition's lines, one per node state: the most any node offers */
        for (const char *s = t.out; *s;) {
                size_t len = strcspn(s, "\n");
                const char *bar = memchr(s, '|', len);
                bar = bar ? memchr(bar + 1, '|', (size_t)(s + len - bar - 1)) : NULL;
                if (bar && gres_parse(f->gres, strlen(f->gres), want, sizeof(want), &count)) {
                        char offer[256];
                        long n;
                        snprintf(offer, sizeof(offer), "%.*s", (int)(s + len - bar - 1), bar + 1);
                        n = gres_offered(offer, want);
                        offered = n > offered ? n : offered;
                }
                s += len + (s[len] ? 1 : 0);
        }
        free(t.out);
        if (!name[0]) {
                doctor_report(d, "slurm partition", DOCTOR_FAIL,
                              doctor_fix(fix, sizeof(fix),
                                         "name a partition 'sinfo' lists in .fleet.partition of %s",
                                         doctor_config_name(d)),
                              "%s%s", f->partition ? f->partition : "no default partition",
                              f->partition ? ": no such partition" : "");
                return;
        }
        doctor_report(d, "slurm partition", up ? DOCTOR_OK : DOCTOR_FAIL,
                      up ? NULL : "scontrol update PartitionName=NAME State=UP", "%s: %s", name,
                      up ? "up" : "not up");
        if (!gres_parse(f->gres, strlen(f->gres), want, sizeof(want), &count)) {
                doctor_report(d, "slurm gres", DOCTOR_FAIL, "write it as NAME:COUNT, e.g. npu:1",
                              ".fleet.gres \"%s\" is not NAME[:TYPE]:COUNT", f->gres);
                return;
        }
        if (offered < count) {
                doctor_report(d, "slurm gres", DOCTOR_FAIL,
                              doctor_fix(fix, sizeof(fix),
                                         "declare GresTypes=%s and Gres=%s:8 on the nodes in "
                                         "slurm.conf, and Name=%s File=/dev/davinci[0-7] in "
                                         "gres.conf (docs/fleet.md)",
                                         want, want, want),
                              "%s: no node offers %s (at most %ld)", name, f->gres, offered);
                return;
        }
        doctor_report(d, "slurm gres", DOCTOR_OK, NULL,
                      "%s: a node offers up to %ld %s; an episode asks %s", name, offered, want,
                      f->gres);
}
