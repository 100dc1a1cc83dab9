/* SPDX-License-Identifier: MIT */
/*
 * ascendopt memo: export the candidate memo as JSON lines, or merge such a
 * file into the store, the first result per identity winning
 * (docs/fleet.md, "The exchange formats").  A fleet job and its head trade
 * what they measured this way, so that no candidate is measured twice.
 */
#include "cli-internal.h"

#include "config/config.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#define MAX_IDENTITY_ARGS 4096

static void memo_usage(FILE *f)
{
        fprintf(f, "Usage: ascendopt memo [export FILE | import FILE] [options]\n"
                   "\n"
                   "Exports the measured candidates as JSON lines, one\n"
                   "{\"identity\", \"result\"} per line, or merges such a file into the\n"
                   "store: a candidate measured here already keeps its result.\n"
                   "\n"
                   "  --identity ID     export only this candidate (repeatable); without it,\n"
                   "                    every one\n"
                   "  --state-dir DIR   the store (default $ASCENDOPT_STATE_DIR or\n"
                   "                    ~/.local/state/ascendopt)\n");
}

/* Written beside FILE, synced, then renamed over it: a reader never sees half a file. */
static int export_memo(struct store *store, const char *const *ids, size_t n, const char *file)
{
        char *text = NULL;
        size_t len = 0, written = 0;
        FILE *f = open_memstream(&text, &len);
        int r;

        if (!f)
                return cli_out_of_memory("memo");
        r = store_memo_write(store, n ? ids : NULL, n, f, &written);
        if (fclose(f) == EOF && r == 0)
                r = -ENOMEM;
        if (r == 0)
                r = write_file_atomic(file, text, len, 0644);
        free(text);
        if (r < 0) {
                fprintf(stderr, "ascendopt memo: cannot export to %s: %s\n", file,
                        r == -EINVAL ? "an --identity is not 64 lowercase hex digits"
                                     : strerror(-r));
                return r == -EINVAL ? EX_USAGE : EX_IOERR;
        }
        printf("exported %zu result%s to %s\n", written, written == 1 ? "" : "s", file);
        return EX_OK;
}

static int import_memo(struct store *store, const char *file)
{
        struct store_batch *batch = store_batch_new(store);
        size_t added = 0, known = 0;
        char err[1024];
        int r;

        if (!batch)
                return cli_out_of_memory("memo");
        r = store_memo_merge(batch, file, &added, &known, err, sizeof(err));
        if (r == 0) {
                r = store_batch_commit(batch);
                if (r < 0)
                        snprintf(err, sizeof(err), "cannot write the store: %s",
                                 store_last_error(store));
        }
        store_batch_free(batch);
        if (r < 0) {
                fprintf(stderr, "ascendopt memo: %s\n", err);
                return cli_exit_for_input(r);
        }
        printf("merged %zu new result%s from %s; %zu already known here kept their own\n", added,
               added == 1 ? "" : "s", file, known);
        return EX_OK;
}

int cmd_memo(int argc, char **argv)
{
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, 'd' },
                { "identity", required_argument, NULL, 'i' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *state = NULL, *action = NULL, *file = NULL;
        const char **ids = calloc(MAX_IDENTITY_ARGS, sizeof(*ids));
        struct store *store = NULL;
        size_t n_ids = 0;
        int opt, r;

        if (!ids)
                return cli_out_of_memory("memo");
        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'd':
                        state = optarg;
                        break;
                case 'i':
                        if (n_ids == MAX_IDENTITY_ARGS) {
                                free(ids);
                                return cli_usage_error("memo", "more than 4096 --identity");
                        }
                        ids[n_ids++] = optarg;
                        break;
                case 'h':
                        memo_usage(stdout);
                        free(ids);
                        return EX_OK;
                default:
                        memo_usage(stderr);
                        free(ids);
                        return EX_USAGE;
                }
        }
        if (optind < argc)
                action = argv[optind++];
        if (optind < argc)
                file = argv[optind++];
        if (optind < argc || !action || !file ||
            (strcmp(action, "export") != 0 && strcmp(action, "import") != 0)) {
                free(ids);
                return cli_usage_error("memo", "use export FILE or import FILE");
        }
        if (n_ids && strcmp(action, "import") == 0) {
                free(ids);
                return cli_usage_error("memo", "--identity is for export");
        }
        r = cli_open_store("memo", state, &store);
        if (r == 0)
                r = strcmp(action, "export") == 0 ? export_memo(store, ids, n_ids, file)
                                                  : import_memo(store, file);
        store_close(store);
        free(ids);
        return r;
}
