/* SPDX-License-Identifier: MIT */
/*
 * Whether a candidate changed a frozen literal (issue #26), judged from
 * texts alone: the guard that refuses such a candidate before it is
 * measured, and the count over a finished episode of the evaluated
 * candidates that did, read from their texts in the store, for the
 * benchmark's table.  A literal is kept when the candidate holds its line
 * as often as the operator does, with any other number on the line free to
 * differ (a gene beside it) but this one as written.
 */
#include "episode-internal.h"

#include "common/common.h"
#include "store/store.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 4096

/*
 * A line with every run of digits replaced by '#', into buf; the k-th run
 * (0-based) also into run.  false when the line is longer than the buffers.
 */
static bool mask_line(const char *line, size_t len, size_t k, char *buf, char *run, size_t run_size)
{
        size_t n = 0, runs = 0;

        if (len >= LINE_MAX_BYTES)
                return false;
        run[0] = '\0';
        for (size_t i = 0; i < len;) {
                if (!isdigit((unsigned char)line[i])) {
                        buf[n++] = line[i++];
                        continue;
                }
                size_t j = i;
                while (j < len && isdigit((unsigned char)line[j]))
                        j++;
                if (runs++ == k)
                        snprintf(run, run_size, "%.*s", (int)(j - i), line + i);
                buf[n++] = '#';
                i = j;
        }
        buf[n] = '\0';
        return true;
}

/* How many lines of text match the masked line with run k as given. */
static size_t count_matching(const char *text, const char *masked, size_t k, const char *run)
{
        char buf[LINE_MAX_BYTES], other[32];
        size_t count = 0;

        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t len = eol ? (size_t)(eol - p) : strlen(p);
                if (mask_line(p, len, k, buf, other, sizeof(other)) && strcmp(buf, masked) == 0 &&
                    strcmp(other, run) == 0)
                        count++;
                p += len + (eol ? 1 : 0);
        }
        return count;
}

bool episode_literal_kept(const char *disk, size_t start, const char *text)
{
        char masked[LINE_MAX_BYTES], run[32];
        size_t from = start, to = start, k = 0, len = strlen(disk);

        if (start >= len || !isdigit((unsigned char)disk[start]))
                return true; /* not a literal of this text: nothing to keep */
        while (from > 0 && disk[from - 1] != '\n')
                from--;
        while (to < len && disk[to] != '\n')
                to++;
        /* which run of digits on its line the literal is */
        for (size_t i = from; i < start;) {
                if (!isdigit((unsigned char)disk[i])) {
                        i++;
                        continue;
                }
                while (i < start && isdigit((unsigned char)disk[i]))
                        i++;
                k++;
        }
        if (!mask_line(disk + from, to - from, k, masked, run, sizeof(run)))
                return strstr(text, run) != NULL; /* a line too long to compare: the digits */
        return count_matching(text, masked, k, run) >= count_matching(disk, masked, k, run);
}

/* ------------------------------------------------------------ over a finished episode */

struct disk_file {
        char *path;
        char *text;
};

/* The operator's text of path under dir, read once; NULL when unreadable. */
static const char *disk_text(struct disk_file *files, size_t *n, size_t max, const char *dir,
                             const char *path)
{
        char full[PATH_MAX];
        char *text = NULL;
        size_t len;

        for (size_t i = 0; i < *n; i++)
                if (strcmp(files[i].path, path) == 0)
                        return files[i].text;
        if (*n == max || format_path(full, sizeof(full), "%s/%s", dir, path) < 0 ||
            read_text_file(full, MAX_FILE_BYTES, &text, &len) < 0)
                return NULL;
        files[*n].path = strdup(path);
        files[*n].text = text;
        if (!files[*n].path) {
                free(text);
                return NULL;
        }
        return files[(*n)++].text;
}

/* The candidate's text of path: its blob, or the operator's when it has none. */
static char *candidate_text(struct store *store, const json_t *result, const char *path,
                            const char *disk)
{
        const char *sha =
            json_string_value(json_object_get(json_object_get(result, "files"), path));
        void *data = NULL;
        size_t len = 0;
        char *text;

        if (!sha)
                return disk ? strdup(disk) : NULL;
        if (store_blob_get(store, sha, &data, &len) < 0)
                return NULL;
        text = malloc(len + 1);
        if (text) {
                memcpy(text, data, len);
                text[len] = '\0';
        }
        free(data);
        return text;
}

int episode_frozen_changes(struct store *store, const json_t *record, const char *opdir,
                           size_t *ret_changed, size_t *ret_checked)
{
        const json_t *literals = json_object_get(record, "literals"), *row, *l;
        const char *dir = opdir ? opdir : json_string_value(json_object_get(record, "dir"));
        struct disk_file files[MAX_OP_FILES];
        size_t n_files = 0, changed = 0, checked = 0, i, j;

        if (!json_is_array(literals) || !dir)
                return -EINVAL;
        json_array_foreach(json_object_get(record, "trajectory"), i, row)
        {
                const char *identity = json_string_value(json_object_get(row, "identity"));
                json_t *result = NULL;
                bool lost = false;
                if (json_is_true(json_object_get(row, "memo_hit")) || !identity ||
                    store_candidate_get(store, identity, &result) < 0)
                        continue;
                checked++;
                json_array_foreach(literals, j, l)
                {
                        const char *path = json_string_value(json_object_get(l, "file"));
                        const char *disk;
                        char *text;
                        if (!json_is_true(json_object_get(l, "frozen")) || !path ||
                            !(disk = disk_text(files, &n_files, MAX_OP_FILES, dir, path)))
                                continue;
                        text = candidate_text(store, result, path, disk);
                        lost = text &&
                               !episode_literal_kept(
                                   disk, (size_t)json_integer_value(json_object_get(l, "start")),
                                   text);
                        free(text);
                        if (lost)
                                break;
                }
                changed += lost;
                json_decref(result);
        }
        for (i = 0; i < n_files; i++) {
                free(files[i].path);
                free(files[i].text);
        }
        *ret_changed = changed;
        *ret_checked = checked;
        return 0;
}
