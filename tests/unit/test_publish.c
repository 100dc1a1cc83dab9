/* SPDX-License-Identifier: MIT */
/*
 * Tests of sibling-branch publishing on real git repositories made by the
 * test with the git CLI: names, the commit's tree, parent and trailer, the
 * untouched work tree, index, HEAD and user refs (also while another
 * process commits), moves, no-op republishing, bot etiquette, the
 * compare-and-swap under races, bare repositories, linked worktrees and
 * refused reftable repositories.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "publish/publish-internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#define OP      "src/math/add"
#define SIBLING "refs/heads/ascendopt/main/src+math+add"
#define JANE    "Jane User <jane@example.com>"

static char home[64];
static char dir[64];
static char repo[128];

/* ---------------------------------------------------------------- shell */

static int sh_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int vsh_status(const char *fmt, va_list ap)
{
        char cmd[4096];
        int status;

        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        status = system(cmd);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int sh_status(const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vsh_status(fmt, ap);
        va_end(ap);
        return r;
}

/* Runs a shell command that must succeed. */
static void sh(const char *fmt, ...)
{
        char cmd[4096];
        va_list ap;
        int status;

        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        status = system(cmd);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("command failed (%d): %s", status, cmd);
}

/* Runs a shell command and returns its stdout without the last newline (malloc'd). */
static char *sh_out(const char *fmt, ...)
{
        char cmd[4096], *buf = NULL;
        size_t len = 0, cap = 0;
        va_list ap;
        FILE *p;
        int c;

        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        p = popen(cmd, "re");
        assert_non_null(p);
        while ((c = fgetc(p)) != EOF) {
                if (len + 2 > cap) {
                        cap = cap ? cap * 2 : 256;
                        char *bigger = realloc(buf, cap);
                        assert_non_null(bigger);
                        buf = bigger;
                }
                buf[len++] = (char)c;
        }
        if (pclose(p) != 0)
                fail_msg("command failed: %s", cmd);
        if (!buf)
                return strdup("");
        while (len && buf[len - 1] == '\n')
                len--;
        buf[len] = '\0';
        return buf;
}

/* Compares a command's output with a string. */
static void assert_out(const char *want, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void assert_out(const char *want, const char *fmt, ...)
{
        char cmd[4096], *got;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        got = sh_out("%s", cmd);
        if (strcmp(got, want) != 0)
                fail_msg("%s\n  want: %s\n  got:  %s", cmd, want, got);
        free(got);
}

static char *read_all(const char *path, size_t *ret_len)
{
        FILE *f = fopen(path, "re");
        char *buf;
        long n;

        if (!f)
                return NULL;
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        n = ftell(f);
        rewind(f);
        buf = malloc((size_t)n + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
        buf[n] = '\0';
        fclose(f);
        if (ret_len)
                *ret_len = (size_t)n;
        return buf;
}

/* ------------------------------------------------------------- fixtures */

/* A repository on branch main with two operators and one commit by Jane. */
static void make_repo(const char *path)
{
        sh("git init -q -b main %s && cd %s && git config gc.auto 0 && "
           "mkdir -p " OP "/op_host " OP "/op_kernel src/math/mul/op_kernel docs && "
           "printf 'tiling v1\\n' > " OP "/op_host/add_tiling.h && "
           "printf 'kernel v1\\n' > " OP "/op_kernel/add.cpp && "
           "printf '#!/bin/sh\\necho build\\n' > " OP "/build.sh && chmod +x " OP "/build.sh && "
           "printf 'mul v1\\n' > src/math/mul/op_kernel/mul.cpp && "
           "printf 'readme\\n' > docs/README.md && "
           "git add -A && git commit -qm initial",
           path, path);
}

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/ascendopt-publish-XXXXXX");
        assert_non_null(mkdtemp(dir));
        snprintf(repo, sizeof(repo), "%s/repo", dir);
        make_repo(repo);
        return 0;
}

static int teardown(void **state)
{
        assert_int_equal(rm_rf(dir), 0);
        return 0;
}

static char *rev(const char *what)
{
        return sh_out("git -C %s rev-parse --verify -q '%s'", repo, what);
}

static const struct publish_file files_v2[] = {
        { OP "/op_kernel/add.cpp", "kernel v2\n", 10 },
        { OP "/ascendopt-report.md", "# report v2\n", 12 },
};

static const struct publish_file files_v3[] = {
        { OP "/op_kernel/add.cpp", "kernel v3\n", 10 },
        { OP "/ascendopt-report.md", "# report v3\n", 12 },
};

static struct publish_request request(const char *path, const char *source,
                                      const struct publish_file *files, size_t n)
{
        struct publish_request req = {
                .repo_path = path,
                .branch = "main",
                .source_commit = source,
                .op_path = OP,
                .files = files,
                .n_files = n,
                .message = "ascendopt: add 1.42x faster (312.4 -> 220.0 us, Ascend910B4 sim)\n\n"
                           "- tile from the UB size\n",
        };
        return req;
}

static struct publish_outcome publish_ok(const struct publish_request *req)
{
        struct publish_outcome out;
        char err[1024] = "";

        memset(&out, 0, sizeof(out));
        if (publish_commit(req, &out, err, sizeof(err)) < 0)
                fail_msg("publish_commit: %s", err);
        return out;
}

/* Whether oid (hex) is the old or new id of an entry in ref's reflog. */
static bool in_reflog(const char *path, const char *ref, const char *hex)
{
        git_repository *r = NULL;
        git_reflog *log = NULL;
        git_oid want;
        bool found = false;

        assert_true(git_libgit2_init() > 0);
        assert_int_equal(git_oid_fromstr(&want, hex), 0);
        assert_int_equal(git_repository_open(&r, path), 0);
        assert_int_equal(git_reflog_read(&log, r, ref), 0);
        for (size_t i = 0; i < git_reflog_entrycount(log); i++) {
                const git_reflog_entry *e = git_reflog_entry_byindex(log, i);
                if (git_oid_equal(git_reflog_entry_id_new(e), &want) ||
                    git_oid_equal(git_reflog_entry_id_old(e), &want))
                        found = true;
        }
        git_reflog_free(log);
        git_repository_free(r);
        git_libgit2_shutdown();
        return found;
}

static size_t reflog_count(const char *path, const char *ref)
{
        git_repository *r = NULL;
        git_reflog *log = NULL;
        size_t n;

        assert_true(git_libgit2_init() > 0);
        assert_int_equal(git_repository_open(&r, path), 0);
        assert_int_equal(git_reflog_read(&log, r, ref), 0);
        n = git_reflog_entrycount(log);
        git_reflog_free(log);
        git_repository_free(r);
        git_libgit2_shutdown();
        return n;
}

/* A commit by Jane on top of parent, touching nothing: someone else's push. */
static char *foreign_commit(const char *parent, const char *name, const char *email,
                            const char *message)
{
        return sh_out("cd %s && GIT_COMMITTER_NAME='%s' GIT_COMMITTER_EMAIL='%s' "
                      "git commit-tree -p %s -m '%s' '%s^{tree}'",
                      repo, name, email, parent, message, parent);
}

/* ------------------------------------------------------------ branch names */

static void test_branch_names(void **state)
{
        char buf[PUBLISH_REF_MAX], err[512] = "";

        assert_int_equal(publish_branch_name("ascendopt/", "dev/x", "src/math/add", buf,
                                             sizeof(buf), err, sizeof(err)),
                         0);
        assert_string_equal(buf, "refs/heads/ascendopt/dev+x/src+math+add");
        assert_int_equal(publish_branch_name("ascendopt/", "team/a/b/feature", "ops/add", buf,
                                             sizeof(buf), err, sizeof(err)),
                         0);
        assert_string_equal(buf, "refs/heads/ascendopt/team+a+b+feature/ops+add");
        assert_int_equal(publish_branch_name("bots/ascendopt-", "main", "add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         0);
        assert_string_equal(buf, "refs/heads/bots/ascendopt-main/add");
        /* injective: branches a/b and a+b, or operators x/y and x+y, never share a sibling */
        assert_int_equal(
            publish_branch_name("ascendopt/", "a+b", "x+y%z", buf, sizeof(buf), err, sizeof(err)),
            0);
        assert_string_equal(buf, "refs/heads/ascendopt/a%2Bb/x%2By%25z");

        assert_int_equal(publish_branch_name("ascendopt/", "main", "src/../add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "operator path \"src/../add\""));
        assert_int_equal(publish_branch_name("ascendopt/", "main", "src/add.lock", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "a path component ends in \".lock\""));
        assert_int_equal(publish_branch_name("ascendopt/", "main", "src/x.lock/add", buf,
                                             sizeof(buf), err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(publish_branch_name("ascendopt/", "main", "src/a..b/add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "is not a valid git ref name"));
        assert_int_equal(publish_branch_name("ascendopt/", "main", "/src/add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(publish_branch_name("ascendopt/", "main", "src//add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(publish_branch_name("ascendopt/", "main", "src/add/", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(publish_branch_name("ascendopt/", "main", ".git/add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(publish_branch_name("ascendopt/", "my branch", "add", buf, sizeof(buf),
                                             err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(publish_branch_name("ascendopt/", "main@{1}", "add", buf, sizeof(buf), err,
                                             sizeof(err)),
                         -EINVAL);
        assert_int_equal(
            publish_branch_name("ascendopt/", "", "add", buf, sizeof(buf), err, sizeof(err)),
            -EINVAL);
        assert_int_equal(publish_branch_name("", "main", "add", buf, sizeof(buf), err, sizeof(err)),
                         -EINVAL);
        assert_int_equal(
            publish_branch_name("/ascendopt/", "main", "add", buf, sizeof(buf), err, sizeof(err)),
            -EINVAL);
        assert_int_equal(
            publish_branch_name("ascendopt/", "main", "src/math/add", buf, 20, err, sizeof(err)),
            -ENAMETOOLONG);
}

/* ---------------------------------------------------------------- publish */

static void test_publish_creates_branch(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome out = publish_ok(&req);
        struct publish_sibling s;
        char err[512] = "", want[256], *body;

        assert_int_equal(out.result, PUBLISH_CREATED);
        assert_string_equal(publish_result_name(out.result), "created");
        assert_string_equal(out.ref, SIBLING);
        assert_string_equal(out.previous, "");
        assert_int_equal(out.attempts, 1);
        assert_false(out.replaced_foreign);
        assert_out(out.commit, "git -C %s rev-parse " SIBLING, repo);

        /* only the given paths differ from the source tree */
        assert_out(OP "/ascendopt-report.md\n" OP "/op_kernel/add.cpp",
                   "git -C %s diff --name-only %s " SIBLING, repo, src);
        assert_out("kernel v2", "git -C %s show " SIBLING ":" OP "/op_kernel/add.cpp", repo);
        assert_out("# report v2", "git -C %s show " SIBLING ":" OP "/ascendopt-report.md", repo);
        /* an executable file stays executable (here untouched) */
        assert_out("100755", "git -C %s ls-tree " SIBLING " " OP "/build.sh | cut -c1-6", repo);

        /* one commit, whose only parent is the source commit */
        snprintf(want, sizeof(want), "%s %s", out.commit, src);
        assert_out(want, "git -C %s rev-list --parents -n1 " SIBLING, repo);
        assert_out("1", "git -C %s rev-list --count %s.." SIBLING, repo, src);
        assert_out("ascendopt <ascendopt@localhost>|ascendopt <ascendopt@localhost>",
                   "git -C %s log -1 --format='%%an <%%ae>|%%cn <%%ce>' " SIBLING, repo);
        body = sh_out("git -C %s log -1 --format=%%B " SIBLING, repo);
        assert_true(strncmp(body, "ascendopt: add 1.42x faster", 27) == 0);
        assert_non_null(strstr(body, "- tile from the UB size\n"));
        free(body);
        snprintf(want, sizeof(want), "Ascendopt-Source: %s", src);
        assert_out(want,
                   "git -C %s log -1 --format=%%B " SIBLING " | git interpret-trailers --parse",
                   repo);
        sh("git -C %s fsck --no-progress --no-dangling --strict >/dev/null 2>&1", repo);

        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)), 0);
        assert_true(s.exists);
        assert_true(s.ours);
        assert_string_equal(s.tip, out.commit);
        assert_string_equal(s.source, src);
        assert_string_equal(s.committer, "ascendopt <ascendopt@localhost>");
        assert_true(s.commit_time > 0);
        assert_int_equal(publish_sibling_status(repo, "refs/heads/ascendopt/main/none", NULL, &s,
                                                err, sizeof(err)),
                         0);
        assert_false(s.exists);
        assert_false(s.ours);
        assert_string_equal(s.tip, "");
        assert_int_equal(publish_sibling_status(repo, "not a ref", NULL, &s, err, sizeof(err)),
                         -EINVAL);
        free(src);
}

static void test_default_message_and_executable_file(void **state)
{
        char *src = rev("main");
        const struct publish_file files[] = {
                { OP "/build.sh", "#!/bin/sh\necho faster\n", 22 },
                { OP "/op_kernel/new/extra.h", "", 0 },
        };
        struct publish_request req = request(repo, src, files, 2);
        struct publish_outcome out;
        char want[128];

        req.message = NULL;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_CREATED);
        snprintf(want, sizeof(want), "ascendopt: optimize " OP "\n\nAscendopt-Source: %s", src);
        assert_out(want, "git -C %s log -1 --format=%%B " SIBLING, repo);
        assert_out("100755", "git -C %s ls-tree " SIBLING " " OP "/build.sh | cut -c1-6", repo);
        assert_out("100644",
                   "git -C %s ls-tree " SIBLING " " OP "/op_kernel/new/extra.h | cut -c1-6", repo);
        assert_out(OP "/build.sh\n" OP "/op_kernel/new/extra.h",
                   "git -C %s diff --name-only %s " SIBLING, repo, src);
        free(src);
}

/* A message body with a "---" line, which git reads as the start of a patch. */
static void test_trailer_found_after_a_dashes_line(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome out;
        struct publish_sibling s;
        char err[512] = "", want[256];

        req.message = "ascendopt: add 1.10x faster\n\nStage I\n---\ntile 4096 -> 8192\n\n"
                      "Signed-off-by: Jane User <jane@example.com>\n";
        out = publish_ok(&req);
        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)), 0);
        assert_true(s.ours);
        assert_string_equal(s.source, src);
        req.files = files_v3;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_MOVED);
        /* our trailer joins the caller's trailer block, and git sees both */
        snprintf(want, sizeof(want),
                 "tile 4096 -> 8192\n\nSigned-off-by: " JANE "\nAscendopt-Source: %s", src);
        assert_out(want, "git -C %s log -1 --format=%%B " SIBLING " | sed -n 5,8p", repo);
        free(src);
}

/* --------------------------------------------------------------- safety */

struct snapshot {
        char *status, *refs, *head, *logs_head, *index, *stash;
        size_t index_len;
        struct timespec index_mtime;
};

static void take_snapshot(const char *path, struct snapshot *s)
{
        char file[PATH_MAX];
        struct stat st;

        /* no optional locks: status must not refresh the index itself */
        s->status = sh_out("cd %s && git --no-optional-locks status --porcelain=v1 "
                           "--untracked-files=all",
                           path);
        s->refs = sh_out("cd %s && git for-each-ref --format='%%(refname) %%(objectname)' | "
                         "grep -v '^refs/heads/ascendopt/' || true",
                         path);
        s->stash = sh_out("cd %s && git stash list", path);
        snprintf(file, sizeof(file), "%s/.git/HEAD", path);
        s->head = read_all(file, NULL);
        snprintf(file, sizeof(file), "%s/.git/logs/HEAD", path);
        s->logs_head = read_all(file, NULL);
        snprintf(file, sizeof(file), "%s/.git/index", path);
        s->index = read_all(file, &s->index_len);
        assert_int_equal(stat(file, &st), 0);
        s->index_mtime = st.st_mtim;
}

static void assert_same_snapshot(const struct snapshot *a, const struct snapshot *b)
{
        assert_string_equal(a->status, b->status);
        assert_string_equal(a->refs, b->refs);
        assert_string_equal(a->stash, b->stash);
        assert_string_equal(a->head, b->head);
        assert_string_equal(a->logs_head, b->logs_head);
        assert_int_equal(a->index_len, b->index_len);
        assert_memory_equal(a->index, b->index, a->index_len);
        assert_int_equal(a->index_mtime.tv_sec, b->index_mtime.tv_sec);
        assert_int_equal(a->index_mtime.tv_nsec, b->index_mtime.tv_nsec);
}

static void snapshot_release(struct snapshot *s)
{
        free(s->status);
        free(s->refs);
        free(s->head);
        free(s->logs_head);
        free(s->index);
        free(s->stash);
}

static void test_work_tree_index_head_and_refs_untouched(void **state)
{
        struct snapshot before, after;
        struct publish_request req;
        char *src = rev("main"), *status;

        /* a work tree in the middle of something: staged, modified, untracked */
        sh("cd %s && git branch topic && git tag v1 && printf 'staged\\n' > docs/STAGED && "
           "git add docs/STAGED && printf 'local edit\\n' >> " OP "/op_kernel/add.cpp && "
           "printf 'scratch\\n' > untracked.txt && git checkout -q topic",
           repo);
        status = sh_out("cd %s && git status --porcelain", repo);
        assert_non_null(strstr(status, "A  docs/STAGED"));
        free(status);
        take_snapshot(repo, &before);

        req = request(repo, src, files_v2, 2);
        assert_int_equal(publish_ok(&req).result, PUBLISH_CREATED);
        req.files = files_v3;
        assert_int_equal(publish_ok(&req).result, PUBLISH_MOVED);
        req.recreate = true;
        assert_int_equal(publish_ok(&req).result, PUBLISH_UNCHANGED);
        req.files = files_v2;
        assert_int_equal(publish_ok(&req).result, PUBLISH_MOVED);
        req.recreate = false;
        req.branch = "topic";
        assert_int_equal(publish_ok(&req).result, PUBLISH_CREATED);

        take_snapshot(repo, &after);
        assert_same_snapshot(&before, &after);
        /* the only new refs are under the prefix */
        assert_out("refs/heads/ascendopt/main/src+math+add\n"
                   "refs/heads/ascendopt/topic/src+math+add",
                   "git -C %s for-each-ref --format='%%(refname)' refs/heads/ascendopt/", repo);
        assert_out("kernel v1\nlocal edit", "cat %s/" OP "/op_kernel/add.cpp", repo);
        snapshot_release(&before);
        snapshot_release(&after);
        free(src);
}

#define CONCURRENT_THREADS 4
#define CONCURRENT_ROUNDS  6

struct publisher {
        pthread_t thread;
        int id;
        const char *source;
        int failures, gave_up;
        int created, moved, unchanged;
        char err[1024];
};

/* Two threads per operator, so both contend on one sibling ref. */
static void *publisher_main(void *userdata)
{
        struct publisher *p = userdata;

        for (int round = 0; round < CONCURRENT_ROUNDS; round++) {
                char text[64], path[64];
                struct publish_file file;
                struct publish_outcome out;
                struct publish_request req;
                char err[1024];
                int r;

                snprintf(text, sizeof(text), "thread %d round %d\n", p->id, round);
                snprintf(path, sizeof(path), "src/math/%s/op_kernel/k.cpp",
                         p->id % 2 ? "mul" : "add");
                file = (struct publish_file){ path, text, strlen(text) };
                req = request(repo, p->source, &file, 1);
                req.op_path = p->id % 2 ? "src/math/mul" : "src/math/add";
                r = publish_commit(&req, &out, err, sizeof(err));
                /* bounded retries may lose to the other thread under heavy load */
                if (r == -EAGAIN) {
                        p->gave_up++;
                        continue;
                }
                if (r < 0) {
                        p->failures++;
                        snprintf(p->err, sizeof(p->err), "%s", err);
                        continue;
                }
                p->created += out.result == PUBLISH_CREATED;
                p->moved += out.result == PUBLISH_MOVED;
                p->unchanged += out.result == PUBLISH_UNCHANGED;
        }
        return NULL;
}

static int count_commits(void)
{
        char *n = sh_out("git -C %s rev-list --count main", repo);
        int count = atoi(n);

        free(n);
        return count;
}

static void test_untouched_while_another_process_commits(void **state)
{
        struct publisher pubs[CONCURRENT_THREADS];
        char *src = rev("main"), *log, *line, *save = NULL;
        int before, after, status, changes = 0, gave_up = 0;
        struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
        pid_t pid;

        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char script[1024];
                snprintf(script, sizeof(script),
                         "cd %s && i=0; while [ ! -e ../stop ]; do i=$((i+1)); "
                         "echo $i > counter.txt; git add counter.txt && "
                         "git commit -q -m \"user commit $i\" || exit 1; done",
                         repo);
                execl("/bin/sh", "sh", "-c", script, (char *)NULL);
                _exit(127);
        }
        for (int i = 0; i < 1000 && count_commits() < 4; i++)
                nanosleep(&ten_ms, NULL);
        before = count_commits();
        assert_true(before >= 4);

        for (int i = 0; i < CONCURRENT_THREADS; i++) {
                pubs[i] = (struct publisher){ .id = i, .source = src };
                assert_int_equal(pthread_create(&pubs[i].thread, NULL, publisher_main, &pubs[i]),
                                 0);
        }
        for (int i = 0; i < CONCURRENT_THREADS; i++)
                assert_int_equal(pthread_join(pubs[i].thread, NULL), 0);
        after = count_commits();
        sh("touch %s/stop", dir);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        /* every commit of the user succeeded, and they overlapped our publishes */
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_true(after > before);

        for (int i = 0; i < CONCURRENT_THREADS; i++) {
                if (pubs[i].failures)
                        fail_msg("publisher %d: %s", i, pubs[i].err);
                changes += pubs[i].created + pubs[i].moved;
                gave_up += pubs[i].gave_up;
        }
        assert_true(gave_up <= CONCURRENT_THREADS * CONCURRENT_ROUNDS / 4);
        /* each publish that changed the ref left one reflog entry */
        assert_int_equal(reflog_count(repo, SIBLING) +
                             reflog_count(repo, "refs/heads/ascendopt/main/src+math+mul"),
                         changes);

        /* the user's branch holds only the user's commits, and nothing is left staged */
        log = sh_out("git -C %s log --format='%%an <%%ae> %%cn <%%ce> %%s' main", repo);
        for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (strncmp(line, JANE " " JANE " user commit ", 2 * strlen(JANE) + 14) != 0 &&
                    strcmp(line, JANE " " JANE " initial") != 0)
                        fail_msg("foreign commit on main: %s", line);
        free(log);
        log = sh_out("git -C %s log -g --format=%%gs main", repo);
        for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (strncmp(line, "commit: user commit ", 20) != 0 &&
                    strcmp(line, "commit (initial): initial") != 0)
                        fail_msg("unexpected reflog entry on main: %s", line);
        free(log);
        assert_out("", "cd %s && git status --porcelain", repo);
        assert_out("ref: refs/heads/main", "cat %s/.git/HEAD", repo);
        assert_out("refs/heads/ascendopt/main/src+math+add\n"
                   "refs/heads/ascendopt/main/src+math+mul\n"
                   "refs/heads/main",
                   "git -C %s for-each-ref --format='%%(refname)'", repo);
        assert_out(src, "git -C %s rev-parse " SIBLING "^", repo);
        assert_out(src, "git -C %s rev-parse refs/heads/ascendopt/main/src+math+mul^", repo);
        sh("git -C %s fsck --no-progress --no-dangling >/dev/null 2>&1", repo);
        free(src);
}

/* ------------------------------------------------------------ later commits */

static void test_newer_source_moves_branch_and_keeps_reflog(void **state)
{
        char *src1 = rev("main"), *src2, *first;
        struct publish_request req = request(repo, src1, files_v2, 2);
        struct publish_outcome out = publish_ok(&req);
        char want[128];

        first = strdup(out.commit);
        sh("cd %s && printf 'more\\n' >> docs/README.md && git commit -qam 'docs'", repo);
        src2 = rev("main");
        req.source_commit = src2;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_string_equal(out.previous, first);
        assert_string_not_equal(out.commit, first);
        snprintf(want, sizeof(want), "%s %s", out.commit, src2);
        assert_out(want, "git -C %s rev-list --parents -n1 " SIBLING, repo);
        /* not a fast-forward: the old tip is reachable only through the reflog */
        assert_int_equal(sh_status("git -C %s merge-base --is-ancestor %s " SIBLING, repo, first),
                         1);
        assert_true(in_reflog(repo, SIBLING, first));
        assert_true(in_reflog(repo, SIBLING, out.commit));
        snprintf(want, sizeof(want), "ascendopt: publish " OP " from main at %.7s", src2);
        assert_out(want, "git -C %s log -g -1 --format=%%gs " SIBLING, repo);
        assert_out("ascendopt <ascendopt@localhost>",
                   "git -C %s log -g -1 --format='%%gn <%%ge>' " SIBLING, repo);
        free(first);
        free(src1);
        free(src2);
}

/* A commit force-pushed away (with whatever it held) never becomes reachable again. */
static void test_commit_no_longer_on_its_branch_is_not_published(void **state)
{
        char *gone, err[512] = "";
        struct publish_request req;
        struct publish_outcome out;

        sh("cd %s && printf 'secret\\n' > docs/KEY && git add docs/KEY && git commit -qm oops",
           repo);
        gone = rev("main");
        sh("cd %s && git reset -q --hard HEAD~1", repo);
        req = request(repo, gone, files_v2, 2);
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -ESTALE);
        assert_non_null(strstr(err, "no longer on branch main"));
        assert_int_equal(sh_status("git -C %s rev-parse -q --verify " SIBLING " >/dev/null", repo),
                         1);
        req.branch = "gone";
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -ESTALE);
        assert_non_null(strstr(err, "branch gone is gone"));
        free(gone);
}

