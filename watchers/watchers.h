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
struct worker_pool;
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
 * new_oid, and also when a changed file outside every operator (a shared
 * header, a shared tiling source) is one its build reads: one of its files
 * includes it, directly or through other shared files, or its
 * CMakeLists.txt names it (matched by the name used, not resolved against
 * include folders, so a namesake may queue a spare episode).  old_oid may
 * be NULL for a branch seen for the first time; the list is then empty.
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

/* ------------------------------------------------------------ the watcher */

struct watcher;

struct watch_repo_spec {
        const char *path; /* work tree, linked worktree or bare repo */
        char *const *branches;
        size_t n_branches;
        char *const *operators; /* globs; none: auto-detect */
        size_t n_operators;
};

/* One branch that moved (or was seen for the first time: old_oid NULL). */
struct watch_event {
        const char *repo;
        const char *branch;
        const char *old_oid;
        const char *new_oid;
        char *const *operator_dirs; /* sorted; empty when no operator changed */
        size_t n_operator_dirs;
};

/*
 * Called from the event loop for every branch whose tip differs from the
 * recorded one.  The callback must record new_oid (watch_record_tip) in the
 * same synced batch as whatever it queues; until it does, later scans
 * report the same move again, so nothing is lost to a crash in between.
 */
typedef void (*watch_event_fn)(const struct watch_event *event, void *userdata);

struct watcher_options {
        double settle_s;        /* quiet time after the last event; 0: 0.5 s */
        double lock_wait_max_s; /* longest wait on index.lock before calling it stale; 0: 180 s */
        const char *exclude_prefix;  /* our sibling branch prefix; never followed (copied) */
        size_t max_watches_per_repo; /* 0: 4096 */
        /* scans (tips, tree diffs) run here, off the loop (borrowed); NULL: on the loop */
        struct worker_pool *workers;
};

/* Creates a watcher with one inotify instance on base (borrowed), reading
 * recorded tips from store (borrowed). */
int watcher_new(struct event_base *base, struct store *store, const struct watcher_options *options,
                watch_event_fn on_event, void *userdata, struct watcher **ret_watcher);
struct watcher *watcher_free(struct watcher *watcher);

/*
 * Starts following a repo (the spec is copied).  A repo that is missing or
 * unreadable is retried with backoff (1 s doubling to 60 s) and logged; a
 * repo attached successfully is scanned at once, which catches up on
 * commits made while the daemon was down.  -EEXIST when already followed.
 */
int watcher_add_repo(struct watcher *watcher, const struct watch_repo_spec *spec);
int watcher_remove_repo(struct watcher *watcher, const char *path);

/* Replaces the prefix of branches never followed (copied; NULL: none), as a reload does. */
int watcher_set_exclude_prefix(struct watcher *watcher, const char *prefix);

/* Scans every repo now (after an inotify queue overflow, or on request). */
void watcher_rescan_all(struct watcher *watcher);

/* Number of inotify watches held, for status and tests. */
size_t watcher_watch_count(const struct watcher *watcher);

/*
 * Delay before the n-th rescan in a burst of rescans (n from 0): the first
 * three are free, then 100 ms doubling to at most 10 s, as watchman does.
 */
double watch_rescan_delay_s(unsigned n);

/* ------------------------------------------------------------ exports */

/*
 * Writes the repository as it is at commit into dest (created), less the
 * folders of every other operator (a folder holding op_host/ and
 * op_kernel/): the operator lies at dest/op_dir with the shared folders,
 * the CMake files and whatever else its build may read around it.  Blobs
 * are read straight from the object database: the work tree, the index
 * and HEAD are never touched.  At most WATCH_MAX_EXPORT_FILES files and
 * WATCH_MAX_EXPORT_BYTES bytes (-E2BIG, -EFBIG, with err naming the
 * limit).  -ENOENT when op_dir is not in that commit.
 */
#define WATCH_MAX_EXPORT_FILES 4096
#define WATCH_MAX_EXPORT_BYTES (64ull << 20)
int watch_export_operator(const char *repo_path, const char *commit, const char *op_dir,
                          const char *dest, char *err, size_t err_size);

/*
 * Whether a git tree entry's name (len bytes, not NUL-terminated) may be
 * created in an export: not empty, ".", "..", nor ".git" in any ASCII case
 * (a case-insensitive filesystem would take it for the repository's own),
 * and no '/', '\\' or NUL in it.
 */
bool watch_entry_name_ok(const char *name, size_t len);

#endif
