/* SPDX-License-Identifier: MIT */
/*
 * Publishing: sibling branches built in memory with libgit2 and updated by
 * compare-and-swap (docs/design.md, "Publishing").
 * Nothing here writes HEAD, an index, a work tree or a ref outside the prefix.
 * Library code: returns 0 or -errno plus a message, never logs.
 */
#ifndef ASCENDOPT_PUBLISH_H
#define ASCENDOPT_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PUBLISH_DEFAULT_PREFIX "ascendopt/"
#define PUBLISH_DEFAULT_NAME   "ascendopt"
#define PUBLISH_DEFAULT_EMAIL  "ascendopt@localhost"

/* The trailer that marks a commit as ours; its value is the source commit. */
#define PUBLISH_TRAILER "Ascendopt-Source"

#define PUBLISH_OID_HEX_SIZE 41   /* 40 hex digits and a NUL */
#define PUBLISH_REF_MAX      1024 /* longest ref name, NUL included */
#define PUBLISH_MAX_FILES    4096 /* files per publish */
#define PUBLISH_MAX_ATTEMPTS 5    /* ref updates tried before giving up with -EAGAIN */

/*
 * Every function below opens the repository afresh and balances its own
 * git_libgit2_init() and git_libgit2_shutdown(), so calls from several
 * threads are safe and need no set-up.  A long-lived process may hold one
 * extra git_libgit2_init() of its own to keep libgit2's global state warm.
 */

/*
 * Writes the sibling ref name "refs/heads/<prefix><branch>/<op-path>" into
 * buf, with every '/' inside branch and op_path replaced by '+' (and '+'
 * and '%' escaped as "%2B" and "%25", so that "a/b" and "a+b" differ), e.g.
 * prefix "ascendopt/", branch "dev/x", op_path "src/math/add" give
 * "refs/heads/ascendopt/dev+x/src+math+add".  Exactly two components lie
 * under the prefix, so no sibling ref can shadow another.
 *
 * branch is the short branch name (no "refs/heads/").  op_path is relative
 * to the repository root, with no empty, "." or ".." component and no
 * ".git" component.  prefix must be non-empty and must not start with '/'.
 *
 * Errors, with a message in err: -EINVAL when any part is empty or invalid,
 * or the result is not a valid ref name (a component ending in ".lock", a
 * control character, "@{" ...); -ENAMETOOLONG when it does not fit in size.
 */
int publish_branch_name(const char *prefix, const char *branch, const char *op_path, char *buf,
                        size_t size, char *err, size_t err_size);

/* Who commits; a NULL member means PUBLISH_DEFAULT_NAME or PUBLISH_DEFAULT_EMAIL. */
struct publish_identity {
        const char *name;
        const char *email;
};

/* One file of the sibling commit.  All pointers are borrowed. */
struct publish_file {
        const char *path; /* relative to the repo root; must lie under op_path */
        const void *data;
        size_t len;
};

/*
 * What a publication is about to do, handed to the request's
 * before_update so that the caller can record it durably before the ref
 * moves: after a crash, that record says which commit was meant.
 */
struct publish_intent {
        char ref[PUBLISH_REF_MAX];           /* the full sibling ref name */
        char previous[PUBLISH_OID_HEX_SIZE]; /* the tip it expects to replace; "" to create */
        char commit[PUBLISH_OID_HEX_SIZE];   /* the new commit */
};

struct publish_request {
        /* A work tree, a linked worktree or a bare repository; never searched upwards. */
        const char *repo_path;
        const char *branch;        /* the source branch, short name, e.g. "dev/x" */
        const char *source_commit; /* full hex id of the source commit */
        const char *op_path;       /* the operator's directory, relative to the root */
        const struct publish_file *files;
        size_t n_files;      /* 1 .. PUBLISH_MAX_FILES; paths must be distinct */
        const char *message; /* NULL gives "ascendopt: optimize OP_PATH" */
        const char *prefix;  /* NULL gives PUBLISH_DEFAULT_PREFIX */
        struct publish_identity identity;
        /*
         * Rebuild the sibling branch even when someone else committed to it.
         * The update is still a compare-and-swap against the tip just read.
         * This is what 'ascendopt recreate' sets.
         */
        bool recreate;
        /*
         * Called once, after the new commit is written and before the ref
         * first moves (not when resuming with an existing commit).  A
         * negative return stops the publication with that error and the ref
         * untouched.  May be NULL.
         */
        int (*before_update)(const struct publish_intent *intent, void *userdata);
        void *userdata;
        /*
         * The intent of an earlier attempt at this publication that may not
         * have finished (a crash), or NULL.  When the ref already points at
         * its commit, nothing is written and the outcome says recovered.
         * Otherwise its commit, when it still exists and is ours for this
         * source commit, is the one the ref moves to, so that one
         * publication never becomes two commits.
         */
        const struct publish_intent *resume;
};

