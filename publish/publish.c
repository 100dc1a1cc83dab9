/* SPDX-License-Identifier: MIT */
/*
 * Sibling branches with libgit2: ref names, the commit built in memory
 * (blobs, the source tree with a few paths replaced, a commit on the source
 * commit) and the compare-and-swap that moves the ref, with the bot
 * etiquette that leaves a branch alone once someone else committed to it.
 */
#include "publish-internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "common/common.h"

#define HEADS "refs/heads/"

/* ---------------------------------------------------------------- errors */

static const char *libgit2_message(void)
{
        const git_error *e = git_error_last();

        return e && e->message ? e->message : "unknown libgit2 error";
}

/* Maps a libgit2 return code to -errno; -EEXIST is kept for foreign tips. */
static int errno_from_git(int code)
{
        const git_error *e = git_error_last();

        switch (code) {
        case GIT_ENOTFOUND:
                return -ENOENT;
        case GIT_EEXISTS:
        case GIT_EAMBIGUOUS:
        case GIT_EINVALIDSPEC:
        case GIT_EINVALID:
        case GIT_EDIRECTORY:
        case GIT_EBAREREPO:
                return -EINVAL;
        case GIT_ELOCKED:
        case GIT_EMODIFIED:
                return -EAGAIN;
        case GIT_EOWNER:
                return -EPERM;
        case GIT_EUSER:
                return -ECANCELED;
        default:
                return e && e->klass == GIT_ERROR_NOMEMORY ? -ENOMEM : -EIO;
        }
}

