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
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * Maps one changed file to its operator directory, if it belongs to one;
 * a file outside every operator goes to shared (when given), for
 * add_dependents.
 */
static int classify_path(const char *path, git_tree *new_tree, char *const *globs, size_t n_globs,
                         struct dir_set *set, struct dir_set *shared)
{
        int r;

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
        /* any other file inside an operator's folder (a reference, a test, its
         * CMakeLists.txt) is the innermost such operator's */
        for (size_t len = strlen(path); len > 0; len--) {
                if (path[len - 1] != '/')
                        continue;
                if (tree_has_dir(new_tree, path, len - 1, "op_host") &&
                    tree_has_dir(new_tree, path, len - 1, "op_kernel"))
                        return dir_set_add(set, path, len - 1);
        }
        if (!shared)
                return 0;
        /* past the limit, the rest of a huge commit's shared files go unsearched */
        r = dir_set_add(shared, path, strlen(path));
        return r == -E2BIG ? 0 : r;
}

/* ------------------------------------------------------------ shared files */

/*
 * A commit that changes a file outside every operator, a shared header or
 * a shared tiling source, changes the operators whose build reads it.
 * Which ones is read from the commit's tree alone: the files that #include
 * a changed file (by the name they include it with, which the changed
 * path must end with), then the files including those, to a fixpoint; an
 * operator counts when one of its files includes one, or when its
 * CMakeLists.txt names a changed source.  The include folders are not
 * resolved, so an operator including a header of the same name elsewhere
 * is queued too: a spare episode, never a missed one.
 */
#define SHARED_SCAN_MAX_FILES 32768
#define SHARED_SCAN_MAX_BYTES (64u << 20)
#define SHARED_SCAN_FILE_MAX  (1u << 20)

struct scanned_file {
        char *path;
        char *op_dir; /* the operator it belongs to, or NULL */
        char *text;
        bool affected;
};

struct shared_scan {
        git_repository *repo;
        git_tree *tree;
        struct scanned_file *files;
        size_t n, cap;
        uint64_t bytes;
        char *op_dir; /* the operator the walk is in, or NULL */
        size_t op_len;
        int r;
};

static bool is_source_name(const char *name)
{
        static const char *const suffixes[] = {
                ".h", ".hpp", ".hh", ".inc", ".cpp", ".cc", ".cxx"
        };
        size_t n = strlen(name);

        if (strcmp(name, "CMakeLists.txt") == 0)
                return true;
        for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
                size_t m = strlen(suffixes[i]);
                if (n > m && strcmp(name + n - m, suffixes[i]) == 0)
                        return true;
        }
        return false;
}

static int scan_entry(const char *root, const git_tree_entry *entry, void *payload)
{
        struct shared_scan *sc = payload;
        char path[4096];
        git_blob *blob = NULL;
        struct scanned_file *f;
        size_t size;

        if (format_path(path, sizeof(path), "%s%s", root, git_tree_entry_name(entry)) < 0)
                return 1;
        if (sc->op_dir && strncmp(path, sc->op_dir, sc->op_len) != 0) {
                free(sc->op_dir); /* the walk has left the operator */
                sc->op_dir = NULL;
        }
        if (git_tree_entry_type(entry) == GIT_OBJECT_TREE) {
                if (!sc->op_dir && tree_has_dir(sc->tree, path, strlen(path), "op_host") &&
                    tree_has_dir(sc->tree, path, strlen(path), "op_kernel")) {
                        if (asprintf(&sc->op_dir, "%s/", path) < 0) {
                                sc->op_dir = NULL;
                                sc->r = -ENOMEM;
                                return -1;
                        }
                        sc->op_len = strlen(sc->op_dir);
                }
                return 0;
        }
        if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
            !is_source_name(git_tree_entry_name(entry)))
                return 0;
        if (sc->n == SHARED_SCAN_MAX_FILES || sc->bytes > SHARED_SCAN_MAX_BYTES) {
                sc->r = -E2BIG;
                return -1;
        }
        if (git_blob_lookup(&blob, sc->repo, git_tree_entry_id(entry)) < 0)
                return 0;
        size = (size_t)git_blob_rawsize(blob);
        if (size > SHARED_SCAN_FILE_MAX || git_blob_is_binary(blob)) {
                git_blob_free(blob);
                return 0;
        }
        if (sc->n == sc->cap) {
                size_t cap = sc->cap ? 2 * sc->cap : 256;
                struct scanned_file *grown = realloc(sc->files, cap * sizeof(*grown));
                if (!grown) {
                        git_blob_free(blob);
                        sc->r = -ENOMEM;
                        return -1;
                }
                sc->files = grown;
                sc->cap = cap;
        }
        f = &sc->files[sc->n];
        memset(f, 0, sizeof(*f));
        f->path = strdup(path);
        f->op_dir = sc->op_dir ? strndup(sc->op_dir, sc->op_len - 1) : NULL;
        f->text = strndup(git_blob_rawcontent(blob), size);
        git_blob_free(blob);
        if (!f->path || !f->text || (sc->op_dir && !f->op_dir)) {
                free(f->path);
                free(f->op_dir);
                free(f->text);
                sc->r = -ENOMEM;
                return -1;
        }
        sc->n++;
        sc->bytes += size;
        return 0;
}