static void test_identical_content_is_unchanged(void **state)
{
        char *src = rev("main"), *objects_before, *objects_after;
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), again;

        objects_before = sh_out("git -C %s count-objects -v | grep -v size", repo);
        /* a different message alone is not a reason for a new commit */
        req.message = "ascendopt: add 1.43x faster";
        again = publish_ok(&req);
        objects_after = sh_out("git -C %s count-objects -v | grep -v size", repo);
        assert_int_equal(again.result, PUBLISH_UNCHANGED);
        assert_string_equal(publish_result_name(again.result), "unchanged");
        assert_string_equal(again.commit, first.commit);
        assert_string_equal(again.previous, first.commit);
        assert_int_equal(again.attempts, 0);
        assert_string_equal(objects_before, objects_after);
        assert_int_equal(reflog_count(repo, SIBLING), 1);
        assert_out(first.commit, "git -C %s rev-parse " SIBLING, repo);
        free(objects_before);
        free(objects_after);
        free(src);
}

/* ------------------------------------------------------------ bot etiquette */

static void test_foreign_commit_stops_updates_until_recreate(void **state)
{
        char *src = rev("main"), *theirs;
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome out = publish_ok(&req);
        struct publish_sibling s;
        char err[1024] = "", want[512];

        theirs = foreign_commit(out.commit, "Jane User", "jane@example.com", "fix a typo");
        sh("git -C %s update-ref " SIBLING " %s %s", repo, theirs, out.commit);

        req.files = files_v3;
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EEXIST);
        snprintf(want, sizeof(want),
                 SIBLING
                 ": someone other than ascendopt committed to this branch (tip %.7s by " JANE
                 "); not updating it. Run 'ascendopt recreate %s " OP
                 " --branch main' to rebuild it",
                 theirs, repo);
        assert_string_equal(err, want);
        assert_out(theirs, "git -C %s rev-parse " SIBLING, repo);

        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)), 0);
        assert_true(s.exists);
        assert_false(s.ours);
        assert_string_equal(s.tip, theirs);
        assert_string_equal(s.committer, JANE);
        assert_string_equal(s.source, "");

        req.recreate = true;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_true(out.replaced_foreign);
        assert_string_equal(out.previous, theirs);
        snprintf(want, sizeof(want), "%s %s", out.commit, src);
        assert_out(want, "git -C %s rev-list --parents -n1 " SIBLING, repo);
        assert_true(in_reflog(repo, SIBLING, theirs));
        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)), 0);
        assert_true(s.ours);

        /* and once rebuilt, ordinary publishes go on */
        req.recreate = false;
        req.files = files_v2;
        assert_int_equal(publish_ok(&req).result, PUBLISH_MOVED);
        free(theirs);
        free(src);
}