static int fail_git(char *err, size_t err_size, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Like format_error(), with libgit2's last message appended after a colon. */
static int fail_git(char *err, size_t err_size, int code, const char *fmt, ...)
{
        char what[PUBLISH_REF_MAX + 256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return format_error(err, err_size, errno_from_git(code), "%s: %s", what, libgit2_message());
}

/* ---------------------------------------------------------------- names */

const char *publish_result_name(enum publish_result result)
{
        switch (result) {
        case PUBLISH_CREATED:
                return "created";
        case PUBLISH_MOVED:
                return "moved";
        case PUBLISH_UNCHANGED:
                return "unchanged";
        }
        return "?";
}

/* A relative path with no empty, ".", ".." or ".git" component. */
static bool path_is_clean(const char *path)
{
        const char *p = path;

        if (!p || !*p)
                return false;
        for (;;) {
                size_t n = strcspn(p, "/");
                if (n == 0)
                        return false;
                if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.') ||
                    (n == 4 && strncasecmp(p, ".git", 4) == 0))
                        return false;
                p += n;
                if (!*p)
                        return true;
                p++; /* the '/'; a trailing one leaves an empty component */
        }
}

/* Whether a '/'-separated name has a component ending in ".lock", which git refuses. */
static bool has_lock_component(const char *name)
{
        for (const char *p = name; *p;) {
                size_t n = strcspn(p, "/");
                if (n >= 5 && strncmp(p + n - 5, ".lock", 5) == 0)
                        return true;
                p += n;
                if (*p)
                        p++;
        }
        return false;
}

/*
 * Appends name to buf at *at with '/' as '+', and '+' and '%' escaped as
 * "%2B" and "%25", so that distinct names stay distinct ("a/b" gives
 * "a+b", "a+b" gives "a%2Bb").  -ENAMETOOLONG when it does not fit.
 */
static int append_encoded(char *buf, size_t size, size_t *at, const char *name)
{
        for (const char *p = name; *p; p++) {
                const char *piece = *p == '/' ? "+" : *p == '+' ? "%2B" : *p == '%' ? "%25" : NULL;
                size_t n = piece ? strlen(piece) : 1;
                if (*at + n >= size)
                        return -ENAMETOOLONG;
                memcpy(buf + *at, piece ? piece : p, n);
                *at += n;
        }
        buf[*at] = '\0';
        return 0;
}

int publish_branch_name(const char *prefix, const char *branch, const char *op_path, char *buf,
                        size_t size, char *err, size_t err_size)
{
        size_t at;
        int valid = 0, r;

        if (!prefix || !*prefix || prefix[0] == '/')
                return format_error(
                    err, err_size, -EINVAL,
                    "sibling branch prefix \"%s\": must be non-empty and must not start "
                    "with '/'",
                    prefix ? prefix : "(null)");
        if (!branch || !*branch)
                return format_error(err, err_size, -EINVAL, "the source branch name is empty");
        if (!path_is_clean(op_path))
                return format_error(
                    err, err_size, -EINVAL,
                    "operator path \"%s\": must be relative to the repository root, "
                    "without empty, '.', '..' or '.git' components",
                    op_path ? op_path : "(null)");
        /* Joined by '+', such a component would hide in a valid ref name. */
        if (has_lock_component(branch) || has_lock_component(op_path))
                return format_error(err, err_size, -EINVAL,
                                    "branch \"%s\" and operator \"%s\": a path component ends in "
                                    "\".lock\", which git does not allow in a ref name",
                                    branch, op_path);
        r = snprintf(buf, size, HEADS "%s", prefix);
        at = r > 0 ? (size_t)r : 0;
        if (r >= 0 && (size_t)r < size && append_encoded(buf, size, &at, branch) == 0 &&
            at + 1 < size) {
                buf[at++] = '/';
                r = append_encoded(buf, size, &at, op_path);
        } else {
                r = -ENAMETOOLONG;
        }
        if (r < 0)
                return format_error(
                    err, err_size, -ENAMETOOLONG,
                    "the sibling branch name for branch \"%s\" and operator \"%s\" is "
                    "longer than %zu bytes",
                    branch, op_path, size ? size - 1 : 0);

        if (git_libgit2_init() < 0)
                return format_error(err, err_size, -EIO, "libgit2 failed to initialise");
        r = git_reference_name_is_valid(&valid, buf);
        git_libgit2_shutdown();
        if (r < 0 || !valid)
                return format_error(
                    err, err_size, -EINVAL,
                    "sibling branch name \"%s\" (from branch \"%s\" and operator \"%s\") "
                    "is not a valid git ref name",
                    buf, branch, op_path);
        return 0;
}

/* ---------------------------------------------------------- repositories */

static int refuse_ref_storage(const char *path, const char *format, char *err, size_t err_size)
{
        return format_error(
            err, err_size, -EPROTONOSUPPORT,
            "%s: the repository keeps its refs in the \"%s\" format "
            "(extensions.refStorage), which libgit2 cannot read, so ascendopt cannot "
            "publish there. Convert it with 'git refs migrate --ref-format=files', or "
            "remove it from the configuration",
            path, format);
}

/* Reads the first line of a small file, without its newline; "" when absent. */
static void read_line(const char *path, char *buf, size_t size)
{
        FILE *f = fopen(path, "re");

        buf[0] = '\0';
        if (!f)
                return;
        if (!fgets(buf, (int)size, f))
                buf[0] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        fclose(f);
}

/* Joins a path read from a git file (absolute, or relative to base) onto base. */
static int resolve_from(char *buf, size_t size, const char *base, const char *path)
{
        return path[0] == '/' ? format_path(buf, size, "%s", path)
                              : format_path(buf, size, "%s/%s", base, path);
}

/*
 * Finds the configuration file of the repository at path the way git lays
 * it out: .git/config, a linked worktree's "gitdir:" file and its commondir,
 * or a bare repository's config.  Writes "" when there is none to read.
 */
static void find_config_file(const char *path, char *buf, size_t size)
{
        char dotgit[PATH_MAX], gitdir[PATH_MAX], line[PATH_MAX], common[PATH_MAX];
        struct stat st;

        buf[0] = '\0';
        if (format_path(dotgit, sizeof(dotgit), "%s/.git", path) < 0)
                return;
        if (stat(dotgit, &st) == 0 && S_ISDIR(st.st_mode)) {
                snprintf(gitdir, sizeof(gitdir), "%s", dotgit);
        } else if (stat(dotgit, &st) == 0 && S_ISREG(st.st_mode)) {
                read_line(dotgit, line, sizeof(line));
                if (strncmp(line, "gitdir: ", 8) != 0 ||
                    resolve_from(gitdir, sizeof(gitdir), path, line + 8) < 0)
                        return;
        } else {
                snprintf(gitdir, sizeof(gitdir), "%s", path);
        }
        if (format_path(common, sizeof(common), "%s/commondir", gitdir) < 0)
                return;
        read_line(common, line, sizeof(line));
        if (line[0] && resolve_from(common, sizeof(common), gitdir, line) == 0)
                snprintf(gitdir, sizeof(gitdir), "%s", common);
        if (format_path(buf, size, "%s/config", gitdir) < 0 || access(buf, R_OK) < 0)
                buf[0] = '\0';
}

/* The repository's extensions.refStorage before libgit2 opens it; "" when unset. */
static void peek_ref_storage(const char *path, char *buf, size_t size)
{
        char file[PATH_MAX];
        git_config *config = NULL;
        git_buf value = { 0 };

        buf[0] = '\0';
        find_config_file(path, file, sizeof(file));
        if (!file[0] || git_config_open_ondisk(&config, file) < 0)
                return;
        if (git_config_get_string_buf(&value, config, "extensions.refstorage") == 0)
                snprintf(buf, size, "%s", value.ptr);
        git_buf_dispose(&value);
        git_config_free(config);
}

/*
 * Opens the repository at path itself, never a parent.  A reftable
 * repository is refused before libgit2 sees it: with format version 1
 * libgit2 would reject the unknown extension with a vaguer message (and
 * libgit2 1.5 leaks while it checks extensions), with version 0 it would
 * open the repository and see no refs at all.  The checks after the open
 * catch a refStorage set through an include.
 */
static int open_repo(const char *path, git_repository **ret_repo, char *err, size_t err_size)
{
        git_repository *repo = NULL;
        git_config *config = NULL;
        const char *storage = NULL;
        char format[64];
        int r;

        peek_ref_storage(path, format, sizeof(format));
        if (format[0] && strcasecmp(format, "files") != 0)
                return refuse_ref_storage(path, format, err, err_size);
        r = git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
        if (r < 0) {
                if (strcasestr(libgit2_message(), "refstorage"))
                        return refuse_ref_storage(path, "reftable", err, err_size);
                if (r == GIT_ENOTFOUND)
                        return format_error(err, err_size, -ENOENT, "%s: not a git repository",
                                            path);
                return fail_git(err, err_size, r, "%s: cannot open the repository", path);
        }
        r = git_repository_config_snapshot(&config, repo);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: cannot read the configuration", path);
                goto out;
        }
        r = git_config_get_string(&storage, config, "extensions.refstorage");
        if (r == 0 && strcasecmp(storage, "files") != 0) {
                r = refuse_ref_storage(path, storage, err, err_size);
                goto out;
        }
        if (r < 0 && r != GIT_ENOTFOUND) {
                r = fail_git(err, err_size, r, "%s: cannot read extensions.refStorage", path);
                goto out;
        }
        *ret_repo = repo;
        repo = NULL;
        r = 0;
out:
        git_config_free(config);
        git_repository_free(repo);
        return r;
}

