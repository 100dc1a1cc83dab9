/* SPDX-License-Identifier: MIT */
/*
 * Tests of the store on a real RocksDB in a temporary directory: reopening,
 * ordered prefix scans, blobs, the candidate memo, a crash in the middle of
 * a stream of batches (a writer killed with SIGKILL), schema checks, and a
 * store locked by another process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "store/store.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/ascendopt-store-XXXXXX");
        assert_non_null(mkdtemp(dir));
        return 0;
}

static int teardown(void **state)
{
        assert_int_equal(rm_rf(dir), 0);
        return 0;
}

static struct store *open_ok(void)
{
        struct store *s = NULL;
        char err[512] = "";

        if (store_open(dir, &s, err, sizeof(err)) < 0)
                fail_msg("store_open: %s", err);
        return s;
}

static void put_text(struct store *s, enum store_family f, const char *key, const char *value)
{
        struct store_batch *b = store_batch_new(s);

        store_batch_put(b, f, key, strlen(key), value, strlen(value));
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
}

static void test_reopen_keeps_everything(void **state)
{
        struct store *s = open_ok();
        struct store_batch *b = store_batch_new(s);
        json_t *episode = json_pack("{s:i, s:s}", "id", 7, "state", "running");
        json_t *got = NULL;
        void *value = NULL;
        size_t len = 0;

        assert_non_null(episode);
        assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
        assert_int_equal(store_batch_put_json(b, STORE_EPISODES, "ep/7", episode), 0);
        store_batch_put(b, STORE_REPOS, "repo/main", 9, "abc123", 6);
        assert_int_equal(store_batch_count(b), 2);
        assert_int_equal(store_batch_commit(b), 0);
        assert_int_equal(store_batch_count(b), 0);
        store_batch_free(b);
        store_close(s);

        s = open_ok();
        assert_int_equal(store_get_json(s, STORE_EPISODES, "ep/7", &got), 0);
        assert_true(json_equal(got, episode));
        assert_int_equal(store_get(s, STORE_REPOS, "repo/main", 9, &value, &len), 0);
        assert_int_equal(len, 6);
        assert_memory_equal(value, "abc123", 6);
        /* families are separate namespaces */
        assert_int_equal(store_get(s, STORE_QUEUE, "repo/main", 9, &value, &len) == -ENOENT, 1);
        free(value);
        json_decref(got);
        json_decref(episode);
        store_close(s);
}

struct collected {
        char keys[16][32];
        int n;
        int stop_after;
};

static int collect(const void *key, size_t key_len, const void *value, size_t value_len,
                   void *userdata)
{
        struct collected *c = userdata;

        snprintf(c->keys[c->n++], 32, "%.*s", (int)key_len, (const char *)key);
        return c->stop_after && c->n >= c->stop_after ? 1 : 0;
}

static void test_prefix_scan_is_ordered_and_bounded(void **state)
{
        struct store *s = open_ok();
        struct collected c = { 0 };

        put_text(s, STORE_QUEUE, "q/2", "b");
        put_text(s, STORE_QUEUE, "q/1", "a");
        put_text(s, STORE_QUEUE, "r/1", "other");
        put_text(s, STORE_QUEUE, "q/3", "c");
        assert_int_equal(store_scan(s, STORE_QUEUE, "q/", 2, collect, &c), 0);
        assert_int_equal(c.n, 3);
        assert_string_equal(c.keys[0], "q/1");
        assert_string_equal(c.keys[2], "q/3");
        memset(&c, 0, sizeof(c));
        c.stop_after = 2;
        assert_int_equal(store_scan(s, STORE_QUEUE, "q/", 2, collect, &c), 0);
        assert_int_equal(c.n, 2);
        store_close(s);
}