static void test_our_identity_without_trailer_is_foreign(void **state)
{
        char *src = rev("main"), *amended;
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome out = publish_ok(&req);
        char err[1024] = "";

        /* someone amended our commit with the bot's name but dropped the trailer */
        amended = sh_out("cd %s && GIT_COMMITTER_NAME=ascendopt "
                         "GIT_COMMITTER_EMAIL=ascendopt@localhost "
                         "git commit-tree -p %s -m 'hand edit' '%s^{tree}'",
                         repo, src, out.commit);
        sh("git -C %s update-ref " SIBLING " %s", repo, amended);
        req.files = files_v3;
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EEXIST);
        assert_non_null(strstr(err, "by ascendopt <ascendopt@localhost>, without an "
                                    "Ascendopt-Source trailer naming its parent"));
        assert_out(amended, "git -C %s rev-parse " SIBLING, repo);

        /* recreate takes it back; a different identity does not see our commits as its own */
        req.recreate = true;
        assert_int_equal(publish_ok(&req).result, PUBLISH_MOVED);
        req.recreate = false;
        req.files = files_v2;
        req.identity = (struct publish_identity){ "other-bot", "bot@example.com" };
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EEXIST);
        assert_non_null(strstr(err, "someone other than other-bot"));
        free(amended);
        free(src);
}