/* Whether path is name, or ends with "/" name. */
static bool names_path(const char *name, size_t len, const char *path)
{
        size_t n = strlen(path);

        if (len == 0 || len > n || strncmp(path + n - len, name, len) != 0)
                return false;
        return len == n || path[n - len - 1] == '/';
}

/* Whether text #includes an affected file of the scan. */
static bool includes_affected(const char *text, const struct shared_scan *sc)
{
        for (const char *p = strstr(text, "include"); p; p = strstr(p + 7, "include")) {
                const char *q = p + 7, *line = p;
                char close;
                size_t len = 0;
                while (line > text && line[-1] != '\n')
                        line--;
                while (*line == ' ' || *line == '\t')
                        line++;
                if (*line != '#')
                        continue;
                while (*q == ' ' || *q == '\t')
                        q++;
                if (*q != '"' && *q != '<')
                        continue;
                close = *q == '"' ? '"' : '>';
                q++;
                while (q[len] && q[len] != close && q[len] != '\n')
                        len++;
                for (size_t i = 0; i < sc->n; i++)
                        if (sc->files[i].affected && !sc->files[i].op_dir &&
                            names_path(q, len, sc->files[i].path))
                                return true;
        }
        return false;
}

/* Whether a CMakeLists.txt names an affected source by its last two path components. */
static bool cmake_names_affected(const char *text, const struct shared_scan *sc)
{
        for (size_t i = 0; i < sc->n; i++) {
                const char *path = sc->files[i].path, *tail = path + strlen(path);
                int slashes = 0;
                if (!sc->files[i].affected || sc->files[i].op_dir)
                        continue;
                while (tail > path && slashes < 2)
                        if (*--tail == '/')
                                slashes++;
                if (*tail == '/')
                        tail++;
                if (strstr(text, tail))
                        return true;
        }
        return false;
}

static int add_dependents(git_repository *repo, git_tree *tree, const struct dir_set *changed,
                          struct dir_set *set)
{
        struct shared_scan sc = { .repo = repo, .tree = tree };
        bool grew = true;
        int r = 0;

