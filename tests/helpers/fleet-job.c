/* SPDX-License-Identifier: MIT */
/*
 * fleet-job: fleet/'s pieces from the command line, for the test that
 * drives a real Slurm before the daemon does (tests/t0050-fleet-slurm.sh):
 *
 *   fleet-job script DIR DEVICE_ENV|- ARG...      write DIR/job.sh
 *   fleet-job sbatch SHARED_DIR NAME GRES TIME_S  the sbatch line, one word a line
 *   fleet-job merge STATE_DIR NAME DIR            merge what job NAME left in DIR
 */
#include "config/config.h"
#include "fleet/fleet.h"
#include "store/store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int script(int argc, char **argv)
{
        char err[1024];

        if (argc < 5)
                return 64;
        if (fleet_write_script(argv[2], (const char *const *)argv + 4,
                               strcmp(argv[3], "-") ? argv[3] : NULL, err, sizeof(err)) < 0) {
                fprintf(stderr, "fleet-job: %s\n", err);
                return 1;
        }
        return 0;
}

static int sbatch(int argc, char **argv)
{
        struct config_fleet fleet = { .enabled = true };
        char dir[PATH_MAX], **words = NULL;

        if (argc != 6)
                return 64;
        fleet.shared_dir = argv[2];
        fleet.gres = argv[4];
        fleet.time_limit_s = atof(argv[5]);
        if (fleet_job_dir(&fleet, argv[3], dir, sizeof(dir)) < 0 ||
            fleet_sbatch_argv(&fleet, "sbatch", argv[3], dir, &words) < 0)
                return 1;
        for (size_t i = 0; words[i]; i++)
                printf("%s\n", words[i]);
        fleet_argv_free(words);
        return 0;
}

static int merge(int argc, char **argv)
{
        char path[PATH_MAX], err[1024];
        struct fleet_merged m;
        struct store *store = NULL;
        int r;

        if (argc != 5)
                return 64;
        state_path(path, sizeof(path), argv[2], STATE_STORE);
        if (store_open(path, &store, err, sizeof(err)) < 0) {
                fprintf(stderr, "fleet-job: %s\n", err);
                return 1;
        }
        r = fleet_merge(store, argv[3], argv[4], &m, err, sizeof(err));
        store_close(store);
        if (r < 0) {
                fprintf(stderr, "fleet-job: %s\n", err);
                return 1;
        }
        printf("merged_before %d results_added %zu entries_added %zu entries_updated %zu\n",
               m.merged_before, m.results_added, m.entries_added, m.entries_updated);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc > 1 && strcmp(argv[1], "script") == 0)
                return script(argc, argv);
        if (argc > 1 && strcmp(argv[1], "sbatch") == 0)
                return sbatch(argc, argv);
        if (argc > 1 && strcmp(argv[1], "merge") == 0)
                return merge(argc, argv);
        fprintf(stderr, "usage: fleet-job script|sbatch|merge ...\n");
        return 64;
}
