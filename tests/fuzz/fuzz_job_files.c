/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary bytes as what a fleet node wrote (docs/fleet.md):
 * a memo.jsonl the head merges, and squeue's or sacct's answer it reads by
 * job name.  Any input must give either a merge or one error message naming
 * the file, and a view whose every job has a name and an id, or an error. */
#include "common/common.h"
#include "fleet/fleet.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static char dir[] = "/tmp/fuzz_job_files.XXXXXX";
static char file[sizeof(dir) + 16];
static struct store *store;

static void cleanup(void)
{
        store_close(store);
        rm_rf(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        char path[sizeof(dir) + 16], err[512];

        if (!mkdtemp(dir))
                abort();
        snprintf(path, sizeof(path), "%s/store", dir);
        snprintf(file, sizeof(file), "%s/memo.jsonl", dir);
        if (store_open(path, &store, err, sizeof(err)) < 0)
                abort();
        atexit(cleanup);
        return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        struct fleet_slurm_job jobs[16];
        struct store_batch *batch = store_batch_new(store);
        char err[1024] = "", *text = malloc(size + 1);
        size_t added = 0, known = 0, n = 0;
        FILE *f = fopen(file, "w");
        int r;

        if (!batch || !text || !f || fwrite(data, 1, size, f) != size)
                abort();
        fclose(f);
        /* never committed: each input meets the same empty store */
        r = store_memo_merge(batch, file, &added, &known, err, sizeof(err));
        if (r < 0 && strncmp(err, file, strlen(file)) != 0)
                __builtin_trap(); /* an error that does not name the file */
        if (r == 0 && added + known > STORE_MEMO_MAX_LINES)
                __builtin_trap();
        store_batch_free(batch);

        memcpy(text, data, size);
        text[size] = '\0';
        if (fleet_slurm_parse(text, jobs, 16, &n) == 0) {
                if (n > 16)
                        __builtin_trap();
                for (size_t i = 0; i < n; i++)
                        if (!jobs[i].name[0] || !jobs[i].id[0])
                                __builtin_trap();
        }
        free(text);
        return 0;
}