/* ------------------------------------------------------- compare-and-swap */

struct race {
        int mode;
        unsigned calls;
        char ref[PUBLISH_REF_MAX];
        char moved_to[64];
        const char *foreign;
        char lock_path[PATH_MAX];
        unsigned locked_attempts;
};

enum { RACE_OURS, RACE_FOREIGN, RACE_LOCK };

/* Runs between the read of the sibling and the swap: the race under test. */
static void race_hook(const char *refname, unsigned attempt, void *userdata)
{
        struct race *race = userdata;

        race->calls++;
        snprintf(race->ref, sizeof(race->ref), "%s", refname);
        if (race->mode == RACE_OURS && attempt == 0) {
                /* another ascendopt publish wins the race */
                char *src = rev("main");
                struct publish_request other = request(repo, src, files_v3, 2);
                struct publish_outcome out = publish_ok(&other);
                snprintf(race->moved_to, sizeof(race->moved_to), "%s", out.commit);
                free(src);
        } else if (race->mode == RACE_FOREIGN && attempt == 0) {
                /* someone pushes, through a second repository handle */
                git_repository *r = NULL;
                git_reference *ref = NULL;
                git_oid id;
                assert_true(git_libgit2_init() > 0);
                assert_int_equal(git_repository_open(&r, repo), 0);
                assert_int_equal(git_oid_fromstr(&id, race->foreign), 0);
                assert_int_equal(git_reference_create(&ref, r, refname, &id, 1, "push"), 0);
                git_reference_free(ref);
                git_repository_free(r);
                git_libgit2_shutdown();
        } else if (race->mode == RACE_LOCK) {
                if (attempt < race->locked_attempts) {
                        FILE *f = fopen(race->lock_path, "we");
                        assert_non_null(f);
                        fclose(f);
                } else {
                        unlink(race->lock_path);
                }
        }
}

