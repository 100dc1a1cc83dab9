/* SPDX-License-Identifier: MIT */
/*
 * What Slurm says of the fleet's jobs, and what the head does about each
 * after a restart (docs/fleet.md, "Supervision"): squeue's and sacct's
 * lines read into one view per job name, and the step that follows from
 * it: adopt a job still queued or running, collect one that completed,
 * submit again one Slurm never saw or no longer knows or that was
 * cancelled from outside for the first time, fail the rest with a
 * reason naming the node.  The formats are recorded in
 * tests/fixtures/slurm/.
 */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
        const char *word;
        enum fleet_slurm_state state;
} states[] = {
        { "PENDING", FLEET_SLURM_QUEUED },       { "CONFIGURING", FLEET_SLURM_QUEUED },
        { "REQUEUED", FLEET_SLURM_QUEUED },      { "REQUEUE_HOLD", FLEET_SLURM_QUEUED },
        { "RESIZING", FLEET_SLURM_QUEUED },      { "RUNNING", FLEET_SLURM_RUNNING },
        { "COMPLETING", FLEET_SLURM_RUNNING },   { "SUSPENDED", FLEET_SLURM_RUNNING },
        { "STOPPED", FLEET_SLURM_RUNNING },      { "COMPLETED", FLEET_SLURM_COMPLETED },
        { "CANCELLED", FLEET_SLURM_CANCELLED },  { "FAILED", FLEET_SLURM_FAILED },
        { "NODE_FAIL", FLEET_SLURM_FAILED },     { "TIMEOUT", FLEET_SLURM_FAILED },
        { "OUT_OF_MEMORY", FLEET_SLURM_FAILED }, { "BOOT_FAIL", FLEET_SLURM_FAILED },
        { "DEADLINE", FLEET_SLURM_FAILED },      { "PREEMPTED", FLEET_SLURM_FAILED },
};

/* The next '|'-separated field of line into buf; returns where the one after starts. */
static const char *field(const char *s, const char *end, char *buf, size_t size)
{
        const char *bar = memchr(s, '|', (size_t)(end - s));
        size_t len = (size_t)((bar ? bar : end) - s);

        snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), s);
        return bar ? bar + 1 : end;
}

int fleet_slurm_parse(const char *text, struct fleet_slurm_job *jobs, size_t max, size_t *ret_n)
{
        size_t n = 0;

        for (const char *s = text; *s;) {
                const char *end = s + strcspn(s, "\n"), *p = s;
                struct fleet_slurm_job job = { .state = FLEET_SLURM_UNKNOWN };
                char exit_code[32] = "";
                size_t i;

                if (end > s) {
                        p = field(p, end, job.name, sizeof(job.name));
                        p = field(p, end, job.id, sizeof(job.id));
                        p = field(p, end, job.state_text, sizeof(job.state_text));
                        p = field(p, end, job.node, sizeof(job.node));
                        field(p, end, exit_code, sizeof(exit_code));
                        /* sacct writes "CANCELLED by 1000": the first word is the state */
                        job.state_text[strcspn(job.state_text, " ")] = '\0';
                        for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
                                if (strcmp(job.state_text, states[i].word) == 0)
                                        job.state = states[i].state;
                        if (strcmp(job.node, "(null)") == 0 ||
                            strcmp(job.node, "None assigned") == 0)
                                job.node[0] = '\0';
                        /* "3:0": the exit status, then the signal */
                        job.exit_code = exit_code[0] ? atoi(exit_code) : -1; /* squeue has none */
                        if (strchr(exit_code, ':'))
                                job.signal = atoi(strchr(exit_code, ':') + 1);
                        if (!job.name[0] || !job.id[0])
                                return -EINVAL;
                        /* the same name again: the later line (a later job) wins */
                        for (i = 0; i < n && strcmp(jobs[i].name, job.name) != 0; i++)
                                ;
                        if (i == n && n == max)
                                return -E2BIG;
                        jobs[i] = job;
                        n += i == n;
                }
                s = *end ? end + 1 : end;
        }
        *ret_n = n;
        return 0;
}

const struct fleet_slurm_job *fleet_slurm_find(const struct fleet_slurm_job *jobs, size_t n,
                                               const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(jobs[i].name, name) == 0)
                        return &jobs[i];
        return NULL;
}

enum fleet_step fleet_reconcile(const struct fleet_slurm_job *job, unsigned cancels, char *reason,
                                size_t size)
{
        if (!job || job->state == FLEET_SLURM_UNKNOWN) {
                snprintf(reason, size, "Slurm %s",
                         job ? "reports a state the head does not know"
                             : "never saw it or no longer knows it");
                return FLEET_REQUEUE;
        }
        switch (job->state) {
        case FLEET_SLURM_QUEUED:
        case FLEET_SLURM_RUNNING:
                snprintf(reason, size, "job %s is %s%s%s", job->id, job->state_text,
                         job->node[0] ? " on " : "", job->node);
                return FLEET_ADOPT;
        case FLEET_SLURM_COMPLETED:
                snprintf(reason, size, "job %s completed on %s", job->id, job->node);
                return FLEET_COLLECT;
        case FLEET_SLURM_CANCELLED:
                if (cancels == 0) {
                        snprintf(reason, size,
                                 "job %s was cancelled from Slurm; submitted once more", job->id);
                        return FLEET_REQUEUE;
                }
                snprintf(reason, size, "job %s was cancelled from Slurm again", job->id);
                return FLEET_FAIL;
        default:
                snprintf(reason, size, "job %s ended %s on node %s", job->id, job->state_text,
                         job->node[0] ? job->node : "(none)");
                if (job->exit_code >= 0)
                        snprintf(reason + strlen(reason), size - strlen(reason),
                                 " with exit code %d%s", job->exit_code,
                                 job->signal ? " after a signal" : "");
                return FLEET_FAIL;
        }
}