static void test_blobs_are_content_addressed(void **state)
{
        struct store *s = open_ok();
        struct store_batch *b = store_batch_new(s);
        const char *text = "extern \"C\" __global__ __aicore__ void add_custom() {}\n";
        char hex1[SHA256_HEX_SIZE], hex2[SHA256_HEX_SIZE];
        void *data = NULL;
        size_t len = 0;

        store_blob_put(b, text, strlen(text), hex1);
        store_blob_put(b, text, strlen(text), hex2);
        assert_string_equal(hex1, hex2);
        assert_int_equal(store_batch_commit(b), 0);
        assert_int_equal(store_blob_get(s, hex1, &data, &len), 0);
        assert_int_equal(len, strlen(text));
        assert_memory_equal(data, text, len);
        free(data);
        assert_int_equal(store_blob_get(s, "nothex", &data, &len), -EINVAL);
        store_batch_free(b);
        store_close(s);
}

static void test_candidate_memo_refuses_infra_errors(void **state)
{
        struct store *s = open_ok();
        struct store_batch *b = store_batch_new(s);
        json_t *ok = json_pack("{s:s, s:f}", "status", "ok", "latency_us", 264.0);
        json_t *infra = json_pack("{s:s}", "status", "infra_error");
        json_t *got = NULL;

        assert_non_null(ok);
        assert_non_null(infra);
        assert_int_equal(store_candidate_put(b, "id-ok", ok), 0);
        assert_int_equal(store_candidate_put(b, "id-infra", infra), -EINVAL);
        assert_int_equal(store_batch_commit(b), 0);
        assert_int_equal(store_candidate_get(s, "id-ok", &got), 0);
        assert_true(json_equal(got, ok));
        assert_int_equal(store_candidate_get(s, "id-infra", &got), -ENOENT);
        json_decref(ok);
        json_decref(infra);
        json_decref(got);
        store_batch_free(b);
        store_close(s);
}

/*
 * A child commits batches that each write the same sequence number into
 * two families, reporting every acknowledged commit on a pipe.  The parent
 * kills it mid-stream.  Every acknowledged batch must be there in full, and
 * no batch may be there by halves.
 */
/* ------------------------------------------------------------ the memo as JSON lines */

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static struct store *open_at(const char *name)
{
        struct store *s = NULL;
        char path[128], err[512] = "";

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (store_open(path, &s, err, sizeof(err)) < 0)
                fail_msg("store_open %s: %s", path, err);
        return s;
}

static void put_result(struct store *s, const char *identity, double us)
{
        struct store_batch *b = store_batch_new(s);
        json_t *result = json_pack("{s:s, s:f}", "status", "ok", "latency_us", us);

        assert_int_equal(store_candidate_put(b, identity, result), 0);
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        json_decref(result);
}

static double latency_of(struct store *s, const char *identity)
{
        json_t *result = NULL;
        double us;

        if (store_candidate_get(s, identity, &result) < 0)
                return -1;
        us = json_number_value(json_object_get(result, "latency_us"));
        json_decref(result);
        return us;
}

/* Merges path into s; returns what store_memo_merge returned, committing only on success. */
static int merge(struct store *s, const char *path, size_t *added, size_t *known, char *err)
{
        struct store_batch *b = store_batch_new(s);
        int r = store_memo_merge(b, path, added, known, err, 512);

        if (r == 0)
                assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        return r;
}

static void write_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/*
 * A job's memo merged into the head's: what the head lacks is added, what
 * it measured itself keeps its first result, and a second merge of the
 * same file changes nothing.
 */
static void test_memo_lines_merge_first_result_wins(void **state)
{
        struct store *job = open_at("job"), *head = open_at("head");
        const char *const wanted[] = { ID_A, ID_B };
        char path[128], err[512] = "";
        size_t written = 0, added = 9, known = 9;
        FILE *f;

        put_result(job, ID_A, 10.0);
        put_result(job, ID_B, 20.0);
        snprintf(path, sizeof(path), "%s/memo.jsonl", dir);
        f = fopen(path, "w");
        assert_int_equal(store_memo_write(job, NULL, 0, f, &written), 0);
        fclose(f);
        assert_int_equal(written, 2);

        put_result(head, ID_B, 99.0);
        assert_int_equal(merge(head, path, &added, &known, err), 0);
        assert_int_equal(added, 1);
        assert_int_equal(known, 1);
        assert_true(latency_of(head, ID_A) == 10.0);
        assert_true(latency_of(head, ID_B) == 99.0); /* measured here first */

        assert_int_equal(merge(head, path, &added, &known, err), 0);
        assert_int_equal(added, 0);
        assert_int_equal(known, 2);

        /* only the identities asked for, and those never measured are left out */
        f = fopen(path, "w");
        assert_int_equal(store_memo_write(head, wanted, 1, f, &written), 0);
        fclose(f);
        assert_int_equal(written, 1);
        store_close(job);
        store_close(head);
}

