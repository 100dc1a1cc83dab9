/* SPDX-License-Identifier: MIT */
/*
 * ascendopt gc: keeps the state directory within its caps.  The object
 * cache loses its least recently used objects (and precompiled headers)
 * until it fits, scratch directories left behind by crashed evaluations
 * go, and the store is compacted.  Nothing any episode needs is removed: the cache only saves
 * compile time and the store keeps every result.
 */
#include "cli-internal.h"

#include "config/config.h"

#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH_AGE_S 3600
#define STATE_HINT    "this state directory (see --state-dir)"

/* Removes scratch directories older than an hour: no evaluation lives that long. */
static size_t clean_scratch(const char *dir)
{
        time_t now = time(NULL);
        size_t removed = 0;
        struct dirent *e;
        DIR *d = opendir(dir);

        while (d && (e = readdir(d))) {
                char path[PATH_MAX];
                struct stat st;
                if (e->d_name[0] == '.' ||
                    format_path(path, sizeof(path), "%s/%s", dir, e->d_name) < 0 ||
                    lstat(path, &st) < 0 || difftime(now, st.st_mtime) < SCRATCH_AGE_S)
                        continue;
                if (rm_rf(path) == 0)
                        removed++;
        }
        if (d)
                closedir(d);
        return removed;
}

int cmd_gc(int argc, char **argv)
{
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, 'd' },
                { "max-cache-bytes", required_argument, NULL, 'c' },
                { "max-store-bytes", required_argument, NULL, 's' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        uint64_t max_cache = 4000000000ull, max_store = 8000000000ull;
        struct npu_cache_trim trim;
        struct episode_prune prune = { 0 };
        const char *state_flag = NULL;
        char state[PATH_MAX], dir[PATH_MAX], err[1024];
        struct store *store = NULL;
        size_t scratch;
        int opt, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'd':
                        state_flag = optarg;
                        break;
                case 'c':
                        if (cli_parse_u64(optarg, &max_cache) < 0)
                                return cli_usage_error("gc", "--max-cache-bytes wants a number");
                        break;
                case 's':
                        if (cli_parse_u64(optarg, &max_store) < 0)
                                return cli_usage_error("gc", "--max-store-bytes wants a number");
                        break;
                case 'h':
                        printf("Usage: ascendopt gc [--state-dir DIR] [--max-cache-bytes N] "
                               "[--max-store-bytes M]\n\n"
                               "Trims the object cache to N bytes (default 4 GB) by least "
                               "recent use,\nremoves scratch left by crashed evaluations and "
                               "compacts the store; a store still\nover M bytes (default 8 GB) "
                               "loses the trajectories of its oldest finished\nepisodes, never "
                               "a memoized result or an experience entry.  The daemon does\n"
                               "the same by itself with its config's limits.\n");
                        return EX_OK;
                default:
                        return cli_usage_error("gc", "unknown option");
                }
        }
        cli_state_dir(state_flag, state, sizeof(state));
        state_path(dir, sizeof(dir), state, STATE_CACHE);
        r = npu_cache_trim(dir, max_cache, &trim);
        if (r < 0) {
                fprintf(stderr, "ascendopt gc: %s: %s\n", dir, strerror(-r));
                return EX_IOERR;
        }
        state_path(dir, sizeof(dir), state, STATE_SCRATCH);
        scratch = clean_scratch(dir);
        state_path(dir, sizeof(dir), state, STATE_STORE);
        bool have_store = access(dir, F_OK) == 0;
        if (have_store) {
                r = store_open(dir, &store, err, sizeof(err));
                if (r == 0) {
                        r = store_compact(store);
                        if (r == 0)
                                r = episode_prune_store(store, max_store, &prune);
                        if (r < 0)
                                snprintf(err, sizeof(err), "%s", store_last_error(store));
                        store_close(store);
                }
        }
        /* what was trimmed is said even when the store could not be compacted */
        printf("gc: removed %zu cached object%s (%.1f MB), %zu stale scratch director%s; %s\n",
               trim.removed, trim.removed == 1 ? "" : "s",
               (double)(trim.bytes_before - trim.bytes_after) / 1e6, scratch,
               scratch == 1 ? "y" : "ies",
               !have_store ? "no store in " STATE_HINT
               : r == 0    ? "store compacted"
                           : "store not compacted");
        if (prune.dropped)
                printf("gc: the store was over %.1f MB: %zu trajectories of the oldest finished "
                       "episodes dropped, now %.1f MB\n",
                       (double)max_store / 1e6, prune.dropped, (double)prune.size_after / 1e6);
        if (have_store && r < 0) {
                fprintf(stderr, "ascendopt gc: %s\n", err);
                return EX_TEMPFAIL;
        }
        return EX_OK;
}
