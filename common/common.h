/* SPDX-License-Identifier: MIT */
/*
 * Utilities every component stands on: logging with sd-daemon priority
 * prefixes, validation of JSON documents against schemas written in C,
 * paths, SHA-256, worker threads, and the parts with headers of their own:
 * the child-process runner through which every compile, run and toolchain
 * call goes (child.h), and growable strings and error messages (text.h).
 * Nothing here blocks an event loop.
 */
#ifndef ASCENDOPT_COMMON_H
#define ASCENDOPT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <syslog.h>

#include <jansson.h>

struct event_base;

#include "child.h"
#include "text.h"

#define ASCENDOPT_VERSION "0.1.0"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- logging */

/*
 * One line per event on stderr (or the fd given to log_set_fd).  Each line
 * starts with an sd-daemon priority prefix such as "<3>" so that journald
 * keeps the priority, unless the fd is a terminal, where the prefix is
 * replaced by a readable "error: " style word.  Newlines inside a message
 * are escaped so that one event is always one line.
 *
 * The process-wide level and fd are the only global state of this folder;
 * set them once at start-up, before any other thread runs.
 */
void log_set_max_level(int priority);
int log_get_max_level(void);
/* fd is borrowed; -1 restores stderr. */
void log_set_fd(int fd);

/*
 * Logs a message at a syslog priority (LOG_ERR ... LOG_DEBUG).  context may
 * be NULL or a short label such as "episode 42"; it is printed in brackets
 * after the prefix so that every line about one episode can be grepped.
 */
void log_msg(int priority, const char *context, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define log_error(...)   log_msg(LOG_ERR, NULL, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, NULL, __VA_ARGS__)
#define log_notice(...)  log_msg(LOG_NOTICE, NULL, __VA_ARGS__)
#define log_info(...)    log_msg(LOG_INFO, NULL, __VA_ARGS__)
#define log_debug(...)   log_msg(LOG_DEBUG, NULL, __VA_ARGS__)

/* Parses "err", "warning", "info", "debug" ... or a digit 0-7. */
int log_level_from_string(const char *s, int *ret_priority);

/* ------------------------------------------------------ JSON schemas */

enum schema_kind {
        SCHEMA_STRING = 1 << 0,
        SCHEMA_INTEGER = 1 << 1,
        SCHEMA_NUMBER = 1 << 2, /* integers are accepted where numbers are */
        SCHEMA_BOOL = 1 << 3,
        SCHEMA_OBJECT = 1 << 4,
        SCHEMA_ARRAY = 1 << 5,
        SCHEMA_NULL = 1 << 6,
};

struct schema_field;

/*
 * What a JSON value must look like.  A schema is a static tree of these; a
 * zero member means "no constraint".  When several kinds are allowed the
 * constraints of each kind apply to values of that kind.
 */
struct schema {
        unsigned kinds;       /* bitmask of enum schema_kind */
        const char *expected; /* phrase for errors; built from kinds if NULL */
        /* objects: fields, terminated by a field whose name is NULL */
        const struct schema_field *fields;
        /* objects: when set, keys not in fields are allowed and their values
         * must match this schema (a map such as {"x": [lo, hi]}) */
        const struct schema *values;
        /* arrays; max_items also caps the keys of an object */
        const struct schema *items;
        size_t min_items, max_items;
        /* numbers and integers */
        bool has_min, has_max;
        double min, max;
        /* strings */
        const char *const *choices; /* NULL-terminated */
        size_t max_length;
        bool non_empty;
};

struct schema_field {
        const char *name;
        const struct schema *schema;
        bool required;
};

/*
 * Checks doc against schema.  On failure returns -EINVAL and writes one
 * message such as "ascendoptd.json: .repos[2].path: expected a string" into
 * err (truncated to err_size).  source names the document in the message.
 * Unknown object keys are errors that name the key.
 */
int schema_validate(const json_t *doc, const struct schema *schema, const char *source, char *err,
                    size_t err_size);

/*
 * Parses JSON text, reporting a syntax error as "SOURCE:LINE:COLUMN: ..." in
 * err.  Duplicate keys are rejected.  On success *ret_doc is a new reference.
 */
int json_parse_text(const char *text, size_t len, const char *source, json_t **ret_doc, char *err,
                    size_t err_size);

/*
 * JSON lines (common/json-lines.c): one object per line, a newline after
 * each.  json_lines_read() calls visit for each line of the file at path,
 * in order, and stops at the first -errno it returns (visit may say why in
 * why, without the file and line, which the reader adds).  It follows no
 * link and reads only a regular file; a line that is not an object, one
 * without its newline (a file cut short), or more than max_lines lines of
 * more than max_line_bytes fail with -EINVAL or -E2BIG and a message in
 * err naming path:line.  json_lines_put() writes one compact line.
 */
typedef int (*json_line_fn)(json_t *line, size_t lineno, void *userdata, char *why,
                            size_t why_size);
int json_lines_read(const char *path, size_t max_lines, size_t max_line_bytes, json_line_fn visit,
                    void *userdata, char *err, size_t err_size);
int json_lines_put(FILE *out, const json_t *line);

/* ------------------------------------------------------------------ paths */

/*
 * snprintf into a fixed buffer, for building paths: returns 0, or
 * -ENAMETOOLONG when the result did not fit.  buf then holds "", never a
 * truncated path, so that a caller that did not check opens nothing
 * instead of a prefix of what it meant (a parent directory, another file).
 */
int format_path(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), warn_unused_result));

