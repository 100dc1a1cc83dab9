/* SPDX-License-Identifier: MIT */
/*
 * Tests of the watchers' git side on real repositories made by the test:
 * which branches are followed, which operator directories a commit range
 * touched, bare mirrors, linked worktrees, reftable refusal, and the tips
 * recorded in the store.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "store/store.h"
#include "watchers/watchers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[64];
static char repo[192];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs a shell command in the test repo; fails the test when it fails. */
static void sh(const char *fmt, ...)
{
        char cmd[4096], full[4400];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        snprintf(full, sizeof(full), "cd '%s' && (%s) >/dev/null 2>&1", repo, cmd);
        if (system(full) != 0)
                fail_msg("command failed: %s", cmd);
}

/* The output of a command in the test repo, without the trailing newline. */
static void capture(char *out, size_t size, const char *cmd)
{
        char full[4300];
        FILE *p;
        size_t n;

        snprintf(full, sizeof(full), "cd '%s' && %s", repo, cmd);
        p = popen(full, "r");
        assert_non_null(p);
        n = fread(out, 1, size - 1, p);
        out[n] = '\0';
        out[strcspn(out, "\n")] = '\0';
        pclose(p);
}

static int setup(void **state)
{
        snprintf(root, sizeof(root), "/tmp/ascendopt-watch-XXXXXX");
        assert_non_null(mkdtemp(root));
        snprintf(repo, sizeof(repo), "%s/ops", root);
        return 0;
}

static int teardown(void **state)
{
        return rm_rf(root);
}

/* A repo with two operators and a README on branch main. */
static void make_repo(void)
{
        char cmd[1024];

        snprintf(
            cmd, sizeof(cmd),
            "git init -q -b main '%s' && cd '%s' && git config user.email t@example.com && "
            "git config user.name Tester && "
            "mkdir -p src/math/add/op_host src/math/add/op_kernel "
            "src/nn/relu/op_host src/nn/relu/op_kernel && "
            "echo h > src/math/add/op_host/add.cpp && echo k > src/math/add/op_kernel/add.cpp && "
            "echo h > src/nn/relu/op_host/relu.cpp && echo k > src/nn/relu/op_kernel/relu.cpp && "
            "echo readme > README.md && git add -A && git commit -qm initial",
            repo, repo);
        assert_int_equal(system(cmd), 0);
}

static void tips_of(char *const *patterns, size_t n_patterns, char *out, size_t size)
{
        struct watch_tip *tips = NULL;
        size_t n = 0, pos = 0;
        char err[512];

        if (watch_list_tips(repo, patterns, n_patterns, "ascendopt/", &tips, &n, err, sizeof(err)) <
            0)
                fail_msg("%s", err);
        out[0] = '\0';
        for (size_t i = 0; i < n; i++)
                pos +=
                    (size_t)snprintf(out + pos, size - pos, "%s%s", i ? " " : "", tips[i].branch);
        watch_tips_free(tips, n);
}

static void test_followed_branches(void **state)
{
        char *main_and_dev[] = { "main", "dev/*" };
        char *everything[] = { "*" };
        char *remote[] = { "origin/*" };
        char got[512], upstream[160];

        make_repo();
        sh("git branch dev/x && git branch release-1 && git branch ascendopt/main/src+math+add");
        tips_of(main_and_dev, 2, got, sizeof(got));
        assert_string_equal(got, "dev/x main");
        /* our own sibling branches never count, even under "*" */
        tips_of(everything, 1, got, sizeof(got));
        assert_string_equal(got, "dev/x main release-1");

        snprintf(upstream, sizeof(upstream), "%s/upstream", root);
        sh("git clone -q --bare . '%s' && git remote add origin '%s' && git fetch -q origin",
           upstream, upstream);
        tips_of(everything, 1, got, sizeof(got));
        assert_string_equal(got, "dev/x main release-1");
        tips_of(remote, 1, got, sizeof(got));
        assert_string_equal(got, "origin/ascendopt/main/src+math+add origin/dev/x origin/main "
                                 "origin/release-1");
}

static void changed(const char *old_oid, const char *new_oid, char *const *globs, size_t n_globs,
                    char *out, size_t size)
{
        char **dirs = NULL, err[512];
        size_t n = 0, pos = 0;

        if (watch_changed_operators(repo, old_oid, new_oid, globs, n_globs, &dirs, &n, err,
                                    sizeof(err)) < 0)
                fail_msg("%s", err);
        out[0] = '\0';
        for (size_t i = 0; i < n; i++)
                pos += (size_t)snprintf(out + pos, size - pos, "%s%s", i ? " " : "", dirs[i]);
        watch_dirs_free(dirs, n);
}