static void test_cas_retries_after_a_concurrent_publish(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        struct race race = { .mode = RACE_OURS };
        struct publish_hooks hooks = { race_hook, &race };
        char err[1024] = "";

        /* move from v2 towards a slightly different v2 while v3 sneaks in */
        const struct publish_file files[] = { { OP "/op_kernel/add.cpp", "kernel v4\n", 10 } };
        req.files = files;
        req.n_files = 1;
        assert_int_equal(publish_commit_hooked(&req, &hooks, &out, err, sizeof(err)), 0);
        assert_string_equal(race.ref, SIBLING);
        assert_int_equal(race.calls, 2);
        assert_int_equal(out.attempts, 2);
        assert_int_equal(out.result, PUBLISH_MOVED);
        /* the retry re-read the ref and swapped the racer's tip, not the stale one */
        assert_string_equal(out.previous, race.moved_to);
        assert_string_not_equal(out.previous, first.commit);
        assert_out(out.commit, "git -C %s rev-parse " SIBLING, repo);
        assert_out("kernel v4", "git -C %s show " SIBLING ":" OP "/op_kernel/add.cpp", repo);
        assert_true(in_reflog(repo, SIBLING, first.commit));
        assert_true(in_reflog(repo, SIBLING, race.moved_to));
        assert_int_equal(reflog_count(repo, SIBLING), 3);
        free(src);
}