        git_tree_walk(tree, GIT_TREEWALK_PRE, scan_entry, &sc);
        free(sc.op_dir);
        r = sc.r;
        for (size_t i = 0; r == 0 && i < sc.n; i++)
                for (size_t j = 0; j < changed->n && !sc.files[i].affected; j++)
                        sc.files[i].affected =
                            !sc.files[i].op_dir && strcmp(sc.files[i].path, changed->dirs[j]) == 0;
        while (r == 0 && grew) {
                grew = false;
                for (size_t i = 0; i < sc.n; i++)
                        if (!sc.files[i].affected && !sc.files[i].op_dir &&
                            includes_affected(sc.files[i].text, &sc))
                                sc.files[i].affected = grew = true;
        }
        for (size_t i = 0; r == 0 && i < sc.n; i++) {
                const struct scanned_file *f = &sc.files[i];
                const char *base = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
                if (!f->op_dir)
                        continue;
                if (includes_affected(f->text, &sc) ||
                    (strcmp(base, "CMakeLists.txt") == 0 && cmake_names_affected(f->text, &sc)))
                        r = dir_set_add(set, f->op_dir, strlen(f->op_dir));
        }
        for (size_t i = 0; i < sc.n; i++) {
                free(sc.files[i].path);
                free(sc.files[i].op_dir);
                free(sc.files[i].text);
        }
        free(sc.files);
        return r;
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
        struct dir_set set = { 0 }, shared = { 0 };
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
                r = classify_path(d->new_file.path, new_tree, operator_globs, n_globs, &set,
                                  n_globs ? NULL : &shared);
                if (r == 0 && d->old_file.path && strcmp(d->old_file.path, d->new_file.path))
                        r = classify_path(d->old_file.path, new_tree, operator_globs, n_globs, &set,
                                          n_globs ? NULL : &shared);
        }
        if (r == 0 && shared.n) {
                r = add_dependents(repo, new_tree, &shared, &set);
                if (r == -E2BIG)
                        snprintf(err, err_size,
                                 "%s: %.12s changes shared files, and the repository has more "
                                 "than %d source files or %u MiB to search for what includes "
                                 "them",
                                 repo_path, new_oid, SHARED_SCAN_MAX_FILES,
                                 SHARED_SCAN_MAX_BYTES >> 20);
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
        watch_dirs_free(shared.dirs, shared.n);
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
        const char *op_dir; /* the operator exported; other operators' folders are left out */
        size_t files;
        uint64_t bytes;
        char *err;
        size_t err_size;
};

/* Whether a tree is an operator's folder: it holds op_host/ and op_kernel/. */
static bool is_operator_tree(git_repository *repo, const git_tree_entry *entry)
{
        git_tree *tree = NULL;
        bool found = false;

        if (git_tree_lookup(&tree, repo, git_tree_entry_id(entry)) == 0) {
                const git_tree_entry *h = git_tree_entry_byname(tree, "op_host");
                const git_tree_entry *k = git_tree_entry_byname(tree, "op_kernel");
                found = h && k && git_tree_entry_type(h) == GIT_OBJECT_TREE &&
                        git_tree_entry_type(k) == GIT_OBJECT_TREE;
        }
        git_tree_free(tree);
        return found;
}

/*
 * git's own path checks refuse these names, but objects fetched without
 * fsck (git's default) may hold them, and "..", or a name with a slash,
 * would write outside the export.
 */
bool watch_entry_name_ok(const char *name, size_t len)
{
        return len > 0 && !memchr(name, '\0', len) && !memchr(name, '/', len) &&
               !memchr(name, '\\', len) && !(len == 1 && name[0] == '.') &&
               !(len == 2 && name[0] == '.' && name[1] == '.') &&
               !(len == 4 && strncasecmp(name, ".git", 4) == 0);
}

static int export_blob(struct export_state *st, int dirfd, const char *rel,
                       const git_tree_entry *entry)
{
        const char *name = git_tree_entry_name(entry);
        git_blob *blob = NULL;
        size_t size, done = 0;
        int fd, r = 0;

        if (++st->files > WATCH_MAX_EXPORT_FILES) {
                snprintf(st->err, st->err_size,
                         "the operator and the repository files it travels with are more than "
                         "%d files",
                         WATCH_MAX_EXPORT_FILES);
                return -E2BIG;
        }
        if (git_blob_lookup(&blob, st->repo, git_tree_entry_id(entry)) < 0) {
                snprintf(st->err, st->err_size, "cannot read %s", rel);
                return -EIO;
        }
        size = (size_t)git_blob_rawsize(blob);
        st->bytes += size;
        if (st->bytes > WATCH_MAX_EXPORT_BYTES) {
                snprintf(st->err, st->err_size,
                         "the operator and the repository files it travels with are more than "
                         "%d MiB (at %s)",
                         (int)(WATCH_MAX_EXPORT_BYTES >> 20), rel);
                git_blob_free(blob);
                return -EFBIG;
        }
        /* created here and now, never through a link or over something already there */
        fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
                r = -errno;
                snprintf(st->err, st->err_size, "cannot create %s: %s", rel, strerror(errno));
                git_blob_free(blob);
                return r;
        }
        while (done < size) {
                ssize_t n = write(fd, (const char *)git_blob_rawcontent(blob) + done, size - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : -EIO;
                        snprintf(st->err, st->err_size, "cannot write %s: %s", rel, strerror(-r));
                        break;
                }
                done += (size_t)n;
        }
        if (close(fd) < 0 && r == 0) {
                r = -errno;
                snprintf(st->err, st->err_size, "cannot write %s: %s", rel, strerror(-r));
        }
        git_blob_free(blob);
        return r;
}

