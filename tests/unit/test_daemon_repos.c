/* SPDX-License-Identifier: MIT */
/*
 * Tests of the daemon's repo look-ups (daemon/repos.c) on a repository
 * made by the test: the "repos" of 'ascendopt status', also when jansson
 * runs out of memory at each of its allocations in turn (the answer is
 * whole or NULL, never one with a branch or a repo missing), and finding
 * a configured repo by its path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "daemon/daemon-internal.h"
#include "store/store.h"
#include "watchers/watchers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

static char root[64];
static char repo[192];
static struct store *store;

/* jansson's allocations: the one numbered fail_at fails (none while it is 0). */
static unsigned allocations, fail_at;

static void *counting_malloc(size_t size)
{
        if (fail_at && ++allocations == fail_at)
                return NULL;
        return malloc(size);
}

static int setup(void **state)
{
        char cmd[1024], path[256], err[512];

        git_libgit2_init();
        snprintf(root, sizeof(root), "/tmp/ascendopt-repos-XXXXXX");
        assert_non_null(mkdtemp(root));
        snprintf(repo, sizeof(repo), "%s/ops", root);
        snprintf(cmd, sizeof(cmd),
                 "(git init -q -b main '%s' && cd '%s' && git config user.email t@example.com && "
                 "git config user.name Tester && git commit -q --allow-empty -m one && "
                 "git branch dev && git branch feature/x) >/dev/null 2>&1",
                 repo, repo);
        assert_int_equal(system(cmd), 0);
        snprintf(path, sizeof(path), "%s/store", root);
        assert_int_equal(store_open(path, &store, err, sizeof(err)), 0);
        return 0;
}

static int teardown(void **state)
{
        json_set_alloc_funcs(malloc, free);
        store = store_close(store);
        git_libgit2_shutdown();
        return rm_rf(root);
}

/* The repo twice (a missing path, for an "error" row) with the branches main and dev. */
static json_t *repos_status(void)
{
        char *branches[] = { "main", "dev" };
        char missing[256];
        struct config_repo repos[2] = {
                { .path = repo, .branches = branches, .n_branches = 2 },
                { .path = missing, .branches = branches, .n_branches = 2 },
        };

        snprintf(missing, sizeof(missing), "%s/gone", root);
        return daemon_repos_status(store, repos, 2, "ascendopt/");
}

static void test_repos_status_lists_each_tip(void **state)
{
        json_t *list = repos_status(), *branches;

        assert_non_null(list);
        assert_int_equal(json_array_size(list), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "path")),
                            repo);
        branches = json_object_get(json_array_get(list, 0), "branches");
        assert_int_equal(json_array_size(branches), 2);
        assert_true(json_is_null(json_object_get(json_array_get(branches, 0), "last_seen")));
        assert_non_null(json_object_get(json_array_get(list, 1), "error"));
        json_decref(list);
}

/* Each allocation jansson makes fails in turn: the list is whole or NULL. */
static void test_repos_status_whole_or_null(void **state)
{
        json_t *whole = repos_status(), *list;
        unsigned failed = 0;

        assert_non_null(whole);
        json_set_alloc_funcs(counting_malloc, free);
        for (fail_at = 1;; fail_at++) {
                allocations = 0;
                list = repos_status();
                if (allocations < fail_at) { /* nothing failed: the last allocation is passed */
                        assert_true(json_equal(list, whole));
                        json_decref(list);
                        break;
                }
                if (list) /* a failure that was absorbed would show as a difference */
                        assert_true(json_equal(list, whole));
                else
                        failed++;
                json_decref(list);
        }
        fail_at = 0;
        json_set_alloc_funcs(malloc, free);
        assert_true(failed > 0);
        json_decref(whole);
}

static void test_find_repo(void **state)
{
        struct config_repo repos[1] = { { .path = repo } };
        struct config config = { .repos = repos, .n_repos = 1 };
        char dotted[256];

        snprintf(dotted, sizeof(dotted), "%s/../ops", repo);
        assert_ptr_equal(daemon_find_repo(&config, repo), &repos[0]);
        assert_ptr_equal(daemon_find_repo(&config, dotted), &repos[0]); /* by its realpath */
        assert_null(daemon_find_repo(&config, root));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_repos_status_lists_each_tip),
                cmocka_unit_test(test_repos_status_whole_or_null),
                cmocka_unit_test(test_find_repo),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