static void test_cas_retries_when_created_concurrently(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct race race = { .mode = RACE_OURS };
        struct publish_hooks hooks = { race_hook, &race };
        struct publish_outcome out;
        char err[1024] = "";

        assert_int_equal(publish_commit_hooked(&req, &hooks, &out, err, sizeof(err)), 0);
        assert_int_equal(out.attempts, 2);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_string_equal(out.previous, race.moved_to);
        assert_out("kernel v2", "git -C %s show " SIBLING ":" OP "/op_kernel/add.cpp", repo);
        free(src);
}

static void test_cas_never_clobbers_a_foreign_tip(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        char *theirs = foreign_commit(first.commit, "Jane User", "jane@example.com", "mine");
        struct race race = { .mode = RACE_FOREIGN, .foreign = theirs };
        struct publish_hooks hooks = { race_hook, &race };
        char err[1024] = "";

        req.files = files_v3;
        assert_int_equal(publish_commit_hooked(&req, &hooks, &out, err, sizeof(err)), -EEXIST);
        assert_int_equal(race.calls, 1);
        assert_non_null(strstr(err, "someone other than ascendopt committed to this branch"));
        assert_out(theirs, "git -C %s rev-parse " SIBLING, repo);
        free(theirs);
        free(src);
}

static void test_cas_waits_out_a_lock_and_gives_up_on_a_stuck_one(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        struct race race = { .mode = RACE_LOCK, .locked_attempts = 2 };
        struct publish_hooks hooks = { race_hook, &race };
        char err[1024] = "";

        snprintf(race.lock_path, sizeof(race.lock_path), "%s/.git/" SIBLING ".lock", repo);
        req.files = files_v3;
        assert_int_equal(publish_commit_hooked(&req, &hooks, &out, err, sizeof(err)), 0);
        assert_int_equal(out.attempts, 3);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_string_equal(out.previous, first.commit);

        race.calls = 0;
        race.locked_attempts = 100;
        req.files = files_v2;
        memset(&out, 0x5a, sizeof(out));
        assert_int_equal(publish_commit_hooked(&req, &hooks, &out, err, sizeof(err)), -EAGAIN);
        assert_int_equal(race.calls, PUBLISH_MAX_ATTEMPTS);
        assert_non_null(strstr(err, "locked or changed by another process"));
        /* the outcome is untouched on failure, and so is the ref */
        assert_int_equal(out.attempts, 0x5a5a5a5a);
        unlink(race.lock_path);
        assert_out("kernel v3", "git -C %s show " SIBLING ":" OP "/op_kernel/add.cpp", repo);
        free(src);
}

/* --------------------------------------------------------- repository kinds */

/* An intent recorder: keeps what it was given, or refuses with fail_with. */
struct intent_log {
        unsigned calls;
        int fail_with;
        struct publish_intent last;
        char tip_seen[PUBLISH_OID_HEX_SIZE]; /* the ref's tip while the intent is recorded */
};

static int record_intent(const struct publish_intent *intent, void *userdata)
{
        struct intent_log *log = userdata;
        char *tip = rev(SIBLING);

        log->calls++;
        log->last = *intent;
        snprintf(log->tip_seen, sizeof(log->tip_seen), "%s", tip ? tip : "");
        free(tip);
        return log->fail_with;
}

static void test_intent_is_recorded_before_the_ref_moves(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        struct intent_log log = { 0 };
        char err[1024] = "";

        req.files = files_v3;
        req.before_update = record_intent;
        req.userdata = &log;
        out = publish_ok(&req);
        assert_int_equal(log.calls, 1);
        assert_string_equal(log.last.ref, SIBLING);
        assert_string_equal(log.last.previous, first.commit);
        assert_string_equal(log.last.commit, out.commit);
        /* it was told before the swap: the ref still held the old tip */
        assert_string_equal(log.tip_seen, first.commit);

        /* a recorder that fails stops the publication with the ref untouched */
        log = (struct intent_log){ .fail_with = -ENOSPC };
        req.files = files_v2;
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -ENOSPC);
        assert_non_null(strstr(err, "cannot record what is about to be published"));
        assert_non_null(strstr(err, "nothing was published"));
        assert_out(log.last.previous, "git -C %s rev-parse " SIBLING, repo);
        free(src);
}

static void test_resume_after_a_crash_never_publishes_twice(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        struct intent_log log = { .fail_with = -EINTR };
        char err[1024] = "";
        size_t reflog_before;

        /* an attempt that wrote its commit and intent, then died before the swap */
        req.files = files_v3;
        req.before_update = record_intent;
        req.userdata = &log;
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EINTR);
        assert_out(first.commit, "git -C %s rev-parse " SIBLING, repo);

        /* retried with the intent: the ref moves to exactly that commit */
        req.before_update = NULL;
        req.resume = &log.last;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_false(out.recovered);
        assert_string_equal(out.commit, log.last.commit);
        assert_out(log.last.commit, "git -C %s rev-parse " SIBLING, repo);

        /* the process died after the swap: the same intent is recognised, nothing is written */
        reflog_before = reflog_count(repo, SIBLING);
        out = publish_ok(&req);
        assert_true(out.recovered);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_string_equal(out.commit, log.last.commit);
        assert_string_equal(out.previous, first.commit);
        assert_int_equal(out.attempts, 0);
        assert_int_equal(reflog_count(repo, SIBLING), reflog_before);
        assert_out(log.last.commit, "git -C %s rev-parse " SIBLING, repo);
        free(src);
}

