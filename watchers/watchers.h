/* SPDX-License-Identifier: MIT */
/*
 * Watchers: one inotify instance over the git dirs of the configured repos.
 * inotify only wakes us up; what changed always comes from comparing branch
 * tips (resolved with libgit2) against the tips recorded in the store, and
 * from diffing their trees to find the operator directories a commit
 * touched.  So an overflowed or missed event never loses a commit.
 */
#ifndef ASCENDOPT_WATCHERS_H
#define ASCENDOPT_WATCHERS_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct store;
struct store_batch;

#define WATCH_OID_HEX       41 /* 40 hex digits and a NUL */
#define WATCH_MAX_BRANCHES  1024
#define WATCH_MAX_OPERATORS 4096

/* ------------------------------------------------------------ git scans */

struct watch_tip {
        char *branch; /* "main", or "origin/main" for a remote-tracking branch */
        char oid[WATCH_OID_HEX];
};

/*
 * Lists the branches of the repo at path that match one of the glob
 * patterns, with their tips, sorted by name.  Local branches match every
 * pattern; remote-tracking branches only patterns naming a remote
 * ("origin/main", "origin/release-?").  Branches under exclude_prefix (our own
 * sibling branches) never match.  Works for work trees, linked worktrees
 * and bare mirrors.  Reftable repos are refused with -EPROTONOSUPPORT.
 */
int watch_list_tips(const char *repo_path, char *const *patterns, size_t n_patterns,
                    const char *exclude_prefix, struct watch_tip **ret_tips, size_t *ret_n,
                    char *err, size_t err_size);
void watch_tips_free(struct watch_tip *tips, size_t n);

/*
 * The operator directories (relative to the repo root, sorted) whose files
 * differ between two commits.  With operator globs, a directory matching a
 * glob (FNM_PATHNAME) counts when any file below it changed.  Without, a
 * directory counts when a file under its op_host/ or op_kernel/, or its
 * ascendopt.json, changed and it still has both op_host/ and op_kernel/ in
 * new_oid.  old_oid may be NULL for a branch seen for the first time; the
 * list is then empty.
 */
int watch_changed_operators(const char *repo_path, const char *old_oid, const char *new_oid,
                            char *const *operator_globs, size_t n_globs, char ***ret_dirs,
                            size_t *ret_n, char *err, size_t err_size);
void watch_dirs_free(char **dirs, size_t n);

/* ------------------------------------------------------------ recorded tips */

/* The tip last recorded for a repo and branch; -ENOENT when never seen. */
int watch_recorded_tip(struct store *store, const char *repo_path, const char *branch,
                       char ret_oid[WATCH_OID_HEX]);

/* Adds "repo and branch are now at oid" to a batch, so that the tip moves
 * in the same synced write as the queue items it produced. */
void watch_record_tip(struct store_batch *batch, const char *repo_path, const char *branch,
                      const char *oid);

#endif