static void resolve_identity(const struct publish_identity *identity, const char **ret_name,
                             const char **ret_email)
{
        *ret_name = identity && identity->name ? identity->name : PUBLISH_DEFAULT_NAME;
        *ret_email = identity && identity->email ? identity->email : PUBLISH_DEFAULT_EMAIL;
}

/* --------------------------------------------------------- sibling tips */

/*
 * The start of the last paragraph of text[0, len), or NULL when there is
 * only one (the subject, which never holds trailers).
 */
static const char *last_paragraph(const char *text, size_t len)
{
        const char *para = NULL;

        for (size_t i = 0; i + 1 < len; i++)
                if (text[i] == '\n' && text[i + 1] == '\n')
                        para = text + i + 2;
        return para && para < text + len ? para : NULL;
}

/* Whether a line reads "Token: value", as git trailers do. */
static bool is_trailer_line(const char *line, size_t len)
{
        size_t i = 0;

        while (i < len && (isalnum((unsigned char)line[i]) || line[i] == '-'))
                i++;
        return i > 0 && i + 1 < len && line[i] == ':' && line[i + 1] == ' ';
}

/* Whether text[0, len) ends with a paragraph made only of trailers. */
static bool ends_with_trailers(const char *text, size_t len)
{
        const char *p = last_paragraph(text, len), *end = text + len;

        if (!p)
                return false;
        while (p < end) {
                const char *eol = memchr(p, '\n', (size_t)(end - p));
                if (!eol)
                        eol = end;
                if (!is_trailer_line(p, (size_t)(eol - p)))
                        return false;
                p = eol + 1;
        }
        return true;
}

/*
 * Finds "Ascendopt-Source: <hex>" in the last paragraph of a message,
 * exactly as build_message() writes it.  This is not git_message_trailers():
 * that stops at a line starting with "---", which a Markdown summary may
 * well contain, and our own commits would then look foreign.
 */
static bool find_source_trailer(const char *message, git_oid *ret_source)
{
        const size_t key_len = strlen(PUBLISH_TRAILER ": ");
        size_t len = strlen(message);
        const char *p, *end;
        bool found = false;

        while (len && isspace((unsigned char)message[len - 1]))
                len--;
        p = last_paragraph(message, len);
        end = message + len;
        while (p && p < end) {
                const char *eol = memchr(p, '\n', (size_t)(end - p));
                if (!eol)
                        eol = end;
                if ((size_t)(eol - p) == key_len + GIT_OID_HEXSZ &&
                    strncasecmp(p, PUBLISH_TRAILER ": ", key_len) == 0 &&
                    git_oid_fromstrn(ret_source, p + key_len, GIT_OID_HEXSZ) == 0)
                        found = true;
                p = eol + 1;
        }
        return found;
}

/*
 * Describes the tip commit c: ours means committed by name <email> and
 * carrying a trailer that names its single parent, so a commit someone
 * made on top of ours, or an amended copy of ours, is not ours.
 */
static void describe_tip(const git_commit *c, const char *name, const char *email,
                         struct publish_sibling *s)
{
        const git_signature *who = git_commit_committer(c);
        git_oid source;
        bool has_source = find_source_trailer(git_commit_message(c), &source);

        s->exists = true;
        git_oid_tostr(s->tip, sizeof(s->tip), git_commit_id(c));
        snprintf(s->committer, sizeof(s->committer), "%s <%s>", who->name, who->email);
        s->commit_time = who->when.time;
        s->ours = strcmp(who->name, name) == 0 && strcmp(who->email, email) == 0 && has_source &&
                  git_commit_parentcount(c) == 1 &&
                  git_oid_equal(git_commit_parent_id(c, 0), &source);
        s->source[0] = '\0';
        if (s->ours)
                git_oid_tostr(s->source, sizeof(s->source), &source);
}

/*
 * Reads the sibling ref.  On success *ret_tip is NULL when the ref does not
 * exist, else its tip commit (the caller frees it).  A symbolic ref, or a
 * tip that is not a commit, is something we did not make and will not touch.
 */
static int read_sibling(git_repository *repo, const char *refname, git_commit **ret_tip,
                        bool *ret_checked_out, char *err, size_t err_size)
{
        git_reference *ref = NULL;
        git_commit *tip = NULL;
        int r;

        r = git_reference_lookup(&ref, repo, refname);
        if (r == GIT_ENOTFOUND) {
                *ret_tip = NULL;
                *ret_checked_out = false;
                return 0;
        }
        if (r < 0)
                return fail_git(err, err_size, r, "%s: cannot read the ref", refname);
        if (git_reference_type(ref) != GIT_REFERENCE_DIRECT) {
                r = format_error(
                    err, err_size, -EINVAL,
                    "%s: is a symbolic ref to %s, not a branch ascendopt made; not touching "
                    "it. Delete it with 'git update-ref -d --no-deref %s' to let ascendopt "
                    "publish there",
                    refname, git_reference_symbolic_target(ref), refname);
                goto out;
        }
        r = git_commit_lookup(&tip, repo, git_reference_target(ref));
        if (r < 0) {
                r = fail_git(err, err_size, r == GIT_ENOTFOUND ? GIT_EINVALID : r,
                             "%s: its tip is not a commit ascendopt can read", refname);
                goto out;
        }
        /* Any work tree's HEAD, the main one's included. */
        r = git_branch_is_checked_out(ref);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: cannot tell whether it is checked out",
                             refname);
                goto out;
        }
        *ret_checked_out = r == 1;
        *ret_tip = tip;
        tip = NULL;
        r = 0;
