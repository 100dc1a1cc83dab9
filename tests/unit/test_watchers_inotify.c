/* SPDX-License-Identifier: MIT */
/*
 * Tests of the watcher with real inotify, real git repos and a real store:
 * a commit touching one operator is reported once within 2 s, ten rapid
 * commits collapse into one report, new branch directories, packed refs,
 * bare mirrors updated by fetch, index.lock waits, repos that appear late
 * or vanish, and catching up on commits made while nobody watched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "store/store.h"
#include "watchers/watchers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_SEEN 64

struct seen {
        char branch[64];
        char old_oid[WATCH_OID_HEX];
        char new_oid[WATCH_OID_HEX];
        char dirs[256];
};

struct fixture {
        char root[64];
        char repo[128];
        char state[128];
        struct event_base *base;
        struct store *store;
        struct watcher *watcher;
        struct seen seen[MAX_SEEN];
        int n_seen;
};

static struct fixture *fx;

static void on_event(const struct watch_event *e, void *userdata)
{
        struct fixture *f = userdata;
        struct seen *s = &f->seen[f->n_seen < MAX_SEEN ? f->n_seen : MAX_SEEN - 1];
        struct store_batch *b;
        size_t pos = 0;

        snprintf(s->branch, sizeof(s->branch), "%s", e->branch);
        snprintf(s->old_oid, sizeof(s->old_oid), "%s", e->old_oid ? e->old_oid : "");
        snprintf(s->new_oid, sizeof(s->new_oid), "%s", e->new_oid);
        s->dirs[0] = '\0';
        for (size_t i = 0; i < e->n_operator_dirs; i++)
                pos += (size_t)snprintf(s->dirs + pos, sizeof(s->dirs) - pos, "%s%s", i ? " " : "",
                                        e->operator_dirs[i]);
        f->n_seen++;
        /* the consumer's half of the contract: record the tip */
        b = store_batch_new(f->store);
        watch_record_tip(b, e->repo, e->branch, e->new_oid);
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void sh(const char *fmt, ...)
{
        char cmd[2048], full[2400];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        snprintf(full, sizeof(full), "cd '%s' && (%s) >/dev/null 2>&1", fx->root, cmd);
        if (system(full) != 0)
                fail_msg("command failed: %s", cmd);
}

static void rev_parse(const char *repo, const char *rev, char out[WATCH_OID_HEX])
{
        char cmd[512];
        FILE *p;

        snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", repo, rev);
        p = popen(cmd, "r");
        assert_non_null(p);
        assert_non_null(fgets(out, WATCH_OID_HEX, p));
        out[40] = '\0';
        pclose(p);
}

static void make_repo(const char *path)
{
        sh("git init -q -b main '%s' && cd '%s' && git config user.email t@example.com && "
           "git config user.name Tester && mkdir -p ops/add/op_host ops/add/op_kernel "
           "ops/relu/op_host ops/relu/op_kernel && echo h > ops/add/op_host/add.cpp && "
           "echo k > ops/add/op_kernel/add.cpp && echo h > ops/relu/op_host/relu.cpp && "
           "echo k > ops/relu/op_kernel/relu.cpp && git add -A && git commit -qm initial",
           path, path);
}

static int setup(void **state)
{
        char err[256];

        fx = calloc(1, sizeof(*fx));
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-inotify-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        snprintf(fx->repo, sizeof(fx->repo), "%s/ops", fx->root);
        snprintf(fx->state, sizeof(fx->state), "%s/state", fx->root);
        fx->base = event_base_new();
        assert_int_equal(store_open(fx->state, &fx->store, err, sizeof(err)), 0);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        watcher_free(fx->watcher);
        store_close(fx->store);
        event_base_free(fx->base);
        rm_rf(fx->root);
        free(fx);
        return 0;
}

static void start_watching(const char *path, double settle_s, char **branches, size_t n)
{
        static char *main_only[] = { "main" };
        struct watcher_options options = { .settle_s = settle_s,
                                           .exclude_prefix = "ascendopt/",
                                           .lock_wait_max_s = 30 };
        struct watch_repo_spec spec = { .path = path,
                                        .branches = branches ? branches : main_only,
                                        .n_branches = branches ? n : 1 };

        if (!fx->watcher)
                assert_int_equal(
                    watcher_new(fx->base, fx->store, &options, on_event, fx, &fx->watcher), 0);
        assert_int_equal(watcher_add_repo(fx->watcher, &spec), 0);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
        *(bool *)arg = true;
}

