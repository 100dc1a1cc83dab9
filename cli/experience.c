/* SPDX-License-Identifier: MIT */
/*
 * ascendopt experience: list the experience bank, or export it to and
 * import it from a JSON file, so that banks can be shared between
 * machines.  Works on the store in the state directory.
 */
#include "cli-internal.h"

#include "config/config.h"

#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

static void experience_usage(FILE *f)
{
        fprintf(f, "Usage: ascendopt experience [list | export FILE | import FILE | merge FILE]\n"
                   "                            [options]\n"
                   "\n"
                   "  import reads a bank ({\"entries\": [...]}, as export writes it); merge\n"
                   "  reads what a fleet job added (JSON lines) and adds its uses and wins to\n"
                   "  the bank's, so merge a file once (docs/fleet.md)\n"
                   "\n"
                   "  --state-dir DIR   the store (default $ASCENDOPT_STATE_DIR or\n"
                   "                    ~/.local/state/ascendopt)\n"
                   "  --query SIG       list only the entries that best match a bottleneck\n"
                   "                    signature, e.g. \"bound=mte2 stall=buffer_free\"\n"
                   "  --json            print JSON\n");
}

static int merge_file(struct store *store, const char *path)
{
        struct store_batch *batch = store_batch_new(store);
        size_t added = 0, updated = 0;
        char err[1024];
        int r = batch ? experience_merge_lines(batch, path, &added, &updated, err, sizeof(err))
                      : -ENOMEM;

        if (r == 0) {
                r = store_batch_commit(batch);
                if (r < 0)
                        snprintf(err, sizeof(err), "cannot write the store: %s",
                                 store_last_error(store));
        } else if (r == -ENOMEM)
                snprintf(err, sizeof(err), "out of memory");
        store_batch_free(batch);
        if (r < 0) {
                fprintf(stderr, "ascendopt experience: %s\n", err);
                return cli_exit_for_input(r);
        }
        printf("merged %s: %zu new entr%s, %zu known entr%s with counts added\n", path, added,
               added == 1 ? "y" : "ies", updated, updated == 1 ? "y" : "ies");
        return EX_OK;
}

static int import_file(struct store *store, const char *path)
{
        char err[1024];
        size_t added = 0;
        int r = experience_import_file(store, path, &added, err, sizeof(err));

        if (r < 0) {
                fprintf(stderr, "ascendopt experience: %s\n", err);
                return r == -EINVAL || r == -E2BIG ? EX_DATAERR : EX_NOINPUT;
        }
        printf("imported %zu entr%s from %s\n", added, added == 1 ? "y" : "ies", path);
        return EX_OK;
}

int cmd_experience(int argc, char **argv)
{
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, 'd' },
                { "query", required_argument, NULL, 'q' },
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *state = NULL, *query = NULL, *action = "list", *file = NULL;
        struct store *store = NULL;
        json_t *entries = NULL, *e;
        bool json_out = false;
        size_t i;
        int opt, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'd':
                        state = optarg;
                        break;
                case 'q':
                        query = optarg;
                        break;
                case 'j':
                        json_out = true;
                        break;
                case 'h':
                        experience_usage(stdout);
                        return EX_OK;
                default:
                        experience_usage(stderr);
                        return EX_USAGE;
                }
        }
        if (optind < argc)
                action = argv[optind++];
        if (optind < argc)
                file = argv[optind++];
        if (optind < argc || (strcmp(action, "list") != 0 && !file) ||
            (strcmp(action, "list") != 0 && strcmp(action, "export") != 0 &&
             strcmp(action, "import") != 0 && strcmp(action, "merge") != 0))
                return cli_usage_error("experience",
                                       "use list, export FILE, import FILE or merge FILE");
        r = cli_open_store("experience", state, &store);
        if (r)
                return r;
        if (strcmp(action, "import") == 0 || strcmp(action, "merge") == 0) {
                r = action[0] == 'i' ? import_file(store, file) : merge_file(store, file);
                store_close(store);
                return r;
        }
        r = query ? experience_retrieve(store, query, 20, &entries)
                  : experience_list(store, &entries);
        store_close(store);
        if (r < 0) {
                fprintf(stderr, "ascendopt experience: cannot read the bank: %s\n", strerror(-r));
                return EX_IOERR;
        }
        if (strcmp(action, "export") == 0) {
                json_t *doc = experience_export_doc(entries);
                if (!doc) {
                        json_decref(entries);
                        return cli_out_of_memory("experience");
                }
                r = json_dump_file(doc, file, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 ? EX_CANTCREAT
                                                                                   : EX_OK;
                if (r == EX_OK)
                        printf("exported %zu entr%s to %s\n", json_array_size(entries),
                               json_array_size(entries) == 1 ? "y" : "ies", file);
                else
                        fprintf(stderr, "ascendopt experience: cannot write %s\n", file);
                json_decref(doc);
                json_decref(entries);
                return r;
        }
        if (json_out) {
                cli_print_json(entries);
        } else {
                printf("  %-10s %-40s %5s %5s  %s\n", "ID", "TITLE", "USES", "WINS", "BOTTLENECK");
                json_array_foreach(entries, i, e)
                    printf("  %.10s %-40.40s %5lld %5lld  %s\n",
                           json_string_value(json_object_get(e, "id")),
                           json_string_value(json_object_get(e, "title")),
                           (long long)json_integer_value(json_object_get(e, "uses")),
                           (long long)json_integer_value(json_object_get(e, "wins")),
                           json_string_value(json_object_get(e, "bottleneck")));
                if (!json_array_size(entries))
                        printf("  (the bank is empty: 'ascendopt rewind' fills it)\n");
        }
        json_decref(entries);
        return EX_OK;
}