out:
        git_commit_free(tip);
        git_reference_free(ref);
        return r;
}

int publish_sibling_status(const char *repo_path, const char *ref,
                           const struct publish_identity *identity,
                           struct publish_sibling *ret_sibling, char *err, size_t err_size)
{
        struct publish_sibling s = { 0 };
        git_repository *repo = NULL;
        git_commit *tip = NULL;
        const char *name, *email;
        int valid = 0, r;

        if (!repo_path || !ref)
                return format_error(err, err_size, -EINVAL,
                                    "a repository path and a ref are required");
        if (git_libgit2_init() < 0)
                return format_error(err, err_size, -EIO, "libgit2 failed to initialise");
        if (git_reference_name_is_valid(&valid, ref) < 0 || !valid ||
            strncmp(ref, "refs/", 5) != 0) {
                r = format_error(err, err_size, -EINVAL, "\"%s\" is not a valid full ref name",
                                 ref);
                goto out;
        }
        resolve_identity(identity, &name, &email);
        r = open_repo(repo_path, &repo, err, err_size);
        if (r < 0)
                goto out;
        r = read_sibling(repo, ref, &tip, &s.checked_out, err, err_size);
        if (r < 0)
                goto out;
        if (tip)
                describe_tip(tip, name, email, &s);
        *ret_sibling = s;
out:
        git_commit_free(tip);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return r;
}

/*
 * Finds a ref that keeps refname from being created: a ref named like one
 * of its parent directories (refs/heads/ascendopt/main), or one beneath it.
 * Writes its name into conflict, or "" when there is none.
 */
static int find_ref_in_the_way(git_repository *repo, const char *refname, char *conflict,
                               size_t size)
{
        git_reference_iterator *it = NULL;
        git_reference *ref = NULL;
        char name[PUBLISH_REF_MAX + 2];
        int r;

        conflict[0] = '\0';
        for (size_t i = strlen(HEADS); refname[i]; i++) {
                if (refname[i] != '/')
                        continue;
                snprintf(name, sizeof(name), "%.*s", (int)i, refname);
                r = git_reference_lookup(&ref, repo, name);
                git_reference_free(ref);
                ref = NULL;
                if (r == 0) {
                        snprintf(conflict, size, "%.*s", (int)i, refname);
                        return 0;
                }
                if (r != GIT_ENOTFOUND && r != GIT_EINVALIDSPEC)
                        return r;
        }
        snprintf(name, sizeof(name), "%s/*", refname);
        r = git_reference_iterator_glob_new(&it, repo, name);
        if (r < 0)
                return r;
        r = git_reference_next(&ref, it);
        if (r == 0)
                snprintf(conflict, size, "%s", git_reference_name(ref));
        git_reference_free(ref);
        git_reference_iterator_free(it);
        return r == 0 || r == GIT_ITEROVER ? 0 : r;
}

/* ------------------------------------------------------------- requests */

static bool is_full_hex(const char *s)
{
        size_t n = 0;

        if (!s)
                return false;
        for (; s[n]; n++)
                if (!isxdigit((unsigned char)s[n]))
                        return false;
        return n == GIT_OID_HEXSZ;
}

/* Checks everything that needs no repository and builds the ref name. */
static int check_request(const struct publish_request *req, char *refname, size_t size, char *err,
                         size_t err_size)
{
        const char *prefix;
        size_t op_len;
        int r;

        if (!req || !req->repo_path || !*req->repo_path)
                return format_error(err, err_size, -EINVAL,
                                    "publish: no repository path was given");
        if (!is_full_hex(req->source_commit))
                return format_error(
                    err, err_size, -EINVAL, "%s: source commit \"%s\" is not a full hex commit id",
                    req->repo_path, req->source_commit ? req->source_commit : "(null)");
        prefix = req->prefix ? req->prefix : PUBLISH_DEFAULT_PREFIX;
        r = publish_branch_name(prefix, req->branch, req->op_path, refname, size, err, err_size);
        if (r < 0)
                return r;
        if (req->n_files == 0 || !req->files)
                return format_error(err, err_size, -EINVAL, "%s: nothing to publish for %s",
                                    req->repo_path, req->op_path);
        if (req->n_files > PUBLISH_MAX_FILES)
                return format_error(err, err_size, -EINVAL,
                                    "%s: %zu files to publish for %s; at most %d are allowed",
                                    req->repo_path, req->n_files, req->op_path, PUBLISH_MAX_FILES);
        op_len = strlen(req->op_path);
        for (size_t i = 0; i < req->n_files; i++) {
                const struct publish_file *f = &req->files[i];

                if (!path_is_clean(f->path) || strncmp(f->path, req->op_path, op_len) != 0 ||
                    f->path[op_len] != '/')
                        return format_error(
                            err, err_size, -EINVAL,
                            "%s: file \"%s\" is not a clean path inside the operator "
                            "directory %s",
                            req->repo_path, f->path ? f->path : "(null)", req->op_path);
                if (!f->data && f->len)
                        return format_error(err, err_size, -EINVAL, "%s: file %s has no data",
                                            req->repo_path, f->path);
        }
        return 0;
}