/* A file from a node is untrusted: one bad line and nothing of it is merged. */
static void test_memo_lines_bad_file_merges_nothing(void **state)
{
        struct store *head = open_at("head");
        char path[128], link_path[128], err[512] = "";
        size_t added = 0, known = 0;

        snprintf(path, sizeof(path), "%s/memo.jsonl", dir);
        write_text(path, "{\"identity\": \"" ID_A "\", \"result\": {\"status\": \"ok\"}}\n"
                         "{\"identity\": \"" ID_B "\", \"result\": {}}\n");
        assert_int_equal(merge(head, path, &added, &known, err), -EINVAL);
        assert_non_null(strstr(err, "memo.jsonl:2: \"result\" needs a \"status\""));
        assert_true(latency_of(head, ID_A) < 0);

        /* cut short at the end, as by a crash */
        write_text(path, "{\"identity\": \"" ID_A "\", \"result\": {\"status\": \"ok\"}}");
        assert_int_equal(merge(head, path, &added, &known, err), -EINVAL);
        assert_non_null(strstr(err, "memo.jsonl:1: cut short"));

        write_text(path, "{\"identity\": \"../../etc\", \"result\": {\"status\": \"ok\"}}\n");
        assert_int_equal(merge(head, path, &added, &known, err), -EINVAL);
        assert_non_null(strstr(err, "memo.jsonl:1: needs \"identity\" (64 lowercase hex digits)"));

        write_text(path,
                   "{\"identity\": \"" ID_A "\", \"result\": {\"status\": \"infra_error\"}}\n");
        assert_int_equal(merge(head, path, &added, &known, err), -EINVAL);
        assert_non_null(strstr(err, "memo.jsonl:1: an infra_error"));
        assert_true(latency_of(head, ID_A) < 0);

        /* a link planted where the file should be is not followed */
        write_text(path, "{\"identity\": \"" ID_A "\", \"result\": {\"status\": \"ok\"}}\n");
        snprintf(link_path, sizeof(link_path), "%s/link.jsonl", dir);
        assert_int_equal(symlink(path, link_path), 0);
        assert_int_equal(merge(head, link_path, &added, &known, err), -ELOOP);
        assert_non_null(strstr(err, "link.jsonl: cannot open"));
        assert_true(latency_of(head, ID_A) < 0);
        store_close(head);
}

static void test_kill_during_batches_loses_nothing_acknowledged(void **state)
{
        int acks[2];
        pid_t pid;
        int last_ack = -1, n;
        char key[32];

        assert_int_equal(pipe(acks), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct store *s = NULL;
                char err[256];
                close(acks[0]);
                if (store_open(dir, &s, err, sizeof(err)) < 0)
                        _exit(2);
                for (int i = 0;; i++) {
                        struct store_batch *b = store_batch_new(s);
                        char value[4096];
                        snprintf(key, sizeof(key), "seq/%08d", i);
                        memset(value, 'x', sizeof(value));
                        store_batch_put(b, STORE_EPISODES, key, strlen(key), value, sizeof(value));
                        store_batch_put(b, STORE_QUEUE, key, strlen(key), value, sizeof(value));
                        if (store_batch_commit(b) < 0)
                                _exit(3);
                        store_batch_free(b);
                        if (write(acks[1], &i, sizeof(i)) != sizeof(i))
                                _exit(4);
                }
        }
        close(acks[1]);
        while (last_ack < 40 && read(acks[0], &n, sizeof(n)) == sizeof(n))
                last_ack = n;
        kill(pid, SIGKILL);
        while (read(acks[0], &n, sizeof(n)) == sizeof(n))
                last_ack = n;
        close(acks[0]);
        waitpid(pid, NULL, 0);
        assert_true(last_ack >= 40);

        struct store *s = open_ok();
        int present_episodes = 0, present_queue = 0;
        for (int i = 0; i < last_ack + 100; i++) {
                void *v = NULL;
                size_t len = 0;
                int in_episodes, in_queue;
                snprintf(key, sizeof(key), "seq/%08d", i);
                in_episodes = store_get(s, STORE_EPISODES, key, strlen(key), &v, &len) == 0;
                free(v);
                v = NULL;
                in_queue = store_get(s, STORE_QUEUE, key, strlen(key), &v, &len) == 0;
                free(v);
                if (i <= last_ack) {
                        assert_true(in_episodes);
                        assert_true(in_queue);
                }
                assert_int_equal(in_episodes, in_queue);
                present_episodes += in_episodes;
                present_queue += in_queue;
        }
        assert_int_equal(present_episodes, present_queue);
        store_close(s);
}

