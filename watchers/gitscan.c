/* SPDX-License-Identifier: MIT */
/*
 * The libgit2 side of the watchers: which followed branches a repo has and
 * where they point, which operator directories a commit range touched, and
 * the tips recorded in the store.  Synchronous; the daemon runs these on a
 * worker thread.
 */
#include "watchers.h"

#include "common/common.h"
#include "store/store.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

static int scan_error(char *err, size_t size, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes "<what>: <libgit2's last error>" and maps a libgit2 code to -errno. */
static int scan_error(char *err, size_t size, int code, const char *fmt, ...)
{
        const git_error *e = git_error_last();
        char what[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        if (err && size)
                snprintf(err, size, "%s: %s", what, e && e->message ? e->message : "git error");
        switch (code) {
        case GIT_ENOTFOUND:
                return -ENOENT;
        case GIT_ELOCKED:
                return -EBUSY;
        case GIT_EINVALIDSPEC:
                return -EINVAL;
        default:
                return -EIO;
        }
}

/* libgit2 cannot read reftable repos; say so instead of a confusing error. */
static bool uses_reftable(git_repository *repo)
{
        git_config *config = NULL;
        git_buf value = { 0 };
        bool reftable = false;

        if (git_repository_config_snapshot(&config, repo) == 0 &&
            git_config_get_string_buf(&value, config, "extensions.refStorage") == 0)
                reftable = strcmp(value.ptr, "reftable") == 0;
        git_buf_dispose(&value);
        git_config_free(config);
        return reftable;
}

static int open_repo(const char *path, git_repository **ret, char *err, size_t size)
{
        int code = git_repository_open_ext(ret, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);

        if (code < 0) {
                const git_error *e = git_error_last();
                if (e && e->message && strstr(e->message, "refstorage")) {
                        snprintf(err, size,
                                 "%s: uses the reftable ref format, which libgit2 cannot "
                                 "read; convert it with 'git refs migrate --ref-format=files'",
                                 path);
                        return -EPROTONOSUPPORT;
                }
                return scan_error(err, size, code, "%s: not a git repository", path);
        }
        if (uses_reftable(*ret)) {
                git_repository_free(*ret);
                *ret = NULL;
                snprintf(err, size,
                         "%s: uses the reftable ref format, which libgit2 cannot read; convert "
                         "it with 'git refs migrate --ref-format=files'",
                         path);
                return -EPROTONOSUPPORT;
        }
        return 0;
}

static bool branch_matches(const char *name, git_branch_t type, char *const *patterns,
                           size_t n_patterns, const char *exclude_prefix)
{
        if (exclude_prefix && *exclude_prefix && type == GIT_BRANCH_LOCAL &&
            strncmp(name, exclude_prefix, strlen(exclude_prefix)) == 0)
                return false;
        for (size_t i = 0; i < n_patterns; i++) {
                /* "*" must not pull in every remote-tracking branch */
                if (type == GIT_BRANCH_REMOTE && !strchr(patterns[i], '/'))
                        continue;
                if (fnmatch(patterns[i], name, 0) == 0)
                        return true;
        }
        return false;
}

static int compare_tips(const void *a, const void *b)
{
        return strcmp(((const struct watch_tip *)a)->branch, ((const struct watch_tip *)b)->branch);
}

int watch_list_tips(const char *repo_path, char *const *patterns, size_t n_patterns,
                    const char *exclude_prefix, struct watch_tip **ret_tips, size_t *ret_n,
                    char *err, size_t err_size)
{
        git_repository *repo = NULL;
        git_branch_iterator *it = NULL;
        git_reference *ref = NULL;
        struct watch_tip *tips = NULL;
        size_t n = 0;
        git_branch_t type;
        int code, r;

        git_libgit2_init();
        r = open_repo(repo_path, &repo, err, err_size);
        if (r < 0)
                goto out;
        code = git_branch_iterator_new(&it, repo, GIT_BRANCH_ALL);
        if (code < 0) {
                r = scan_error(err, err_size, code, "%s: cannot list branches", repo_path);
                goto out;
        }
        while ((code = git_branch_next(&ref, &type, it)) == 0) {
                const char *name = NULL;
                git_reference *resolved = NULL;

                if (git_branch_name(&name, ref) == 0 &&
                    branch_matches(name, type, patterns, n_patterns, exclude_prefix) &&
                    git_reference_resolve(&resolved, ref) == 0 && git_reference_target(resolved)) {
                        struct watch_tip *grown;
                        if (n == WATCH_MAX_BRANCHES) {
                                snprintf(err, err_size,
                                         "%s: more than %d branches match the configured "
                                         "patterns; narrow them",
                                         repo_path, WATCH_MAX_BRANCHES);
                                r = -E2BIG;
                        } else if (!(grown = realloc(tips, (n + 1) * sizeof(*tips)))) {
                                r = -ENOMEM;
                        } else {
                                tips = grown;
                                tips[n].branch = strdup(name);
                                git_oid_tostr(tips[n].oid, sizeof(tips[n].oid),
                                              git_reference_target(resolved));
                                r = tips[n].branch ? 0 : -ENOMEM;
                                n += tips[n].branch != NULL;
                        }
                }
                git_reference_free(resolved);
                git_reference_free(ref);
                ref = NULL;
                if (r < 0)
                        goto out;
        }
        if (code != GIT_ITEROVER) {
                r = scan_error(err, err_size, code, "%s: cannot list branches", repo_path);
                goto out;
        }
        if (n)
                qsort(tips, n, sizeof(*tips), compare_tips);
        *ret_tips = tips;
        *ret_n = n;
        tips = NULL;
        n = 0;
out:
        watch_tips_free(tips, n);
        git_branch_iterator_free(it);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return r;
}

void watch_tips_free(struct watch_tip *tips, size_t n)
{
        for (size_t i = 0; tips && i < n; i++)
                free(tips[i].branch);
        free(tips);
}

/* A growable, sorted, duplicate-free list of directory names. */
struct dir_set {
        char **dirs;
        size_t n;
};

static int dir_set_add(struct dir_set *set, const char *dir, size_t len)
{
        size_t lo = 0, hi = set->n;
        char **grown, *copy;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strncmp(set->dirs[mid], dir, len);
                if (c == 0)
                        c = set->dirs[mid][len] == '\0' ? 0 : 1; /* longer sorts after */
                if (c == 0)
                        return 0;
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (set->n == WATCH_MAX_OPERATORS)
                return -E2BIG;
        grown = realloc(set->dirs, (set->n + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        set->dirs = grown;
        copy = strndup(dir, len);
        if (!copy)
                return -ENOMEM;
        memmove(set->dirs + lo + 1, set->dirs + lo, (set->n - lo) * sizeof(*set->dirs));
        set->dirs[lo] = copy;
        set->n++;
        return 0;
}

static bool tree_has_dir(git_tree *tree, const char *dir, size_t len, const char *child)
{
        char path[4096];
        git_tree_entry *entry = NULL;
        bool found;

        if (format_path(path, sizeof(path), "%.*s/%s", (int)len, dir, child) < 0)
                return false;
        found = git_tree_entry_bypath(&entry, tree, path) == 0 &&
                git_tree_entry_type(entry) == GIT_OBJECT_TREE;
        git_tree_entry_free(entry);
        return found;
}

/* Maps one changed file to its operator directory, if it belongs to one. */
static int classify_path(const char *path, git_tree *new_tree, char *const *globs, size_t n_globs,
                         struct dir_set *set)
{
        if (n_globs) {
                /* the shortest leading directory that matches a glob */
                for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
                        char dir[4096];
                        size_t len = (size_t)(slash - path);
                        if (len >= sizeof(dir))
                                break;
                        memcpy(dir, path, len);
                        dir[len] = '\0';
                        for (size_t g = 0; g < n_globs; g++)
                                if (fnmatch(globs[g], dir, FNM_PATHNAME) == 0)
                                        return dir_set_add(set, dir, len);
                }
                return 0;
        }
        static const char *const markers[] = { "/op_host/", "/op_kernel/", "/ascendopt.json" };
        for (size_t m = 0; m < ARRAY_SIZE(markers); m++) {
                const char *hit = NULL;
                /* the last occurrence: nested operator trees belong to the innermost */
                for (const char *p = strstr(path, markers[m]); p; p = strstr(p + 1, markers[m]))
                        hit = p;
                if (!hit)
                        continue;
                if (m == 2 && hit[strlen(markers[m])] != '\0')
                        continue;
                if (tree_has_dir(new_tree, path, (size_t)(hit - path), "op_host") &&
                    tree_has_dir(new_tree, path, (size_t)(hit - path), "op_kernel"))
                        return dir_set_add(set, path, (size_t)(hit - path));
                return 0;
        }
        return 0;
}

static int lookup_tree(git_repository *repo, const char *hex, git_tree **ret, char *err,
                       size_t size)
{
        git_commit *commit = NULL;
        git_oid oid;
        int code;

        code = git_oid_fromstr(&oid, hex);
        if (code == 0)
                code = git_commit_lookup(&commit, repo, &oid);
        if (code == 0)
                code = git_commit_tree(ret, commit);
        git_commit_free(commit);
        return code < 0 ? scan_error(err, size, code, "commit %s", hex) : 0;
}

int watch_changed_operators(const char *repo_path, const char *old_oid, const char *new_oid,
                            char *const *operator_globs, size_t n_globs, char ***ret_dirs,
                            size_t *ret_n, char *err, size_t err_size)
{
        git_repository *repo = NULL;
        git_tree *old_tree = NULL, *new_tree = NULL;
        git_diff *diff = NULL;
        struct dir_set set = { 0 };
        int code, r;

        git_libgit2_init();
        r = open_repo(repo_path, &repo, err, err_size);
        if (r < 0)
                goto out;
        r = lookup_tree(repo, new_oid, &new_tree, err, err_size);
        if (r < 0 || !old_oid)
                goto done;
        r = lookup_tree(repo, old_oid, &old_tree, err, err_size);
        if (r < 0)
                goto out;
        code = git_diff_tree_to_tree(&diff, repo, old_tree, new_tree, NULL);
        if (code < 0) {
                r = scan_error(err, err_size, code, "%s: cannot diff %.12s..%.12s", repo_path,
                               old_oid, new_oid);
                goto out;
        }
        for (size_t i = 0; i < git_diff_num_deltas(diff) && r == 0; i++) {
                const git_diff_delta *d = git_diff_get_delta(diff, i);
                r = classify_path(d->new_file.path, new_tree, operator_globs, n_globs, &set);
                if (r == 0 && d->old_file.path && strcmp(d->old_file.path, d->new_file.path))
                        r = classify_path(d->old_file.path, new_tree, operator_globs, n_globs,
                                          &set);
        }
        if (r == -E2BIG)
                snprintf(err, err_size, "%s: more than %d operators changed in %.12s..%.12s",
                         repo_path, WATCH_MAX_OPERATORS, old_oid, new_oid);
        if (r < 0)
                goto out;
done:
        if (r < 0)
                goto out;
        *ret_dirs = set.dirs;
        *ret_n = set.n;
        set.dirs = NULL;
        set.n = 0;
out:
        watch_dirs_free(set.dirs, set.n);
        git_diff_free(diff);
        git_tree_free(old_tree);
        git_tree_free(new_tree);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return r;
}

void watch_dirs_free(char **dirs, size_t n)
{
        for (size_t i = 0; dirs && i < n; i++)
                free(dirs[i]);
        free(dirs);
}

/* Store key of a recorded tip: the repo path, a NUL, the branch name. */
static size_t tip_key(char *buf, size_t size, const char *repo_path, const char *branch)
{
        size_t a = strlen(repo_path), b = strlen(branch);

        if (a + b + 1 > size)
                return 0;
        memcpy(buf, repo_path, a);
        buf[a] = '\0';
        memcpy(buf + a + 1, branch, b);
        return a + b + 1;
}

int watch_recorded_tip(struct store *store, const char *repo_path, const char *branch,
                       char ret_oid[WATCH_OID_HEX])
{
        char key[8192];
        size_t len = tip_key(key, sizeof(key), repo_path, branch);
        void *value = NULL;
        size_t value_len = 0;
        int r;

        if (!len)
                return -ENAMETOOLONG;
        r = store_get(store, STORE_REPOS, key, len, &value, &value_len);
        if (r < 0)
                return r;
        if (value_len != WATCH_OID_HEX - 1) {
                free(value);
                return -EBADMSG;
        }
        memcpy(ret_oid, value, WATCH_OID_HEX - 1);
        ret_oid[WATCH_OID_HEX - 1] = '\0';
        free(value);
        return 0;
}

void watch_record_tip(struct store_batch *batch, const char *repo_path, const char *branch,
                      const char *oid)
{
        char key[8192];
        size_t len = tip_key(key, sizeof(key), repo_path, branch);

        if (len)
                store_batch_put(batch, STORE_REPOS, key, len, oid, strlen(oid));
}

struct export_state {
        git_repository *repo;
        const char *dest;
        size_t files;
        int r;
        char *err;
        size_t err_size;
};

static int export_entry(const char *root, const git_tree_entry *entry, void *payload)
{
        struct export_state *st = payload;
        char path[4096], parent[4096];
        git_blob *blob = NULL;
        FILE *f;
        char *slash;

        if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
                return 0;
        if (++st->files > WATCH_MAX_EXPORT_FILES) {
                snprintf(st->err, st->err_size, "the operator has more than %d files",
                         WATCH_MAX_EXPORT_FILES);
                st->r = -E2BIG;
                return -1;
        }
        if (format_path(path, sizeof(path), "%s/%s%s", st->dest, root, git_tree_entry_name(entry)) <
                0 ||
            git_blob_lookup(&blob, st->repo, git_tree_entry_id(entry)) < 0) {
                st->r = -EIO;
                snprintf(st->err, st->err_size, "cannot read %s%s", root,
                         git_tree_entry_name(entry));
                return -1;
        }
        snprintf(parent, sizeof(parent), "%s", path);
        slash = strrchr(parent, '/');
        if (slash)
                *slash = '\0';
        st->r = mkdir_p(parent);
        f = st->r == 0 ? fopen(path, "we") : NULL;
        if (!f || fwrite(git_blob_rawcontent(blob), 1, (size_t)git_blob_rawsize(blob), f) !=
                      (size_t)git_blob_rawsize(blob)) {
                snprintf(st->err, st->err_size, "cannot write %s", path);
                st->r = -EIO;
        }
        if (f)
                fclose(f);
        git_blob_free(blob);
        return st->r < 0 ? -1 : 0;
}

int watch_export_operator(const char *repo_path, const char *commit, const char *op_dir,
                          const char *dest, char *err, size_t err_size)
{
        git_repository *repo = NULL;
        git_tree *root = NULL, *sub = NULL;
        git_tree_entry *entry = NULL;
        struct export_state st = { .dest = dest, .err = err, .err_size = err_size };
        int code, r;

        git_libgit2_init();
        r = open_repo(repo_path, &repo, err, err_size);
        if (r < 0)
                goto out;
        r = lookup_tree(repo, commit, &root, err, err_size);
        if (r < 0)
                goto out;
        code = git_tree_entry_bypath(&entry, root, op_dir);
        if (code < 0 || git_tree_entry_type(entry) != GIT_OBJECT_TREE) {
                snprintf(err, err_size, "%s: %s is not a directory at %.12s", repo_path, op_dir,
                         commit);
                r = -ENOENT;
                goto out;
        }
        code = git_tree_lookup(&sub, repo, git_tree_entry_id(entry));
        if (code < 0) {
                r = scan_error(err, err_size, code, "%s: %s", repo_path, op_dir);
                goto out;
        }
        r = mkdir_p(dest);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot create: %s", dest, strerror(-r));
                goto out;
        }
        st.repo = repo;
        git_tree_walk(sub, GIT_TREEWALK_PRE, export_entry, &st);
        r = st.r;
out:
        git_tree_entry_free(entry);
        git_tree_free(sub);
        git_tree_free(root);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return r;
}