static int compare_updates(const void *a, const void *b)
{
        const git_tree_update *x = a, *y = b;

        return strcmp(x->path, y->path);
}

/*
 * Checks that every directory above path is a directory in the source tree
 * (or absent), and returns the mode path should get: executable when the
 * source had it so, a plain blob otherwise.  Symlinks, submodules and
 * directories are not replaced.
 */
static int mode_for_path(git_tree *base, const char *path, git_filemode_t *ret_mode,
                         const char *repo_path, char *err, size_t err_size)
{
        git_tree_entry *entry = NULL;
        char partial[4096];
        git_filemode_t mode;
        size_t len = strlen(path);
        int r;

        if (len >= sizeof(partial))
                return format_error(err, err_size, -ENAMETOOLONG, "%s: path %s is too long",
                                    repo_path, path);
        for (size_t i = 0; i <= len; i++) {
                if (path[i] != '/' && path[i] != '\0')
                        continue;
                memcpy(partial, path, i);
                partial[i] = '\0';
                r = git_tree_entry_bypath(&entry, base, partial);
                if (r == GIT_ENOTFOUND) {
                        *ret_mode = GIT_FILEMODE_BLOB;
                        return 0;
                }
                if (r < 0)
                        return fail_git(err, err_size, r, "%s: cannot look up %s", repo_path,
                                        partial);
                mode = git_tree_entry_filemode(entry);
                git_tree_entry_free(entry);
                entry = NULL;
                if (path[i] == '/' && mode != GIT_FILEMODE_TREE)
                        return format_error(
                            err, err_size, -EINVAL,
                            "%s: cannot write %s: %s is not a directory in the source "
                            "commit",
                            repo_path, path, partial);
                if (path[i] == '\0' && mode != GIT_FILEMODE_BLOB &&
                    mode != GIT_FILEMODE_BLOB_EXECUTABLE)
                        return format_error(
                            err, err_size, -EINVAL,
                            "%s: cannot write %s: it is a %s in the source commit, and "
                            "ascendopt only replaces regular files",
                            repo_path, path,
                            mode == GIT_FILEMODE_TREE   ? "directory"
                            : mode == GIT_FILEMODE_LINK ? "symbolic link"
                                                        : "submodule");
                if (path[i] == '\0')
                        *ret_mode = mode;
        }
        return 0;
}

/* Writes the blobs and the source tree with the request's files replaced. */
static int build_tree(git_repository *repo, git_tree *base, const struct publish_request *req,
                      git_oid *ret_tree, char *err, size_t err_size)
{
        git_tree_update *updates;
        int r;

        updates = calloc(req->n_files, sizeof(*updates));
        if (!updates)
                return format_error(err, err_size, -ENOMEM, "%s: out of memory", req->repo_path);
        for (size_t i = 0; i < req->n_files; i++) {
                const struct publish_file *f = &req->files[i];

                updates[i].action = GIT_TREE_UPDATE_UPSERT;
                updates[i].path = f->path;
                r = mode_for_path(base, f->path, &updates[i].filemode, req->repo_path, err,
                                  err_size);
                if (r < 0)
                        goto out;
                r = git_blob_create_from_buffer(&updates[i].id, repo, f->len ? f->data : "",
                                                f->len);
                if (r < 0) {
                        r = fail_git(err, err_size, r, "%s: cannot write the blob for %s",
                                     req->repo_path, f->path);
                        goto out;
                }
        }
        qsort(updates, req->n_files, sizeof(*updates), compare_updates);
        for (size_t i = 1; i < req->n_files; i++)
                if (strcmp(updates[i - 1].path, updates[i].path) == 0) {
                        r = format_error(err, err_size, -EINVAL, "%s: file %s is given twice",
                                         req->repo_path, updates[i].path);
                        goto out;
                }
        r = git_tree_create_updated(ret_tree, repo, base, req->n_files, updates);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: cannot build the tree for %s", req->repo_path,
                             req->op_path);
                goto out;
        }
        r = 0;
out:
        free(updates);
        return r;
}

/* The request's message, trimmed, with our trailer in its last paragraph. */
static char *build_message(const struct publish_request *req, const git_oid *source)
{
        char hex[GIT_OID_HEXSZ + 1], *fallback = NULL, *message = NULL;
        const char *text = req->message;
        size_t len;

        if (!text) {
                if (asprintf(&fallback, "ascendopt: optimize %s", req->op_path) < 0)
                        return NULL;
                text = fallback;
        }
        len = strlen(text);
        while (len && isspace((unsigned char)text[len - 1]))
                len--;
        git_oid_tostr(hex, sizeof(hex), source);
        message = malloc(len + sizeof("\n\n" PUBLISH_TRAILER ": \n") + GIT_OID_HEXSZ);
        if (message) {
                /* joins a trailer block the caller ended with, such as Signed-off-by */
                const char *gap = ends_with_trailers(text, len) ? "\n" : len ? "\n\n" : "";

                memcpy(message, text, len);
                sprintf(message + len, "%s" PUBLISH_TRAILER ": %s\n", gap, hex);
        }
        free(fallback);
        return message;
}