/* Runs the loop until want reports arrived or limit_s passed; returns seconds. */
static double wait_for(int want, double limit_s)
{
        struct timeval tv = { .tv_sec = (time_t)limit_s,
                              .tv_usec = (suseconds_t)((limit_s - (int)limit_s) * 1e6) };
        struct timespec a, b;
        bool expired = false;
        struct event *deadline = evtimer_new(fx->base, on_deadline, &expired);

        clock_gettime(CLOCK_MONOTONIC, &a);
        evtimer_add(deadline, &tv);
        while (fx->n_seen < want && !expired)
                event_base_loop(fx->base, EVLOOP_ONCE);
        event_free(deadline);
        clock_gettime(CLOCK_MONOTONIC, &b);
        return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static void test_commit_touching_one_operator_is_reported_once(void **state)
{
        char tip[WATCH_OID_HEX];
        double took;

        make_repo(fx->repo);
        start_watching(fx->repo, 0, NULL, 0);
        /* attaching catches up: main is seen for the first time */
        assert_int_equal(fx->n_seen, 1);
        assert_string_equal(fx->seen[0].old_oid, "");

        sh("cd ops && echo k2 > ops/add/op_kernel/add.cpp && git commit -qam kernel");
        took = wait_for(2, 5);
        assert_int_equal(fx->n_seen, 2);
        assert_true(took < 2.0);
        assert_string_equal(fx->seen[1].dirs, "ops/add");
        rev_parse(fx->repo, "main", tip);
        assert_string_equal(fx->seen[1].new_oid, tip);
        assert_string_equal(fx->seen[1].old_oid, fx->seen[0].new_oid);

        /* a commit touching no operator is reported with none, and only once */
        sh("cd ops && echo docs > README && git add README && git commit -qm docs");
        wait_for(3, 5);
        assert_int_equal(fx->n_seen, 3);
        assert_string_equal(fx->seen[2].dirs, "");
        wait_for(4, 1.0);
        assert_int_equal(fx->n_seen, 3);
}

static void test_rapid_commits_collapse(void **state)
{
        char first[WATCH_OID_HEX], last[WATCH_OID_HEX];

        make_repo(fx->repo);
        start_watching(fx->repo, 0.3, NULL, 0);
        rev_parse(fx->repo, "main", first);
        sh("cd ops && for i in 1 2 3 4 5 6 7 8 9 10; do echo $i > ops/relu/op_host/relu.cpp; "
           "git commit -qam c$i; done");
        rev_parse(fx->repo, "main", last);
        wait_for(2, 5);
        wait_for(3, 1.0);
        assert_int_equal(fx->n_seen, 2);
        assert_string_equal(fx->seen[1].old_oid, first);
        assert_string_equal(fx->seen[1].new_oid, last);
        assert_string_equal(fx->seen[1].dirs, "ops/relu");
}

static void test_new_branch_directory_and_packed_refs(void **state)
{
        char *branches[] = { "main", "dev/*" };

        make_repo(fx->repo);
        start_watching(fx->repo, 0.2, branches, 2);
        assert_int_equal(fx->n_seen, 1);
        /* refs/heads/dev/ does not exist yet: the watcher must add it */
        sh("cd ops && git checkout -qb dev/feature && echo x > ops/add/op_host/add.cpp && "
           "git commit -qam feature");
        wait_for(2, 5);
        assert_int_equal(fx->n_seen, 2);
        assert_string_equal(fx->seen[1].branch, "dev/feature");
        /* first seen: nothing to diff against */
        assert_string_equal(fx->seen[1].old_oid, "");

        /* a ref that only lives in packed-refs still moves */
        sh("cd ops && git pack-refs --all && git checkout -q main && "
           "echo y > ops/relu/op_kernel/relu.cpp && git commit -qam packed");
        wait_for(3, 5);
        assert_int_equal(fx->n_seen, 3);
        assert_string_equal(fx->seen[2].branch, "main");
        assert_string_equal(fx->seen[2].dirs, "ops/relu");
}

static void test_bare_mirror_updated_by_fetch(void **state)
{
        char mirror[160];
        char *remote_main[] = { "main" };

        make_repo(fx->repo);
        snprintf(mirror, sizeof(mirror), "%s/mirror.git", fx->root);
        sh("git clone -q --mirror ops mirror.git");
        start_watching(mirror, 0.2, remote_main, 1);
        assert_int_equal(fx->n_seen, 1);
        sh("cd ops && echo z > ops/add/op_kernel/add.cpp && git commit -qam upstream && "
           "cd ../mirror.git && git fetch -q");
        wait_for(2, 5);
        assert_int_equal(fx->n_seen, 2);
        assert_string_equal(fx->seen[1].dirs, "ops/add");
}

static void test_index_lock_delays_the_scan(void **state)
{
        make_repo(fx->repo);
        start_watching(fx->repo, 0.2, NULL, 0);
        sh("cd ops && touch .git/index.lock && "
           "git commit-tree -p HEAD -m plumbing 'HEAD^{tree}' > ../new && "
           "git update-ref refs/heads/main $(cat ../new)");
        wait_for(2, 1.0);
        assert_int_equal(fx->n_seen, 1);
        sh("rm ops/.git/index.lock");
        wait_for(2, 5);
        assert_int_equal(fx->n_seen, 2);
}

static void test_repo_that_appears_late_and_vanishes(void **state)
{
        start_watching(fx->repo, 0.2, NULL, 0);
        assert_int_equal(fx->n_seen, 0);
        assert_int_equal(watcher_watch_count(fx->watcher), 0);
        make_repo(fx->repo);
        /* retried after about 1 s; catching up reports main */
        wait_for(1, 5);
        assert_int_equal(fx->n_seen, 1);
        assert_true(watcher_watch_count(fx->watcher) > 0);

        sh("rm -rf ops");
        wait_for(2, 1.0);
        assert_int_equal(fx->n_seen, 1);
        assert_int_equal(watcher_watch_count(fx->watcher), 0);
        /* a different history at the same path: the old tip cannot be diffed */
        make_repo(fx->repo);
        wait_for(2, 8);
        assert_int_equal(fx->n_seen, 2);
        assert_int_equal(watcher_remove_repo(fx->watcher, fx->repo), 0);
        assert_int_equal(watcher_watch_count(fx->watcher), 0);
}

static void test_catch_up_after_downtime(void **state)
{
        char *main_only[] = { "main" };

        make_repo(fx->repo);
        start_watching(fx->repo, 0.2, main_only, 1);
        assert_int_equal(fx->n_seen, 1);
        fx->watcher = watcher_free(fx->watcher);
        sh("cd ops && echo down > ops/add/op_host/add.cpp && git commit -qam while-down");
        start_watching(fx->repo, 0.2, main_only, 1);
        assert_int_equal(fx->n_seen, 2);
        assert_string_equal(fx->seen[1].dirs, "ops/add");
        assert_int_equal(
            watcher_add_repo(fx->watcher, &(struct watch_repo_spec){ .path = fx->repo }), -EEXIST);
}

static void test_rescan_backoff_schedule(void **state)
{
        assert_true(watch_rescan_delay_s(0) == 0);
        assert_true(watch_rescan_delay_s(2) == 0);
        assert_true(watch_rescan_delay_s(3) > 0.099 && watch_rescan_delay_s(3) < 0.101);
        assert_true(watch_rescan_delay_s(4) > 0.199 && watch_rescan_delay_s(4) < 0.201);
        assert_true(watch_rescan_delay_s(30) == 10.0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_commit_touching_one_operator_is_reported_once,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_rapid_commits_collapse, setup, teardown),
                cmocka_unit_test_setup_teardown(test_new_branch_directory_and_packed_refs, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_bare_mirror_updated_by_fetch, setup, teardown),
                cmocka_unit_test_setup_teardown(test_index_lock_delays_the_scan, setup, teardown),
                cmocka_unit_test_setup_teardown(test_repo_that_appears_late_and_vanishes, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_catch_up_after_downtime, setup, teardown),
                cmocka_unit_test(test_rescan_backoff_schedule),
        };
        log_set_max_level(LOG_ERR);
        return cmocka_run_group_tests_name("watchers_inotify", tests, NULL, NULL);
}