static void test_newer_schema_is_refused(void **state)
{
        struct store *s = open_ok();
        char err[512] = "";

        put_text(s, STORE_META, "schema_version", "99");
        store_close(s);
        s = NULL;
        assert_int_equal(store_open(dir, &s, err, sizeof(err)), -EPROTO);
        assert_null(s);
        assert_non_null(strstr(err, "written by a newer ascendopt (schema 99)"));
}

static void test_garbled_schema_is_refused(void **state)
{
        struct store *s = open_ok();
        char err[512] = "";

        put_text(s, STORE_META, "schema_version", "banana");
        store_close(s);
        s = NULL;
        assert_int_equal(store_open(dir, &s, err, sizeof(err)), -EPROTO);
        assert_non_null(strstr(err, "schema version \"banana\" is not valid"));
}

static void test_store_locked_by_another_process(void **state)
{
        int ready[2], release[2];
        struct store *s = NULL;
        char err[512] = "", c = 0, holder[512], who[64];
        pid_t pid;

        assert_int_equal(pipe(ready), 0);
        assert_int_equal(pipe(release), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct store *held = NULL;
                char e[256];
                if (store_open(dir, &held, e, sizeof(e)) < 0)
                        _exit(2);
                if (write(ready[1], "r", 1) != 1 || read(release[0], &c, 1) != 1)
                        _exit(3);
                store_close(held);
                _exit(0);
        }
        assert_int_equal(read(ready[0], &c, 1), 1);
        assert_int_equal(store_open(dir, &s, err, sizeof(err)), -EBUSY);
        assert_null(s);
        assert_non_null(strstr(err, "is in use by pid"));
        assert_non_null(strstr(err, "only one process may open it"));
        /* doctor asks who holds it without opening it */
        snprintf(who, sizeof(who), "pid %d (", (int)pid);
        assert_int_equal(store_holder(dir, holder, sizeof(holder)), 1);
        assert_non_null(strstr(holder, who));
        assert_int_equal(write(release[1], "x", 1), 1);
        waitpid(pid, NULL, 0);
        assert_int_equal(store_holder(dir, holder, sizeof(holder)), 0);
        /* once the holder is gone the store opens again; our own hold shows too */
        s = open_ok();
        assert_int_equal(store_holder(dir, holder, sizeof(holder)), 1);
        store_close(s);
        assert_int_equal(store_holder("/nonexistent/store", holder, sizeof(holder)), 0);
        close(ready[0]);
        close(ready[1]);
        close(release[0]);
        close(release[1]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_reopen_keeps_everything, setup, teardown),
                cmocka_unit_test_setup_teardown(test_prefix_scan_is_ordered_and_bounded, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_blobs_are_content_addressed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_candidate_memo_refuses_infra_errors, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_memo_lines_merge_first_result_wins, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_memo_lines_bad_file_merges_nothing, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_kill_during_batches_loses_nothing_acknowledged,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_newer_schema_is_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_garbled_schema_is_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_store_locked_by_another_process, setup,
                                                teardown),
        };
        return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