/* Writes tree (at rel in the repository) into the directory dirfd, refusing unsafe names. */
static int export_tree(struct export_state *st, git_tree *tree, int dirfd, const char *rel,
                       int depth)
{
        int r = 0;

        if (depth > 64) {
                snprintf(st->err, st->err_size, "%s: folders nested more than 64 deep", rel);
                return -ELOOP;
        }
        for (size_t i = 0; r == 0 && i < git_tree_entrycount(tree); i++) {
                const git_tree_entry *entry = git_tree_entry_byindex(tree, i);
                const char *name = git_tree_entry_name(entry);
                char path[4096];
                if (!watch_entry_name_ok(name, strlen(name))) {
                        snprintf(
                            st->err, st->err_size,
                            "the commit's tree holds an entry named \"%s\" in \"%s\", which git "
                            "refuses to check out and ascendopt refuses to export",
                            name, rel[0] ? rel : ".");
                        return -EINVAL;
                }
                if (format_path(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "", name) < 0) {
                        snprintf(st->err, st->err_size, "a path in the repository is too long: %s",
                                 rel);
                        return -ENAMETOOLONG;
                }
                if (git_tree_entry_type(entry) == GIT_OBJECT_TREE) {
                        size_t n = strlen(path);
                        bool on_the_way = strncmp(st->op_dir, path, n) == 0 &&
                                          (st->op_dir[n] == '\0' || st->op_dir[n] == '/');
                        git_tree *sub = NULL;
                        int subfd;
                        /* every folder but the other operators' */
                        if (!on_the_way && is_operator_tree(st->repo, entry))
                                continue;
                        if (git_tree_lookup(&sub, st->repo, git_tree_entry_id(entry)) < 0) {
                                snprintf(st->err, st->err_size, "cannot read %s", path);
                                return -EIO;
                        }
                        if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST) {
                                r = -errno;
                                snprintf(st->err, st->err_size, "cannot create %s: %s", path,
                                         strerror(errno));
                        } else if ((subfd = openat(dirfd, name,
                                                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                       O_CLOEXEC)) < 0) {
                                r = -errno;
                                snprintf(st->err, st->err_size, "cannot open %s: %s", path,
                                         strerror(errno));
                        } else {
                                r = export_tree(st, sub, subfd, path, depth + 1);
                                close(subfd);
                        }
                        git_tree_free(sub);
                } else if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB &&
                           git_tree_entry_filemode(entry) != GIT_FILEMODE_LINK) {
                        /* links are left out: an export holds regular files only */
                        r = export_blob(st, dirfd, path, entry);
                }
        }
        return r;
}

int watch_export_operator(const char *repo_path, const char *commit, const char *op_dir,
                          const char *dest, char *err, size_t err_size)
{
        git_repository *repo = NULL;
        git_tree *root = NULL;
        git_tree_entry *entry = NULL;
        struct export_state st = { .op_dir = op_dir, .err = err, .err_size = err_size };
        int code, r, fd = -1;

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
        r = mkdir_p(dest);
        if (r == 0 && (fd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                r = -errno;
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot create: %s", dest, strerror(-r));
                goto out;
        }
        st.repo = repo;
        r = export_tree(&st, root, fd, "", 0);
        if (r < 0 && strncmp(err, repo_path, strlen(repo_path)) != 0) {
                char why[2048];
                snprintf(why, sizeof(why), "%s", err);
                snprintf(err, err_size, "%s at %.12s: %s", repo_path, commit, why);
        }
out:
        if (fd >= 0)
                close(fd);
        git_tree_entry_free(entry);
        git_tree_free(root);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return r;
}