static void test_resume_with_an_unusable_commit_makes_a_new_one(void **state)
{
        char *src = rev("main"), *other;
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        struct publish_intent intent = { .ref = SIBLING };

        /* a commit that does not exist, then one that is not ours for this source */
        snprintf(intent.commit, sizeof(intent.commit), "%040d", 7);
        req.files = files_v3;
        req.resume = &intent;
        out = publish_ok(&req);
        assert_false(out.recovered);
        assert_string_not_equal(out.commit, intent.commit);
        assert_string_equal(out.previous, first.commit);

        other = foreign_commit(src, "Jane User", "jane@example.com", "hers");
        snprintf(intent.commit, sizeof(intent.commit), "%s", other);
        req.files = files_v2;
        out = publish_ok(&req);
        assert_false(out.recovered);
        assert_string_not_equal(out.commit, other);
        assert_out("kernel v2", "git -C %s show " SIBLING ":" OP "/op_kernel/add.cpp", repo);
        free(other);
        free(src);
}

static void test_bare_repository(void **state)
{
        char bare[256], *src, *src2, *head_before, first[PUBLISH_OID_HEX_SIZE], want[128];
        struct publish_request req;
        struct publish_outcome out;

        snprintf(bare, sizeof(bare), "%s/bare.git", dir);
        sh("git clone -q --bare %s %s", repo, bare);
        src = sh_out("git --git-dir=%s rev-parse main", bare);
        head_before = sh_out("cat %s/HEAD", bare);
        req = request(bare, src, files_v2, 2);
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_CREATED);
        snprintf(first, sizeof(first), "%s", out.commit);
        assert_out(src, "git --git-dir=%s rev-parse " SIBLING "^", bare);
        assert_int_equal(access(bare, F_OK), 0);
        assert_int_equal(sh_status("test -e %s/index", bare), 1);

        sh("cd %s && printf 'more\\n' >> docs/README.md && git commit -qam docs && "
           "git push -q %s main",
           repo, bare);
        src2 = sh_out("git --git-dir=%s rev-parse main", bare);
        req.source_commit = src2;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_MOVED);
        snprintf(want, sizeof(want), "%s %s", out.commit, src2);
        assert_out(want, "git --git-dir=%s rev-list --parents -n1 " SIBLING, bare);
        /* libgit2 writes no reflog in a bare repository; we do */
        assert_true(in_reflog(bare, SIBLING, first));
        assert_true(in_reflog(bare, SIBLING, out.commit));
        assert_out(head_before, "cat %s/HEAD", bare);
        assert_out("refs/heads/ascendopt/main/src+math+add\nrefs/heads/main",
                   "git --git-dir=%s for-each-ref --format='%%(refname)'", bare);
        free(head_before);
        free(src);
        free(src2);
}

static void test_reflog_written_with_log_all_ref_updates_off(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first, out;

        sh("git -C %s config core.logAllRefUpdates false", repo);
        first = publish_ok(&req);
        req.files = files_v3;
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_MOVED);
        assert_true(in_reflog(repo, SIBLING, first.commit));
        assert_int_equal(reflog_count(repo, SIBLING), 2);
        free(src);
}

static void test_linked_worktree(void **state)
{
        char wt[256], *src, *head_main;
        struct publish_request req;
        struct publish_outcome out;

        snprintf(wt, sizeof(wt), "%s/wt", dir);
        sh("git -C %s worktree add -q -b feature/fast %s", repo, wt);
        sh("cd %s && printf 'feature\\n' > docs/feature.md && git add docs && "
           "git commit -qm feature",
           wt);
        src = sh_out("git -C %s rev-parse HEAD", wt);
        head_main = sh_out("cat %s/.git/HEAD", repo);
        req = request(wt, src, files_v2, 2);
        req.branch = "feature/fast";
        out = publish_ok(&req);
        assert_int_equal(out.result, PUBLISH_CREATED);
        assert_string_equal(out.ref, "refs/heads/ascendopt/feature+fast/src+math+add");
        /* the ref lives in the common repository */
        assert_out(src, "git -C %s rev-parse refs/heads/ascendopt/feature+fast/src+math+add^",
                   repo);
        assert_out("", "cd %s && git status --porcelain", wt);
        assert_out("feature/fast", "git -C %s symbolic-ref --short HEAD", wt);
        assert_out(head_main, "cat %s/.git/HEAD", repo);
        free(head_main);
        free(src);
}

static void test_checked_out_sibling_is_not_moved(void **state)
{
        char *src = rev("main"), wt[256], *before;
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome first = publish_ok(&req), out;
        struct publish_sibling s;
        char err[1024] = "";

        snprintf(wt, sizeof(wt), "%s/review", dir);
        sh("git -C %s worktree add -q %s ascendopt/main/src+math+add", repo, wt);
        before = sh_out("cd %s && git status --porcelain=v2 --branch", wt);
        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)), 0);
        assert_true(s.checked_out);
        req.files = files_v3;
        req.recreate = true;
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EBUSY);
        assert_non_null(strstr(err, SIBLING ": is checked out in a work tree"));
        assert_out(first.commit, "git -C %s rev-parse " SIBLING, repo);
        assert_out(before, "cd %s && git status --porcelain=v2 --branch", wt);

        sh("git -C %s worktree remove %s", repo, wt);
        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)), 0);
        assert_false(s.checked_out);
        assert_int_equal(publish_ok(&req).result, PUBLISH_MOVED);
        free(before);
        free(src);
}

static void test_reftable_repository_is_refused(void **state)
{
        char *src = rev("main");
        struct publish_request req = request(repo, src, files_v2, 2);
        struct publish_outcome out;
        struct publish_sibling s;
        char err[1024] = "";

        char wt[256];

        snprintf(wt, sizeof(wt), "%s/wt", dir);
        sh("git -C %s worktree add -q -b other %s", repo, wt);
        /* format version 0: libgit2 would open it and see no refs */
        sh("printf '[extensions]\\n\\trefStorage = reftable\\n' >> %s/.git/config", repo);
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EPROTONOSUPPORT);
        assert_non_null(strstr(err, "the repository keeps its refs in the \"reftable\" format "
                                    "(extensions.refStorage), which libgit2 cannot read"));
        assert_int_equal(publish_sibling_status(repo, SIBLING, NULL, &s, err, sizeof(err)),
                         -EPROTONOSUPPORT);

        /* format version 1: libgit2 refuses the extension itself */
        sh("git -C %s config core.repositoryformatversion 1", repo);
        err[0] = '\0';
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EPROTONOSUPPORT);
        assert_non_null(strstr(err, "reftable"));
        assert_non_null(strstr(err, "git refs migrate"));
        /* a linked worktree shares the common repository's configuration */
        req.repo_path = wt;
        req.branch = "other";
        assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EPROTONOSUPPORT);
        assert_non_null(strstr(err, "\"reftable\" format"));
        assert_int_equal(sh_status("test -e %s/.git/" SIBLING, repo), 1);
        free(src);
}