/*
 * Whether path is a plain relative path inside a tree: not empty, not
 * absolute, no empty, "." or ".." component, no control character, at
 * most PATH_MAX bytes.  What a client or a manifest may name below a root.
 */
bool path_is_plain_relative(const char *path);

/* Creates a directory and its missing parents (mode 0755). */
int mkdir_p(const char *path);

/* Why path_user_access() said no: the path that refused, and its owner, group and mode. */
struct path_access {
        char path[4096]; /* the path itself, or a directory above it that may not be searched */
        uid_t owner;
        gid_t group;
        mode_t mode;   /* the permission bits */
        bool is_owner; /* the owner's bits applied */
        bool in_group; /* else the group's bits (else the others') */
        int missing;   /* the R_OK, W_OK and X_OK bits refused */
};

/*
 * Whether a user (uid, with every group it has in gids) may access path
 * with mode (R_OK, W_OK, X_OK, or'ed), as the kernel decides from the mode
 * bits of path and the search bit of each directory above it, following
 * links: the owner's bits for its owner, else the group's for a member,
 * else the others'.  uid 0 may read and write anything.  ACLs and
 * capabilities are not read.  0 when it may; -EACCES with *ret (may be
 * NULL) saying why; -errno of stat with ret->path naming what is missing.
 */
int path_user_access(const char *path, uid_t uid, const gid_t *gids, size_t n_gids, int mode,
                     struct path_access *ret);

/*
 * The directory of the running program (from /proc/self/exe) followed by
 * "/" and rel, into buf: how a build tree finds its own data (build/sim,
 * build/../etc).  -errno when the link cannot be read or it does not fit.
 */
int program_relative_path(char *buf, size_t size, const char *rel);

/* Adds n to object[key], an integer counter that starts at 0. */
void json_counter_add(json_t *object, const char *key, json_int_t n);

/* Removes a file or a directory tree; does not follow symlinks. */
int rm_rf(const char *path);

/*
 * What a directory tree takes on disk (allocated blocks, links not
 * followed) and how many entries it has, counted until either passes its
 * max: enough to refuse it, and bounded work on a tree a sandboxed child
 * built.  A tree deeper than DIR_USAGE_MAX_DEPTH counts as past
 * max_entries.  -errno when path is not a directory that can be opened.
 */
#define DIR_USAGE_MAX_DEPTH 64
int dir_usage(const char *path, uint64_t max_bytes, uint64_t max_entries, uint64_t *ret_bytes,
              uint64_t *ret_entries);

/*
 * Reads a whole file into a new NUL-terminated string (*ret_len bytes
 * before the NUL).  -EFBIG when it is larger than max_bytes, else -errno.
 */