static void test_changed_operators_are_found(void **state)
{
        char a[64], b[64], c[64], d[64], e[64], got[512];
        char *globs[] = { "src/*/*" };

        make_repo();
        capture(a, sizeof(a), "git rev-parse HEAD");
        sh("echo k2 > src/math/add/op_kernel/add.cpp && git commit -qam kernel");
        capture(b, sizeof(b), "git rev-parse HEAD");
        changed(a, b, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "src/math/add");

        sh("echo docs >> README.md && git commit -qam docs");
        capture(c, sizeof(c), "git rev-parse HEAD");
        changed(b, c, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "");

        sh("echo h2 > src/nn/relu/op_host/relu.cpp && echo h3 > src/math/add/op_host/add.cpp && "
           "echo '{}' > src/nn/relu/ascendopt.json && echo n > src/nn/relu/NOTES && "
           "git add -A && git commit -qm both");
        capture(d, sizeof(d), "git rev-parse HEAD");
        changed(c, d, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "src/math/add src/nn/relu");
        /* a range of several commits counts once per operator */
        changed(a, d, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "src/math/add src/nn/relu");

        /* any other file of an operator's folder (its reference, a test) is the operator's */
        sh("echo r > src/math/add/reference.c && mkdir -p src/math/add/tests && "
           "echo t > src/math/add/tests/case.json && git add -A && git commit -qm reference");
        capture(e, sizeof(e), "git rev-parse HEAD");
        changed(d, e, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "src/math/add");
        strcpy(d, e);

        /* an operator that lost its kernel directory is no longer one */
        sh("git rm -rq src/nn/relu/op_kernel && git commit -qm gone");
        capture(e, sizeof(e), "git rev-parse HEAD");
        changed(d, e, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "");

        /* with globs, any file below a matching directory counts */
        changed(c, d, globs, 1, got, sizeof(got));
        assert_string_equal(got, "src/math/add src/nn/relu");
        /* a branch seen for the first time lists nothing */
        changed(NULL, d, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "");
}

static void test_bare_mirror_and_worktree(void **state)
{
        char mirror[128], worktree[128], got[512], saved[192];
        char *main_only[] = { "main" };

        make_repo();
        snprintf(mirror, sizeof(mirror), "%s/mirror.git", root);
        snprintf(worktree, sizeof(worktree), "%s/wt", root);
        sh("git clone -q --mirror . '%s' && git worktree add -q -b feature '%s'", mirror, worktree);
        snprintf(saved, sizeof(saved), "%s", repo);
        snprintf(repo, sizeof(repo), "%s", mirror);
        tips_of(main_only, 1, got, sizeof(got));
        assert_string_equal(got, "main");
        snprintf(repo, sizeof(repo), "%s", worktree);
        tips_of(main_only, 1, got, sizeof(got));
        assert_string_equal(got, "main");
        snprintf(repo, sizeof(repo), "%s", saved);
}

static void test_reftable_is_refused(void **state)
{
        struct watch_tip *tips = NULL;
        char *main_only[] = { "main" };
        char err[512];
        size_t n = 0;

        make_repo();
        sh("git config core.repositoryformatversion 1 && "
           "git config extensions.refStorage reftable");
        assert_int_equal(watch_list_tips(repo, main_only, 1, NULL, &tips, &n, err, sizeof(err)),
                         -EPROTONOSUPPORT);
        assert_non_null(strstr(err, "reftable"));
        assert_non_null(strstr(err, "git refs migrate"));
}

static void test_missing_repo_is_named(void **state)
{
        struct watch_tip *tips = NULL;
        char *main_only[] = { "main" };
        char err[512];
        size_t n = 0;

        assert_true(watch_list_tips("/nonexistent/repo", main_only, 1, NULL, &tips, &n, err,
                                    sizeof(err)) < 0);
        assert_non_null(strstr(err, "/nonexistent/repo: not a git repository"));
}

static void test_recorded_tips_roundtrip(void **state)
{
        char dir[160], err[256], oid[WATCH_OID_HEX];
        const char *tip = "0123456789abcdef0123456789abcdef01234567";
        struct store *s = NULL;
        struct store_batch *b;

        snprintf(dir, sizeof(dir), "%s/state", root);
        assert_int_equal(store_open(dir, &s, err, sizeof(err)), 0);
        assert_int_equal(watch_recorded_tip(s, "/srv/ops", "main", oid), -ENOENT);
        b = store_batch_new(s);
        watch_record_tip(b, "/srv/ops", "main", tip);
        watch_record_tip(b, "/srv/ops", "dev/x", "ffffffffffffffffffffffffffffffffffffffff");
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        assert_int_equal(watch_recorded_tip(s, "/srv/ops", "main", oid), 0);
        assert_string_equal(oid, tip);
        /* keys of one repo cannot collide with a repo whose path extends it */
        assert_int_equal(watch_recorded_tip(s, "/srv/ops/main", "", oid), -ENOENT);
        store_close(s);
}