enum publish_result {
        PUBLISH_CREATED = 1, /* the sibling branch did not exist */
        PUBLISH_MOVED,       /* it pointed at another commit and now points at ours */
        PUBLISH_UNCHANGED,   /* its tip was ours with the same tree and parent; nothing written */
};

/* "created", "moved" or "unchanged". */
const char *publish_result_name(enum publish_result result);

struct publish_outcome {
        enum publish_result result;
        char ref[PUBLISH_REF_MAX];           /* the full sibling ref name */
        char commit[PUBLISH_OID_HEX_SIZE];   /* its tip after the call */
        char previous[PUBLISH_OID_HEX_SIZE]; /* its tip before; "" when created */
        bool replaced_foreign;               /* recreate replaced someone else's tip */
        unsigned attempts;                   /* ref updates tried, 0 when unchanged */
        bool recovered; /* the ref already pointed at request->resume's commit */
};

/*
 * Publishes request->files as the sibling branch of request->branch for
 * request->op_path: writes the blobs, builds the source commit's tree with
 * only those paths replaced (an executable file stays executable), makes a
 * commit whose single parent is the source commit and whose message ends
 * with the trailer "Ascendopt-Source: <source commit>", and moves the
 * sibling ref to it by compare-and-swap with a reflog entry (written even in
 * a bare repository or with core.logAllRefUpdates off, so that an earlier
 * tip stays reachable).  A lock or a concurrent change of the ref is retried
 * up to PUBLISH_MAX_ATTEMPTS times with a short backoff, re-reading the ref
 * each time.  Only the sibling ref and new objects are ever written.
 *
 * When the sibling's tip is not ours (not committed by the identity, or
 * without a trailer naming its parent), nothing is written unless
 * request->recreate is set.  A tip that is ours with the same tree and
 * parent is left alone (PUBLISH_UNCHANGED), with recreate too.
 *
 * On success fills *ret_outcome (untouched on failure).  Errors, each with a
 * message in err that names the repository or the ref:
 *   -EEXIST    only this: someone other than ascendopt committed to the
 *              sibling branch; the message names the tip and its committer
 *              and says to run 'ascendopt recreate'
 *   -EINVAL    a bad request (path outside op_path, duplicate path, a path
 *              that is a directory in the source tree, a bad name) or a ref
 *              in the way (a symbolic sibling ref, a branch named like the
 *              sibling's parent directory)
 *   -ENOENT    no repository at repo_path, or the source commit or op_path
 *              is not in it
 *   -EAGAIN    the ref stayed locked or kept changing on every attempt
 *   -EBUSY     the sibling branch is checked out in a work tree (as git
 *              does, it is never moved under someone's feet)
 *   -EPROTONOSUPPORT  the repository uses a ref storage libgit2 cannot
 *              read (extensions.refStorage = reftable)
 *   -EPERM     the repository is owned by another user (safe.directory)
 *   -ENOMEM, -EIO  libgit2 failed; its message is included.  This is
 *              also returned, with a message saying so, in the rare case
 *              that the ref moved but its reflog entry could not be written
 */
int publish_commit(const struct publish_request *request, struct publish_outcome *ret_outcome,
                   char *err, size_t err_size);

/* What a sibling ref looks like, for 'ascendopt status'. */
struct publish_sibling {
        bool exists;
        bool ours;        /* committed by the identity with a trailer naming its parent */
        bool checked_out; /* some work tree's HEAD is on it; publishing refuses to move it */
        char tip[PUBLISH_OID_HEX_SIZE];    /* "" when it does not exist */
        char source[PUBLISH_OID_HEX_SIZE]; /* the trailer's value when ours, else "" */
        char committer[256];               /* "Name <email>" of the tip's committer */
        int64_t commit_time;               /* seconds since the epoch */
};

/*
 * Reads the ref named ref (a full name such as one publish_branch_name()
 * makes) in the repository at repo_path, and says whether its tip is ours
 * for identity (NULL: the defaults).  A missing ref is not an error:
 * exists is false.  Fills *ret_sibling on success only.  Errors as
 * publish_commit(): -EINVAL for a bad or symbolic ref, -ENOENT,
 * -EPROTONOSUPPORT, -EPERM, -ENOMEM, -EIO.
 */
int publish_sibling_status(const char *repo_path, const char *ref,
                           const struct publish_identity *identity,
                           struct publish_sibling *ret_sibling, char *err, size_t err_size);

#endif
