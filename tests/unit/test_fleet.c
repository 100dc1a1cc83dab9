/* SPDX-License-Identifier: MIT */
/*
 * Tests of fleet/ (docs/fleet.md) without Slurm: the job script run by
 * sh as a node would, with and without the device the TaskProlog sets;
 * the sbatch command line; the head's merge of what a job left, once, on
 * a real store; and what the head does after a restart with each job,
 * from squeue's and sacct's answers recorded from a real Slurm.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "fleet/fleet.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char dir[64];

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/ascendopt-fleet-XXXXXX");
        assert_non_null(mkdtemp(dir));
        return 0;
}

static int teardown(void **state)
{
        return rm_rf(dir);
}

static void write_text(const char *name, const char *text)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* Runs cmd in sh; its stdout and stderr into out, its exit status returned. */
static int run_sh(const char *cmd, char *out, size_t size)
{
        FILE *p = popen(cmd, "r");
        size_t n;
        int status;

        assert_non_null(p);
        n = fread(out, 1, size - 1, p);
        out[n] = '\0';
        status = pclose(p);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_job_script_quotes_and_needs_its_device(void **state)
{
        const char *const argv[] = { "printf", "[%s]", "it's", "a b", "$HOME", NULL };
        char cmd[256], out[512], err[256] = "", name[64];

        assert_int_equal(fleet_job_name(12, 2, name, sizeof(name)), 0);
        assert_string_equal(name, "ascendopt-12-2");
        assert_int_equal(fleet_write_script(dir, argv, "ASCENDOPT_DEVICE", err, sizeof(err)), 0);
        /* every argument arrives as it was, quotes, spaces and dollars included */
        snprintf(cmd, sizeof(cmd), "ASCENDOPT_DEVICE=3 %s/job.sh 2>&1", dir);
        assert_int_equal(run_sh(cmd, out, sizeof(out)), 0);
        assert_string_equal(out, "[it's][a b][$HOME][--device][3]");
        /* where it ran, for the head's status */
        snprintf(cmd, sizeof(cmd), "cat %s/node", dir);
        assert_int_equal(run_sh(cmd, out, sizeof(out)), 0);
        assert_true(out[0] == ' ' && out[1] != '\0'); /* no SLURM_JOB_ID here, a host name */
        /* a node whose TaskProlog set no device: the job says so and runs nothing */
        snprintf(cmd, sizeof(cmd), "env -u ASCENDOPT_DEVICE %s/job.sh 2>&1", dir);
        assert_int_equal(run_sh(cmd, out, sizeof(out)), 78);
        assert_non_null(strstr(out, "ASCENDOPT_DEVICE is not set: the site's TaskProlog must "
                                    "export it"));
        /* the sim needs no device */
        assert_int_equal(fleet_write_script(dir, argv, NULL, err, sizeof(err)), 0);
        snprintf(cmd, sizeof(cmd), "env -u ASCENDOPT_DEVICE %s/job.sh 2>&1", dir);
        assert_int_equal(run_sh(cmd, out, sizeof(out)), 0);
        assert_string_equal(out, "[it's][a b][$HOME]");
}

static void test_sbatch_command_line(void **state)
{
        struct config_fleet fleet = { .enabled = true,
                                      .gres = "npu:1",
                                      .partition = "npu",
                                      .shared_dir = "/srv/fleet",
                                      .time_limit_s = 3601,
                                      .max_jobs = 2 };
        char job_dir[256], **argv = NULL;
        const char *want[] = { "sbatch",
                               "--parsable",
                               "--wait",
                               "--job-name=ascendopt-7-1",
                               "--chdir=/srv/fleet/jobs/ascendopt-7-1",
                               "--output=/srv/fleet/jobs/ascendopt-7-1/slurm.out",
                               "--gres=npu:1",
                               "--time=61", /* 3601 s: never less than asked */
                               "--partition=npu",
                               "/srv/fleet/jobs/ascendopt-7-1/job.sh",
                               NULL };
        size_t i;

        assert_int_equal(fleet_job_dir(&fleet, "ascendopt-7-1", job_dir, sizeof(job_dir)), 0);
        assert_int_equal(fleet_sbatch_argv(&fleet, "sbatch", "ascendopt-7-1", job_dir, &argv), 0);
        for (i = 0; want[i]; i++)
                assert_string_equal(argv[i], want[i]);
        assert_null(argv[i]);
        fleet_argv_free(argv);
}

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ENTRY                                                                            \
        "{\"motif\": \"double_buffer\", \"title\": \"t\", \"description\": \"d\", "      \
        "\"bottleneck\": \"stall=buffer_free\", \"diff\": \"-1\\n+2\\n\", \"uses\": 2, " \
        "\"wins\": 1}\n"

/* sha256 of "int\n" */
#define SHA_INT "f3f64312ae6c7771851d6d1ab57d134ac193e54640a5ca623e1132e3c400f837"

/* What a job left is merged once: a crash after the merge, and a second one, add nothing. */
static void test_merge_once(void **state)
{
        struct fleet_merged m;
        struct store *s = NULL;
        json_t *result = NULL, *entries = NULL, *record = NULL;
        char path[256], err[512] = "";
        void *blob = NULL;
        size_t len = 0;

        snprintf(path, sizeof(path), "%s/files", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/store", dir);
        assert_int_equal(store_open(path, &s, err, sizeof(err)), 0);
        write_text("memo.jsonl",
                   "{\"identity\": \"" ID_A "\", \"result\": {\"status\": \"ok\"}}\n");
        write_text("experience.jsonl", ENTRY);

        /* not finished: no result.json, nothing merged */
        assert_int_equal(fleet_merge(s, "ascendopt-1-1", dir, &m, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "result.json: missing: the job did not finish"));
        assert_int_equal(store_candidate_get(s, ID_A, &result), -ENOENT);

        write_text("result.json", "{\"state\": \"done\", \"evaluations\": 6}");
        assert_int_equal(fleet_merge(s, "ascendopt-1-1", dir, &m, err, sizeof(err)), 0);
        assert_false(m.merged_before);
        assert_int_equal(m.results_added, 1);
        assert_int_equal(m.entries_added, 1);
        assert_int_equal(episode_load(s, "ascendopt-1-1", &record), 0);
        assert_string_equal(json_string_value(json_object_get(record, "fleet_job")),
                            "ascendopt-1-1");
        json_decref(record);

        assert_int_equal(fleet_merge(s, "ascendopt-1-1", dir, &m, err, sizeof(err)), 0);
        assert_true(m.merged_before);
        assert_int_equal(experience_list(s, &entries), 0);
        assert_int_equal(json_array_size(entries), 1);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(entries, 0), "uses")),
                         2); /* not 4 */
        json_decref(entries);

        /* the text of the files its record names lands too, when it hashes to its name */
        write_text("files/" SHA_INT, "int\n");
        write_text("result.json", "{\"state\": \"done\", \"baseline\": {\"files\": {\"k.cpp\": "
                                  "\"" SHA_INT "\"}}}");
        assert_int_equal(fleet_merge(s, "ascendopt-3-1", dir, &m, err, sizeof(err)), 0);
        assert_int_equal(store_blob_get(s, SHA_INT, &blob, &len), 0);
        assert_memory_equal(blob, "int\n", 4);
        free(blob);
        write_text("files/" SHA_INT, "long\n");
        assert_int_equal(fleet_merge(s, "ascendopt-4-1", dir, &m, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "(k.cpp): its text does not hash to its name"));
        assert_int_equal(episode_load(s, "ascendopt-4-1", &record), -ENOENT);
        write_text("result.json", "{\"state\": \"done\", \"evaluations\": 6}");

        /* another job whose experience file is bad: nothing of it lands, its record included */
        write_text("experience.jsonl", "{\"title\": 1}\n");
        assert_int_equal(fleet_merge(s, "ascendopt-2-1", dir, &m, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "experience.jsonl:1: \"title\" must be a string"));
        assert_int_equal(episode_load(s, "ascendopt-2-1", &record), -ENOENT);
        store_close(s);
}