/* A changed shared file queues the operators whose build reads it, and only those. */
static void test_shared_files_queue_their_operators(void **state)
{
        char a[64], b[64], c[64], d[64], got[512];

        make_repo();
        sh("mkdir -p src/common/inc/family src/common/src src/nn/gelu/op_host "
           "src/nn/gelu/op_kernel && "
           "echo '#define BASE 1' > src/common/inc/family/base.h && "
           "printf '#include \"family/base.h\"\\n' > src/common/inc/family/derived.h && "
           "echo '// tiling' > src/common/src/shared_tiling.cpp && "
           "printf '  #  include <family/derived.h>\\n' > src/math/add/op_kernel/add_impl.h && "
           "echo 'target_sources(optiling PRIVATE ${COMMON}/src/shared_tiling.cpp)' > "
           "src/nn/gelu/CMakeLists.txt && "
           "echo h > src/nn/gelu/op_host/gelu.cpp && echo k > src/nn/gelu/op_kernel/gelu.cpp && "
           "git add -A && git commit -qm shared");
        capture(a, sizeof(a), "git rev-parse HEAD");
        /* base.h reaches add through derived.h; relu and gelu include neither */
        sh("echo '#define BASE 2' > src/common/inc/family/base.h && git commit -qam base");
        capture(b, sizeof(b), "git rev-parse HEAD");
        changed(a, b, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "src/math/add");
        /* a shared source named by an operator's CMakeLists.txt */
        sh("echo '// tiling 2' > src/common/src/shared_tiling.cpp && git commit -qam tiling");
        capture(c, sizeof(c), "git rev-parse HEAD");
        changed(b, c, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "src/nn/gelu");
        /* a shared file nothing reads queues nothing */
        sh("mkdir -p src/common/inc/other && echo x > src/common/inc/other/unused.h && "
           "git add -A && git commit -qm unused");
        capture(d, sizeof(d), "git rev-parse HEAD");
        changed(c, d, NULL, 0, got, sizeof(got));
        assert_string_equal(got, "");
}

static void test_export_operator_from_a_commit(void **state)
{
        char first[64], dest[160], err[512], text[256];
        FILE *f;

        make_repo();
        /* an example beside op_host/ and op_kernel/: its gen_data.py writes the inputs */
        sh("mkdir -p src/math/add/examples/E && echo 'print(1)' > "
           "src/math/add/examples/E/gen_data.py "
           "&& git add -A && git commit -qm example");
        capture(first, sizeof(first), "git rev-parse HEAD");
        /* the work tree moves on; the export must not see it */
        sh("echo changed > src/math/add/op_kernel/add.cpp && git commit -qam change && "
           "echo dirty > src/math/add/op_host/add.cpp");
        snprintf(dest, sizeof(dest), "%s/export", root);
        if (watch_export_operator(repo, first, "src/math/add", dest, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        /* the operator at its place in the repository */
        snprintf(text, sizeof(text), "%s/src/math/add/op_kernel/add.cpp", dest);
        f = fopen(text, "r");
        assert_non_null(f);
        assert_non_null(fgets(text, sizeof(text), f));
        fclose(f);
        assert_string_equal(text, "k\n");
        /* the operator's examples travel with it: episodes run its example cases on their inputs */
        snprintf(text, sizeof(text), "%s/src/math/add/examples/E/gen_data.py", dest);
        assert_int_equal(access(text, R_OK), 0);
        /* with the repository's other files, but no other operator's */
        snprintf(text, sizeof(text), "%s/README.md", dest);
        assert_int_equal(access(text, R_OK), 0);
        snprintf(text, sizeof(text), "%s/src/nn/relu", dest);
        assert_int_equal(access(text, F_OK), -1);
        assert_int_equal(watch_export_operator(repo, first, "src/nope", dest, err, sizeof(err)),
                         -ENOENT);
        assert_non_null(strstr(err, "src/nope is not a directory"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_followed_branches, setup, teardown),
                cmocka_unit_test_setup_teardown(test_changed_operators_are_found, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bare_mirror_and_worktree, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reftable_is_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_repo_is_named, setup, teardown),
                cmocka_unit_test_setup_teardown(test_recorded_tips_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_shared_files_queue_their_operators, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_export_operator_from_a_commit, setup,
                                                teardown),
        };
        return cmocka_run_group_tests_name("watchers", tests, NULL, NULL);
}