/* ------------------------------------------------------------- reflogs */

/* Whether libgit2 writes a reflog entry for a refs/heads/ update by itself. */
static int reflog_is_automatic(git_repository *repo, bool *ret_automatic)
{
        git_config *config = NULL;
        const char *value;
        int r, on = 0;

        r = git_repository_config_snapshot(&config, repo);
        if (r < 0)
                return r;
        r = git_config_get_string(&value, config, "core.logallrefupdates");
        if (r == GIT_ENOTFOUND)
                *ret_automatic = !git_repository_is_bare(repo);
        else if (r == 0 && strcasecmp(value, "always") == 0)
                *ret_automatic = true;
        else if (r == 0)
                *ret_automatic = git_config_parse_bool(&on, value) == 0 && on;
        git_config_free(config);
        return r == GIT_ENOTFOUND ? 0 : r;
}

/*
 * Appends old -> new to the sibling's reflog ourselves, for bare
 * repositories and core.logAllRefUpdates=false, where libgit2 writes none:
 * the reflog is what keeps an earlier tip reachable.  libgit2 takes an
 * entry's old id from the entry before it, so a tip that is missing from
 * the log (made before it existed) is recorded first.
 */
static int append_reflog(git_repository *repo, const char *refname, const git_oid *old,
                         const git_oid *new, const git_signature *who, const char *message)
{
        const git_reflog_entry *last;
        git_reflog *log = NULL;
        int r;

        r = git_reflog_read(&log, repo, refname);
        if (r < 0)
                return r;
        last = git_reflog_entry_byindex(log, 0);
        if (old && (!last || !git_oid_equal(git_reflog_entry_id_new(last), old))) {
                r = git_reflog_append(log, old, who, "ascendopt: the tip found before this update");
                if (r < 0)
                        goto out;
        }
        r = git_reflog_append(log, new, who, message);
        if (r < 0)
                goto out;
        r = git_reflog_write(log);
out:
        git_reflog_free(log);
        return r;
}

/* ---------------------------------------------------------------- commits */

/*
 * The source commit must still be on its branch (the tip, or an ancestor
 * of it): a commit force-pushed away, with whatever it held, must not
 * become reachable again as the parent of a sibling branch.
 */
static int check_source_on_branch(git_repository *repo, const struct publish_request *req,
                                  const git_oid *source, const char *source_hex, char *err,
                                  size_t err_size)
{
        git_reference *branch = NULL;
        const git_oid *tip;
        int r;

        r = git_branch_lookup(&branch, repo, req->branch, GIT_BRANCH_LOCAL);
        if (r == GIT_ENOTFOUND)
                r = git_branch_lookup(&branch, repo, req->branch, GIT_BRANCH_REMOTE);
        if (r < 0)
                return format_error(err, err_size, -ESTALE,
                                    "%s: branch %s is gone; its commit %.7s is not published",
                                    req->repo_path, req->branch, source_hex);
        tip = git_reference_target(branch);
        r = tip && (git_oid_equal(tip, source) || git_graph_descendant_of(repo, tip, source) == 1)
                ? 0
                : format_error(
                      err, err_size, -ESTALE,
                      "%s: commit %.7s is no longer on branch %s (rewritten or force-pushed "
                      "away); it is not published",
                      req->repo_path, source_hex, req->branch);
        git_reference_free(branch);
        return r;
}

