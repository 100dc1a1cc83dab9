/* SPDX-License-Identifier: MIT */
/*
 * JSON lines, the exchange format of a fleet's memo and experience
 * (docs/fleet.md): one JSON object per line, a newline after each.  The
 * reader is for files another machine wrote: it follows no link, reads
 * only a regular file, bounds the lines and their length, and treats a
 * last line without its newline as a file cut short.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int json_lines_read(const char *path, size_t max_lines, size_t max_line_bytes, json_line_fn visit,
                    void *userdata, char *err, size_t err_size)
{
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        char *text = NULL, why[512];
        size_t cap = 0, lineno = 0;
        FILE *f = NULL;
        struct stat st;
        ssize_t len;
        int r = 0;

        if (fd < 0 || fstat(fd, &st) < 0) {
                r = -errno;
                snprintf(err, err_size, "%s: cannot open: %s", path, strerror(-r));
                goto out;
        }
        if (!S_ISREG(st.st_mode)) {
                r = -EINVAL;
                snprintf(err, err_size, "%s: not a regular file", path);
                goto out;
        }
        f = fdopen(fd, "r");
        if (!f) {
                r = -errno;
                snprintf(err, err_size, "%s: cannot open: %s", path, strerror(-r));
                goto out;
        }
        fd = -1;
        while ((len = getline(&text, &cap, f)) > 0) {
                json_t *line;

                lineno++;
                if (lineno > max_lines || (size_t)len > max_line_bytes) {
                        r = -E2BIG;
                        snprintf(err, err_size, "%s:%zu: over the limit of %zu lines of %zu bytes",
                                 path, lineno, max_lines, max_line_bytes);
                        goto out;
                }
                if (text[len - 1] != '\n') {
                        r = -EINVAL;
                        snprintf(err, err_size, "%s:%zu: cut short (no newline at its end)", path,
                                 lineno);
                        goto out;
                }
                line = json_loadb(text, (size_t)len - 1, JSON_REJECT_DUPLICATES, NULL);
                if (!json_is_object(line)) {
                        json_decref(line);
                        r = -EINVAL;
                        snprintf(err, err_size, "%s:%zu: not a JSON object", path, lineno);
                        goto out;
                }
                why[0] = '\0';
                r = visit(line, lineno, userdata, why, sizeof(why));
                json_decref(line);
                if (r < 0) {
                        snprintf(err, err_size, "%s:%zu: %s", path, lineno,
                                 why[0] ? why : strerror(-r));
                        goto out;
                }
        }
        if (ferror(f)) {
                r = -EIO;
                snprintf(err, err_size, "%s: read error", path);
        }
out:
        if (f)
                fclose(f);
        if (fd >= 0)
                close(fd);
        free(text);
        return r;
}

int json_lines_put(FILE *out, const json_t *line)
{
        if (json_dumpf(line, out, JSON_COMPACT) < 0 || fputc('\n', out) == EOF)
                return -EIO;
        return 0;
}