int read_text_file(const char *path, size_t max_bytes, char **ret_text, size_t *ret_len);

/*
 * Files a sandboxed child could have touched.  A child that can write a
 * folder can leave a link there (or make a folder on the way one), so the
 * unsandboxed parent opens such paths without following any link at all
 * (openat2's RESOLVE_NO_SYMLINKS; a walk with O_NOFOLLOW where that is
 * missing): the path must be absolute and link-free (resolve it with
 * realpath once, when it is made).
 *
 * open_no_symlinks: open(2) on those terms; a file descriptor or -errno
 * (-ELOOP for a link on the way).
 * read_untrusted_file: the whole of a regular file, at most max_bytes
 * (-EFBIG), NUL-terminated; -EINVAL when it is no regular file.
 * map_untrusted_file: the same, mapped read-only instead of read (no copy:
 * for outputs of many megabytes, compared once); release it with
 * unmap_file(), which accepts an empty mapping.  Only for files no living
 * process can still truncate (a finished child's).
 * write_file_exclusive: replaces whatever is at path (a planted link
 * included, which is removed, never followed) with a new file.
 */
int open_no_symlinks(const char *path, int flags, mode_t mode);
int read_untrusted_file(const char *path, size_t max_bytes, char **ret_data, size_t *ret_len);
int map_untrusted_file(const char *path, size_t max_bytes, const void **ret_data, size_t *ret_len);
void unmap_file(const void *data, size_t len);
int write_file_exclusive(const char *path, const void *data, size_t len, mode_t mode);
/*
 * Copies the regular file from to to (created with mode, or truncated).
 * untrusted: from was written by a sandboxed child, so no link on its
 * path is followed and anything but a regular file is -EINVAL.
 */
int copy_file(const char *from, const char *to, mode_t mode, bool untrusted);
/*
 * Writes data to PATH.tmp, syncs it and renames it over path, so that a
 * reader finds the old file or the whole new one, never a part.
 */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

/* ---------------------------------------------------------------- SHA-256 */

#define SHA256_DIGEST_SIZE 32
#define SHA256_HEX_SIZE    65 /* 64 hex digits and a NUL */

struct sha256 {
        uint32_t state[8];
        uint64_t length;
        uint8_t block[64];
        size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE]);
void sha256_hex(const uint8_t digest[SHA256_DIGEST_SIZE], char hex[SHA256_HEX_SIZE]);
/*
 * Whether blocks go through the processor's SHA extensions where it has
 * them (the default) or the portable rounds; returns the previous choice.
 * For the tests and benchmarks that compare the two.
 */
bool sha256_use_hardware(bool on);

/* ------------------------------------------------------- worker threads */

/*
 * A few threads for work that would block the event loop.  A job's work
 * function runs on a worker and may touch only what the job owns (open
 * its own git_repository; RocksDB handles are thread-safe; never share a
 * jansson value with the loop, though one the work builds may be handed
 * to done whole).  Its done function then runs on the loop,
 * with 0, or with -ECANCELED (work may not have run) when the pool is
 * freed first; done owns the job's data from then on.
 */
struct worker_pool;
typedef void (*worker_work_fn)(void *data);
typedef void (*worker_done_fn)(void *data, int status);

#define WORKER_POOL_MAX_THREADS 16

/*
 * Starts threads workers on base (borrowed).  At most max_jobs jobs are
 * queued or running at once; submit says -EAGAIN beyond that.
 */
int worker_pool_new(struct event_base *base, size_t threads, size_t max_jobs,
                    struct worker_pool **ret_pool);

/* Queues a job; done is called exactly once unless this fails. */
int worker_pool_submit(struct worker_pool *pool, worker_work_fn work, worker_done_fn done,
                       void *data);

/* Jobs submitted whose done has not run yet. */
size_t worker_pool_pending(const struct worker_pool *pool);

/*
 * Finishes the jobs that are running, joins the workers, and calls done
 * with -ECANCELED for every job not handed back yet.  Accepts NULL.
 */
struct worker_pool *worker_pool_free(struct worker_pool *pool);

#endif
