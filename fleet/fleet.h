/* SPDX-License-Identifier: MIT */
/*
 * A lab fleet on Slurm (docs/fleet.md): the folder of one job under the
 * shared directory, the script it runs and the sbatch command line that
 * submits it, and the head's merge of what it left, once.  Library code:
 * returns 0 or -errno with a message, never logs, never runs a process.
 */
#ifndef ASCENDOPT_FLEET_H
#define ASCENDOPT_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct config_fleet;
struct store;

/* Most of what a job's argv may hold, and the longest result.json read back. */
#define FLEET_MAX_ARGS         64
#define FLEET_MAX_RESULT_BYTES (64u << 20)

/* "ascendopt-<item>-<attempt>": unique, and what the head finds a job by after a restart. */
int fleet_job_name(uint64_t item_id, unsigned attempt, char *buf, size_t size);

/* shared_dir/jobs/<name> */
int fleet_job_dir(const struct config_fleet *fleet, const char *name, char *buf, size_t size);

/*
 * Writes dir/job.sh, which runs argv (argv[0] the ascendopt of the nodes,
 * each argument single-quoted); with device_env set, it adds
 * "--device $device_env" and fails, naming the variable, when the job has
 * none (the site's TaskProlog sets it from the GRES Slurm allocated).
 */
int fleet_write_script(const char *dir, const char *const *argv, const char *device_env, char *err,
                       size_t err_size);

/*
 * The sbatch command line that submits dir/job.sh as job name and waits
 * for it to end (--wait: the head's supervised child), its output in
 * dir/slurm.out.  *ret_argv is a NULL-terminated array of new strings;
 * free it with fleet_argv_free().
 */
int fleet_sbatch_argv(const struct config_fleet *fleet, const char *sbatch, const char *name,
                      const char *dir, char ***ret_argv);
void fleet_argv_free(char **argv);

/* What fleet_write_inputs() gave a job. */
struct fleet_inputs {
        size_t bank_entries;
        size_t memo_results;
};

/*
 * Writes what a job starts from into its folder dir: bank.json, the
 * store's experience bank as 'ascendopt experience export' writes it, and
 * memo.jsonl, the memo's results for operator op (the OpDef type name
 * their cases measured; none when op is NULL).  Each file is written
 * whole (synced, then renamed).
 */
int fleet_write_inputs(struct store *store, const char *dir, const char *op,
                       struct fleet_inputs *ret, char *err, size_t err_size);

/*
 * What a merge did: merged_before is true when the job was merged already
 * (its episode record is in the store), and nothing was added.
 */
struct fleet_merged {
        bool merged_before;
        size_t results_added;
        size_t results_known; /* the job's results the store held already: measured twice */
        size_t entries_added;
        size_t entries_updated;
};

/*
 * Merges what job name left in dir (docs/fleet.md, "Merging, once") into
 * store, in one synced batch: the results of dir/memo.jsonl the store
 * lacks, dir/experience.jsonl with its counts added, the text of each file
 * of the record's baseline and best from dir/files/<sha> (checked against
 * its hash), and dir/result.json as the episode record under name, which
 * marks the job merged.  A second
 * call for the same job adds nothing.  -ENOENT when the job left no
 * result.json (it did not finish); -EINVAL, with err naming the file and
 * line, when a file is malformed, and nothing is merged.
 */
int fleet_merge(struct store *store, const char *name, const char *dir, struct fleet_merged *ret,
                char *err, size_t err_size);

/* ------------------------------------------------------------ Slurm's view (fleet/slurm-view.c) */

enum fleet_slurm_state {
        FLEET_SLURM_UNKNOWN, /* a state word the head does not know */
        FLEET_SLURM_QUEUED,  /* PENDING, CONFIGURING, REQUEUED, ... */
        FLEET_SLURM_RUNNING, /* RUNNING, COMPLETING, SUSPENDED, STOPPED */
        FLEET_SLURM_COMPLETED,
        FLEET_SLURM_CANCELLED,
        FLEET_SLURM_FAILED, /* FAILED, NODE_FAIL, TIMEOUT, OUT_OF_MEMORY, BOOT_FAIL, ... */
};

struct fleet_slurm_job {
        char name[64];
        char id[32];
        enum fleet_slurm_state state;
        char state_text[32];   /* Slurm's word */
        char node[256];        /* "" when none was allocated */
        int exit_code, signal; /* exit_code -1: not given (squeue) */
};

/*
 * Reads the lines of 'squeue -h -o "%j|%i|%T|%N"' or 'sacct -n -X -P -o
 * JobName,JobID,State,NodeList,ExitCode' into jobs, one per name (a later
 * line of the same name wins).  -E2BIG past max names, -EINVAL for a line
 * without a name or an id.
 */
int fleet_slurm_parse(const char *text, struct fleet_slurm_job *jobs, size_t max, size_t *ret_n);
const struct fleet_slurm_job *fleet_slurm_find(const struct fleet_slurm_job *jobs, size_t n,
                                               const char *name);

/* What the head does with a job it stored an intent for, after a restart. */
enum fleet_step {
        FLEET_ADOPT,   /* queued or running: wait for it again */
        FLEET_COLLECT, /* completed: merge what it left */
        FLEET_REQUEUE, /* never seen, forgotten, or cancelled from outside once: submit again */
        FLEET_FAIL,    /* failed on its node, or cancelled a second time */
};

/*
 * The step for job (NULL: Slurm knows no job of that name), given how
 * many times the item's jobs were cancelled from Slurm before; reason says
 * why, naming the job and its node.
 */
enum fleet_step fleet_reconcile(const struct fleet_slurm_job *job, unsigned cancels, char *reason,
                                size_t size);

#endif