/* A recorded answer of Slurm (tests/fixtures/slurm/README.md), as a new string. */
static char *recorded(const char *name)
{
        char rel[128], path[4096], *text = NULL;
        size_t len = 0;

        snprintf(rel, sizeof(rel), "../../../tests/fixtures/slurm/%s", name);
        assert_int_equal(program_relative_path(path, sizeof(path), rel), 0);
        assert_int_equal(read_untrusted_file(path, 1 << 20, &text, &len), 0);
        return text;
}

static enum fleet_step step_of(const struct fleet_slurm_job *jobs, size_t n, const char *name,
                               unsigned cancels, char *reason)
{
        return fleet_reconcile(fleet_slurm_find(jobs, n, name), cancels, reason, 256);
}

/*
 * After a restart the head asks Slurm for its jobs by name; what it does
 * with each follows from the answer, here Slurm 22.05's own.
 */
static void test_reconcile_on_recorded_answers(void **state)
{
        struct fleet_slurm_job queue[8], done[8];
        size_t n_queue = 0, n_done = 0;
        char *text, reason[256];

        text = recorded("squeue.txt");
        assert_int_equal(fleet_slurm_parse(text, queue, 8, &n_queue), 0);
        free(text);
        assert_int_equal(n_queue, 3);
        assert_int_equal(step_of(queue, n_queue, "ascendopt-4-1", 0, reason), FLEET_ADOPT);
        assert_string_equal(reason, "job 4 is RUNNING on vm");
        assert_int_equal(step_of(queue, n_queue, "ascendopt-6-1", 0, reason), FLEET_ADOPT);
        assert_string_equal(reason, "job 6 is PENDING");

        text = recorded("sacct.txt");
        assert_int_equal(fleet_slurm_parse(text, done, 8, &n_done), 0);
        free(text);
        assert_int_equal(n_done, 6);
        assert_int_equal(step_of(done, n_done, "ascendopt-1-1", 0, reason), FLEET_COLLECT);
        assert_int_equal(step_of(done, n_done, "ascendopt-2-1", 0, reason), FLEET_FAIL);
        assert_string_equal(reason, "job 2 ended FAILED on node vm with exit code 3");
        /* cancelled from outside: once more, then the item fails */
        assert_int_equal(step_of(done, n_done, "ascendopt-3-1", 0, reason), FLEET_REQUEUE);
        assert_int_equal(step_of(done, n_done, "ascendopt-3-1", 1, reason), FLEET_FAIL);
        assert_string_equal(reason, "job 3 was cancelled from Slurm again");
        /* a job Slurm never saw: the head died between its intent and sbatch */
        assert_int_equal(step_of(done, n_done, "ascendopt-9-1", 0, reason), FLEET_REQUEUE);

        /* squeue gives no exit code: the reason does not make one up */
        assert_int_equal(fleet_slurm_parse("ascendopt-7-1|7|FAILED|vm\n", done, 8, &n_done), 0);
        assert_int_equal(step_of(done, n_done, "ascendopt-7-1", 0, reason), FLEET_FAIL);
        assert_string_equal(reason, "job 7 ended FAILED on node vm");

        /* slurmdbd's sacct names who cancelled; more names than room is an error */
        assert_int_equal(
            fleet_slurm_parse("ascendopt-5-2|12|CANCELLED by 1000|n3|0:15\n", done, 8, &n_done), 0);
        assert_int_equal(done[0].state, FLEET_SLURM_CANCELLED);
        assert_int_equal(done[0].signal, 15);
        assert_int_equal(fleet_slurm_parse("a|1|RUNNING|n|\nb|2|RUNNING|n|\n", done, 1, &n_done),
                         -E2BIG);
        assert_int_equal(fleet_slurm_parse("|1|RUNNING|n|\n", done, 8, &n_done), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_job_script_quotes_and_needs_its_device, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_sbatch_command_line, setup, teardown),
                cmocka_unit_test_setup_teardown(test_merge_once, setup, teardown),
                cmocka_unit_test(test_reconcile_on_recorded_answers),
        };

        return cmocka_run_group_tests_name("fleet", tests, NULL, NULL);
}