/* Sleeps 5, 10, 20 ... ms plus up to half as much again, so racers spread out. */
static void backoff(unsigned attempt, unsigned *seed)
{
        long us = 5000L << (attempt < 6 ? attempt : 6);
        struct timespec ts;

        us += rand_r(seed) % (us / 2 + 1);
        ts.tv_sec = us / 1000000;
        ts.tv_nsec = (us % 1000000) * 1000;
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static unsigned backoff_seed(void)
{
        struct timespec now;
        unsigned seed = (unsigned)getpid();

        clock_gettime(CLOCK_MONOTONIC, &now);
        seed ^= (unsigned)now.tv_nsec ^ (unsigned)(uintptr_t)&now;
        return seed;
}

static int fail_foreign(const struct publish_request *req, const char *refname,
                        const struct publish_sibling *s, const char *name, const char *email,
                        char *err, size_t err_size)
{
        char mine[512];
        bool same_committer;

        snprintf(mine, sizeof(mine), "%s <%s>", name, email);
        same_committer = strcmp(s->committer, mine) == 0;
        return format_error(
            err, err_size, -EEXIST,
            "%s: someone other than %s committed to this branch (tip %.7s by %s%s); not "
            "updating it. Run 'ascendopt recreate %s %s --branch %s' to rebuild it",
            refname, name, s->tip, s->committer,
            same_committer ? ", without an " PUBLISH_TRAILER " trailer naming its parent" : "",
            req->repo_path, req->op_path, req->branch);
}

/*
 * The commit of an unfinished earlier attempt (req->resume), when it still
 * exists and is ours for this source commit: its only parent is the source
 * and its trailer names it.  Anything else is ignored, and a new commit is
 * made.
 */
static bool find_resumed_commit(git_repository *repo, const struct publish_request *req,
                                const git_oid *source, git_oid *ret_commit)
{
        git_commit *c = NULL;
        git_oid id, named;
        bool usable;

        if (!req->resume || !is_full_hex(req->resume->commit) ||
            git_oid_fromstr(&id, req->resume->commit) < 0 || git_commit_lookup(&c, repo, &id) < 0)
                return false;
        usable =
            git_commit_parentcount(c) == 1 && git_oid_equal(git_commit_parent_id(c, 0), source) &&
            find_source_trailer(git_commit_message(c), &named) && git_oid_equal(&named, source);
        git_commit_free(c);
        if (usable)
                *ret_commit = id;
        return usable;
}

/* Hands the caller what is about to happen, before the ref first moves. */
static int record_intent(const struct publish_request *req, const char *refname,
                         const git_commit *tip, const git_oid *commit, char *err, size_t err_size)
{
        struct publish_intent intent = { 0 };
        int r;

        snprintf(intent.ref, sizeof(intent.ref), "%s", refname);
        if (tip)
                git_oid_tostr(intent.previous, sizeof(intent.previous), git_commit_id(tip));
        git_oid_tostr(intent.commit, sizeof(intent.commit), commit);
        r = req->before_update(&intent, req->userdata);
        if (r < 0)
                return format_error(
                    err, err_size, r,
                    "%s: cannot record what is about to be published (%s); nothing was "
                    "published",
                    refname, strerror(-r));
        return 0;
}

int publish_commit_hooked(const struct publish_request *req, const struct publish_hooks *hooks,
                          struct publish_outcome *ret_outcome, char *err, size_t err_size)
{
        struct publish_outcome out = { 0 };
        char refname[PUBLISH_REF_MAX], logmsg[PUBLISH_REF_MAX + 128];
        char source_hex[GIT_OID_HEXSZ + 1];
        git_repository *repo = NULL;
        git_commit *source = NULL, *tip = NULL;
        git_tree *base = NULL, *tree = NULL;
        git_tree_entry *op_entry = NULL;
        git_signature *who = NULL;
        git_reference *ref = NULL;
        char *message = NULL;
        const char *name, *email;
        git_oid source_id, tree_id, commit_id, tip_id;
        bool have_commit = false, done = false, automatic = false, resumed = false;
        unsigned seed = backoff_seed();
        int r;

        r = check_request(req, refname, sizeof(refname), err, err_size);
        if (r < 0)
                return r;
        resolve_identity(&req->identity, &name, &email);
        if (git_libgit2_init() < 0)
                return format_error(err, err_size, -EIO, "libgit2 failed to initialise");
        r = open_repo(req->repo_path, &repo, err, err_size);
        if (r < 0)
                goto out;
        /* The reflog entries libgit2 writes name us, not the user's config. */
        r = git_repository_set_ident(repo, name, email);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: cannot set the reflog identity",
                             req->repo_path);
                goto out;
        }

        r = git_oid_fromstr(&source_id, req->source_commit);
        if (r == 0)
                r = git_commit_lookup(&source, repo, &source_id);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: source commit %s", req->repo_path,
                             req->source_commit);
                goto out;
        }
        git_oid_tostr(source_hex, sizeof(source_hex), &source_id);
        r = check_source_on_branch(repo, req, &source_id, source_hex, err, err_size);
        if (r < 0)
                goto out;
        r = git_commit_tree(&base, source);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: cannot read the tree of %s", req->repo_path,
                             source_hex);
                goto out;
        }
        r = git_tree_entry_bypath(&op_entry, base, req->op_path);
        if (r < 0 || git_tree_entry_type(op_entry) != GIT_OBJECT_TREE) {
                r = format_error(err, err_size, r == GIT_ENOTFOUND ? -ENOENT : -EINVAL,
                                 "%s: source commit %.7s has no directory %s", req->repo_path,
                                 source_hex, req->op_path);
                goto out;
        }
        r = build_tree(repo, base, req, &tree_id, err, err_size);
        if (r < 0)
                goto out;
        r = git_tree_lookup(&tree, repo, &tree_id);
        if (r == 0)
                r = git_signature_now(&who, name, email);
        if (r < 0) {
                r = fail_git(err, err_size, r, "%s: cannot prepare the commit", req->repo_path);
                goto out;
        }
        message = build_message(req, &source_id);
        if (!message) {
                r = format_error(err, err_size, -ENOMEM, "%s: out of memory", req->repo_path);
                goto out;
        }
        snprintf(logmsg, sizeof(logmsg), "ascendopt: %s %s from %s at %.7s",
                 req->recreate ? "recreate" : "publish", req->op_path, req->branch, source_hex);
        resumed = have_commit = find_resumed_commit(repo, req, &source_id, &commit_id);

        for (unsigned attempt = 0; attempt < PUBLISH_MAX_ATTEMPTS && !done; attempt++) {
                struct publish_sibling s = { 0 };
                bool checked_out = false;

                if (attempt > 0)
                        backoff(attempt - 1, &seed);
                git_commit_free(tip);
                tip = NULL;
                r = read_sibling(repo, refname, &tip, &checked_out, err, err_size);
                if (r < 0)
                        goto out;
                if (checked_out) {
                        r = format_error(
                            err, err_size, -EBUSY,
                            "%s: is checked out in a work tree of %s, and ascendopt never "
                            "moves a branch someone has checked out. Switch that work tree "
                            "to another branch",
                            refname, req->repo_path);
                        goto out;
                }
                if (tip && resumed && git_oid_equal(git_commit_id(tip), &commit_id)) {
                        /* the earlier attempt moved the ref and died before saying so */
                        out.result = req->resume->previous[0] ? PUBLISH_MOVED : PUBLISH_CREATED;
                        out.recovered = true;
                        git_oid_tostr(out.commit, sizeof(out.commit), &commit_id);
                        snprintf(out.previous, sizeof(out.previous), "%s", req->resume->previous);
                        break;
                }
                if (tip) {
                        tip_id = *git_commit_id(tip);
                        describe_tip(tip, name, email, &s);
                        if (!s.ours && !req->recreate) {
                                r = fail_foreign(req, refname, &s, name, email, err, err_size);
                                goto out;
                        }
                        if (s.ours && git_oid_equal(git_commit_tree_id(tip), &tree_id) &&
                            git_oid_equal(git_commit_parent_id(tip, 0), &source_id)) {
                                out.result = PUBLISH_UNCHANGED;
                                git_oid_tostr(out.commit, sizeof(out.commit), &tip_id);
                                git_oid_tostr(out.previous, sizeof(out.previous), &tip_id);
                                break;
                        }
                }
                if (!have_commit) {
                        const git_commit *parents[] = { source };

                        r = git_commit_create(&commit_id, repo, NULL, who, who, NULL, message, tree,
                                              1, parents);
                        if (r < 0) {
                                r = fail_git(err, err_size, r, "%s: cannot write the commit",
                                             req->repo_path);
                                goto out;
                        }
                        have_commit = true;
                        if (req->before_update) {
                                r = record_intent(req, refname, tip, &commit_id, err, err_size);
                                if (r < 0)
                                        goto out;
                        }
                }
                if (!tip) {
                        char conflict[PUBLISH_REF_MAX];

                        r = find_ref_in_the_way(repo, refname, conflict, sizeof(conflict));
                        if (r < 0) {
                                r = fail_git(err, err_size, r, "%s: cannot list refs", refname);
                                goto out;
                        }
                        if (conflict[0]) {
                                r = format_error(
                                    err, err_size, -EINVAL,
                                    "%s: cannot be created: the ref %s is in the way. "
                                    "Rename that branch, or choose another publish prefix",
                                    refname, conflict);
                                goto out;
                        }
                }
                if (hooks && hooks->before_update)
                        hooks->before_update(refname, attempt, hooks->userdata);

                /* Create-only when absent, else swap exactly the tip just read. */
                r = git_reference_create_matching(&ref, repo, refname, &commit_id, tip ? 1 : 0,
                                                  tip ? &tip_id : NULL, logmsg);
                git_reference_free(ref);
                ref = NULL;
                if (r == 0) {
                        out.result = tip ? PUBLISH_MOVED : PUBLISH_CREATED;
                        out.replaced_foreign = tip && !s.ours;
                        out.attempts = attempt + 1;
                        git_oid_tostr(out.commit, sizeof(out.commit), &commit_id);
                        if (tip)
                                git_oid_tostr(out.previous, sizeof(out.previous), &tip_id);
                        done = true;
                        continue;
                }
                if (r == GIT_EEXISTS && !tip) {
                        /* Someone created it since we looked, or a ref is in the way. */
                        char why[512];
                        int exists = 0;

                        snprintf(why, sizeof(why), "%s", libgit2_message());
                        if (git_reference_lookup(&ref, repo, refname) == 0)
                                exists = 1;
                        git_reference_free(ref);
                        ref = NULL;
                        if (exists)
                                continue;
                        r = format_error(err, err_size, -EINVAL, "%s: cannot be created: %s",
                                         refname, why);
                        goto out;
                }
                /* A lock, a changed tip, or a tip deleted since we read it. */
                if (r == GIT_ELOCKED || r == GIT_EMODIFIED || (r == GIT_ENOTFOUND && tip))
                        continue;
                r = fail_git(err, err_size, r, "%s: cannot update the ref", refname);
                goto out;
        }
        if (out.result == 0) {
                r = format_error(
                    err, err_size, -EAGAIN,
                    "%s: the ref was locked or changed by another process on each of %d "
                    "attempts; nothing was published, try again later",
                    refname, PUBLISH_MAX_ATTEMPTS);
                goto out;
        }
        if (out.result != PUBLISH_UNCHANGED && !out.recovered) {
                r = reflog_is_automatic(repo, &automatic);
                for (unsigned attempt = 0; r == 0 && !automatic; attempt++) {
                        r = append_reflog(repo, refname, tip ? &tip_id : NULL, &commit_id, who,
                                          logmsg);
                        if (r != GIT_ELOCKED || attempt + 1 >= PUBLISH_MAX_ATTEMPTS)
                                break;
                        backoff(attempt, &seed);
                        r = 0;
                }
                if (r < 0) {
                        r = fail_git(err, err_size, r,
                                     "%s: moved to %.7s, but its reflog could not be written",
                                     refname, out.commit);
                        goto out;
                }
        }
        snprintf(out.ref, sizeof(out.ref), "%s", refname);
        *ret_outcome = out;
        r = 0;
out:
        free(message);
        git_reference_free(ref);
        git_signature_free(who);
        git_tree_free(tree);
        git_tree_entry_free(op_entry);
        git_tree_free(base);
        git_commit_free(tip);
        git_commit_free(source);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return r;
}

int publish_commit(const struct publish_request *request, struct publish_outcome *ret_outcome,
                   char *err, size_t err_size)
{
        return publish_commit_hooked(request, NULL, ret_outcome, err, err_size);
}
