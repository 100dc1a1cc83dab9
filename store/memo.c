/* SPDX-License-Identifier: MIT */
/*
 * The candidate memo as JSON lines (docs/fleet.md, "The exchange
 * formats"): written for a job that should not measure again what the
 * head knows, and merged back from a job, the first result per identity
 * winning.  A file from another machine is untrusted: every line is
 * checked before anything is added.
 */
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_identity(const char *s)
{
        size_t n = 0;

        for (; s && s[n]; n++)
                if (!isxdigit((unsigned char)s[n]) || isupper((unsigned char)s[n]))
                        return false;
        return n == SHA256_HEX_SIZE - 1;
}

static int write_line(FILE *out, const char *identity, json_t *result)
{
        json_t *line = json_pack("{s:s, s:O}", "identity", identity, "result", result);
        int r = 0;

        if (!line)
                return -ENOMEM;
        if (json_dumpf(line, out, JSON_COMPACT) < 0 || fputc('\n', out) == EOF)
                r = -EIO;
        json_decref(line);
        return r;
}

struct write_all {
        FILE *out;
        size_t written;
};

static int write_visit(const void *key, size_t key_len, const void *value, size_t value_len,
                       void *userdata)
{
        struct write_all *w = userdata;
        char identity[SHA256_HEX_SIZE];
        json_t *result;
        int r;

        if (key_len != SHA256_HEX_SIZE - 1)
                return 0; /* not a candidate's key */
        memcpy(identity, key, key_len);
        identity[key_len] = '\0';
        result = json_loadb(value, value_len, 0, NULL);
        if (!result)
                return -EBADMSG;
        r = write_line(w->out, identity, result);
        json_decref(result);
        if (r == 0)
                w->written++;
        return r;
}

int store_memo_write(struct store *store, const char *const *identities, size_t n, FILE *out,
                     size_t *ret_written)
{
        struct write_all w = { .out = out };
        int r = 0;

        if (!identities)
                r = store_scan(store, STORE_CANDIDATES, "", 0, write_visit, &w);
        for (size_t i = 0; identities && r == 0 && i < n; i++) {
                json_t *result;
                if (!is_identity(identities[i]))
                        return -EINVAL;
                r = store_candidate_get(store, identities[i], &result);
                if (r == -ENOENT) {
                        r = 0; /* never measured here: nothing to give */
                        continue;
                }
                if (r < 0)
                        break;
                r = write_line(out, identities[i], result);
                json_decref(result);
                if (r == 0)
                        w.written++;
        }
        if (r == 0 && fflush(out) == EOF)
                r = -EIO;
        if (r == 0 && ret_written)
                *ret_written = w.written;
        return r;
}

/* One line's identity and result, or a message saying what is wrong with it. */
static int parse_line(const char *text, size_t len, json_t **ret_line, const char **ret_why)
{
        json_t *line = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
        const json_t *result = json_object_get(line, "result");
        const char *status = json_string_value(json_object_get(result, "status"));

        *ret_why = NULL;
        if (!json_is_object(line))
                *ret_why = "not a JSON object";
        else if (json_object_size(line) != 2 ||
                 !is_identity(json_string_value(json_object_get(line, "identity"))))
                *ret_why =
                    "needs \"identity\" (64 lowercase hex digits) and \"result\", nothing else";
        else if (!json_is_object(result) || !status)
                *ret_why = "\"result\" needs a \"status\"";
        else if (strcmp(status, "infra_error") == 0)
                *ret_why = "an infra_error says nothing about the candidate and is never kept";
        if (*ret_why) {
                json_decref(line);
                return -EINVAL;
        }
        *ret_line = line;
        return 0;
}

int store_memo_merge(struct store_batch *batch, const char *path, size_t *ret_added,
                     size_t *ret_known, char *err, size_t err_size)
{
        struct store *store = store_batch_owner(batch);
        /* a node wrote it: a link there is not followed, and only a regular file is read */
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        FILE *f = NULL;
        struct stat st;
        json_t *taken = json_object(); /* identities this file gave already */
        char *text = NULL;
        size_t cap = 0, added = 0, known = 0, lineno = 0;
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
        if (!taken) {
                r = -ENOMEM;
                snprintf(err, err_size, "out of memory");
                goto out;
        }
        while ((len = getline(&text, &cap, f)) > 0) {
                const char *why, *identity;
                json_t *line, *have = NULL;

                lineno++;
                if (lineno > STORE_MEMO_MAX_LINES || (size_t)len > STORE_MEMO_MAX_LINE_BYTES) {
                        r = -E2BIG;
                        snprintf(err, err_size, "%s:%zu: over the limit of %d lines of %u MiB",
                                 path, lineno, STORE_MEMO_MAX_LINES,
                                 STORE_MEMO_MAX_LINE_BYTES >> 20);
                        goto out;
                }
                if (text[len - 1] != '\n') {
                        r = -EINVAL;
                        snprintf(err, err_size,
                                 "%s:%zu: cut short (no newline at its end); nothing was merged",
                                 path, lineno);
                        goto out;
                }
                r = parse_line(text, (size_t)len - 1, &line, &why);
                if (r < 0) {
                        snprintf(err, err_size, "%s:%zu: %s; nothing was merged", path, lineno,
                                 why);
                        goto out;
                }
                identity = json_string_value(json_object_get(line, "identity"));
                if (json_object_get(taken, identity) ||
                    store_candidate_get(store, identity, &have) == 0) {
                        known++; /* the first result wins */
                        json_decref(have);
                } else {
                        r = store_candidate_put(batch, identity, json_object_get(line, "result"));
                        if (r == 0)
                                r = json_object_set_new(taken, identity, json_true()) < 0 ? -ENOMEM
                                                                                          : 0;
                        added++;
                }
                json_decref(line);
                if (r < 0) {
                        snprintf(err, err_size, "%s:%zu: %s", path, lineno, strerror(-r));
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
        json_decref(taken);
        if (r == 0 && ret_added)
                *ret_added = added;
        if (r == 0 && ret_known)
                *ret_known = known;
        return r;
}
