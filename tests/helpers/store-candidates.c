/* SPDX-License-Identifier: MIT */
/*
 * store-candidates STATE_DIR: every candidate measured into the store of
 * a state directory, as the evaluator recorded it, one JSON line each:
 * {"identity", "status", "files": {path: text}} with the texts of its
 * op_host/ files read back from the store's blobs.  For tests that judge
 * what was evaluated from the candidates themselves, not from the
 * search's bookkeeping.
 */
#include "config/config.h"
#include "store/store.h"

#include <jansson.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int print_candidate(const void *key, size_t key_len, const void *value, size_t value_len,
                           void *userdata)
{
        struct store *store = userdata;
        json_t *result = json_loadb(value, value_len, 0, NULL), *files = json_object(), *line;
        const char *path;
        json_t *sha;
        char *text;

        json_object_foreach(json_object_get(result, "files"), path, sha)
        {
                void *data = NULL;
                size_t len = 0;
                if (strncmp(path, "op_host/", 8) != 0)
                        continue;
                if (store_blob_get(store, json_string_value(sha), &data, &len) < 0) {
                        fprintf(stderr, "%.*s: the text of %s is missing\n", (int)key_len,
                                (const char *)key, path);
                        json_decref(files);
                        json_decref(result);
                        return -EIO;
                }
                json_object_set_new(files, path, json_stringn(data, len));
                free(data);
        }
        line = json_pack("{s:s%, s:O?, s:o}", "identity", (const char *)key, key_len, "status",
                         json_object_get(result, "status"), "files", files);
        text = json_dumps(line, JSON_COMPACT);
        printf("%s\n", text);
        free(text);
        json_decref(line);
        json_decref(result);
        return 0;
}

int main(int argc, char **argv)
{
        char dir[PATH_MAX], err[1024];
        struct store *store = NULL;
        int r;

        if (argc != 2) {
                fprintf(stderr, "usage: store-candidates STATE_DIR\n");
                return 64;
        }
        if (state_path(dir, sizeof(dir), argv[1], STATE_STORE) < 0 ||
            store_open(dir, &store, err, sizeof(err)) < 0) {
                fprintf(stderr, "%s: cannot open the store: %s\n", argv[1], err);
                return 1;
        }
        r = store_scan(store, STORE_CANDIDATES, "", 0, print_candidate, store);
        store_close(store);
        return r < 0 ? 1 : 0;
}