/* ------------------------------------------------------------ bad requests */

static void expect_refused(const struct publish_request *req, int want, const char *message)
{
        struct publish_outcome out;
        char err[1024] = "";
        int r;

        r = publish_commit(req, &out, err, sizeof(err));
        if (r != want)
                fail_msg("publish_commit returned %d, not %d: %s", r, want, err);
        if (!strstr(err, message))
                fail_msg("message \"%s\" lacks \"%s\"", err, message);
        assert_int_equal(sh_status("git -C %s rev-parse -q --verify " SIBLING " >/dev/null", repo),
                         1);
}

static void test_bad_requests_write_nothing(void **state)
{
        char *src = rev("main"), missing[256];
        struct publish_request req = request(repo, src, files_v2, 2);
        const struct publish_file outside[] = { { "docs/README.md", "x", 1 } };
        const struct publish_file sneaky[] = { { OP "/../mul/op_kernel/mul.cpp", "x", 1 } };
        const struct publish_file twice[] = { { OP "/a.h", "x", 1 }, { OP "/a.h", "y", 1 } };
        const struct publish_file a_dir[] = { { OP "/op_kernel", "x", 1 } };
        const struct publish_file under_file[] = { { OP "/build.sh/x", "x", 1 } };

        req.files = outside;
        req.n_files = 1;
        expect_refused(&req, -EINVAL, "is not a clean path inside the operator directory");
        req.files = sneaky;
        expect_refused(&req, -EINVAL, "is not a clean path inside the operator directory");
        req.files = twice;
        req.n_files = 2;
        expect_refused(&req, -EINVAL, "file " OP "/a.h is given twice");
        req.files = a_dir;
        req.n_files = 1;
        expect_refused(&req, -EINVAL, "it is a directory in the source commit");
        req.files = under_file;
        expect_refused(&req, -EINVAL, OP "/build.sh is not a directory in the source commit");
        req.n_files = 0;
        expect_refused(&req, -EINVAL, "nothing to publish");

        req = request(repo, "deadbeef", files_v2, 2);
        expect_refused(&req, -EINVAL, "is not a full hex commit id");
        req.source_commit = "0123456789012345678901234567890123456789";
        expect_refused(&req, -ENOENT, "source commit 0123456789012345678901234567890123456789");
        req.source_commit = src;
        req.op_path = "src/math/sub";
        req.files = (const struct publish_file[]){ { "src/math/sub/x", "x", 1 } };
        req.n_files = 1;
        expect_refused(&req, -ENOENT, "has no directory src/math/sub");
        snprintf(missing, sizeof(missing), "%s/nothing-here", dir);
        req = request(missing, src, files_v2, 2);
        expect_refused(&req, -ENOENT, "not a git repository");
        req = request(dir, src, files_v2, 2); /* inside no repository, and never searched up */
        expect_refused(&req, -ENOENT, "not a git repository");

        /* refs in the way: a symbolic sibling, and a branch named like its parent */
        req = request(repo, src, files_v2, 2);
        sh("git -C %s symbolic-ref " SIBLING " refs/heads/main", repo);
        {
                struct publish_outcome out;
                char err[1024] = "";
                assert_int_equal(publish_commit(&req, &out, err, sizeof(err)), -EINVAL);
                assert_non_null(strstr(err, "is a symbolic ref to refs/heads/main"));
                assert_out("refs/heads/main", "git -C %s symbolic-ref " SIBLING, repo);
                sh("git -C %s symbolic-ref -d " SIBLING, repo);
        }
        sh("git -C %s branch ascendopt/main", repo);
        expect_refused(&req, -EINVAL,
                       SIBLING
                       ": cannot be created: the ref refs/heads/ascendopt/main is in the way");
        sh("git -C %s branch -D -q ascendopt/main && git -C %s branch "
           "ascendopt/main/src+math+add/x",
           repo, repo);
        expect_refused(&req, -EINVAL,
                       "the ref refs/heads/ascendopt/main/src+math+add/x is in the way");
        free(src);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_branch_names),
                cmocka_unit_test_setup_teardown(test_publish_creates_branch, setup, teardown),
                cmocka_unit_test_setup_teardown(test_default_message_and_executable_file, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_trailer_found_after_a_dashes_line, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_work_tree_index_head_and_refs_untouched, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_untouched_while_another_process_commits, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_newer_source_moves_branch_and_keeps_reflog,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(
                    test_commit_no_longer_on_its_branch_is_not_published, setup, teardown),
                cmocka_unit_test_setup_teardown(test_identical_content_is_unchanged, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_foreign_commit_stops_updates_until_recreate,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_our_identity_without_trailer_is_foreign, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_cas_retries_after_a_concurrent_publish, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_cas_retries_when_created_concurrently, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_cas_never_clobbers_a_foreign_tip, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(
                    test_cas_waits_out_a_lock_and_gives_up_on_a_stuck_one, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bare_repository, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reflog_written_with_log_all_ref_updates_off,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_linked_worktree, setup, teardown),
                cmocka_unit_test_setup_teardown(test_checked_out_sibling_is_not_moved, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_reftable_repository_is_refused, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_bad_requests_write_nothing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_intent_is_recorded_before_the_ref_moves, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_resume_after_a_crash_never_publishes_twice,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_resume_with_an_unusable_commit_makes_a_new_one,
                                                setup, teardown),
        };
        int r;

        /* git and libgit2 see only what the test sets: no user or system config */
        snprintf(home, sizeof(home), "/tmp/ascendopt-publish-home-XXXXXX");
        if (!mkdtemp(home))
                return 1;
        setenv("HOME", home, 1);
        setenv("XDG_CONFIG_HOME", home, 1);
        setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
        setenv("GIT_AUTHOR_NAME", "Jane User", 1);
        setenv("GIT_AUTHOR_EMAIL", "jane@example.com", 1);
        setenv("GIT_COMMITTER_NAME", "Jane User", 1);
        setenv("GIT_COMMITTER_EMAIL", "jane@example.com", 1);
        unsetenv("GIT_DIR");
        unsetenv("GIT_WORK_TREE");
        unsetenv("GIT_INDEX_FILE");
        r = cmocka_run_group_tests_name("publish", tests, NULL, NULL);
        rm_rf(home);
        return r;
}
