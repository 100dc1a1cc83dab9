/* SPDX-License-Identifier: MIT */
/*
 * Tests of the experience bank on a real store (entries, BM25 retrieval by
 * bottleneck signature, credit) and of unified diffs, checked by applying
 * them with patch(1).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/ascendopt-experience-XXXXXX");
        assert_non_null(mkdtemp(dir));
        return 0;
}

static int teardown(void **state)
{
        return rm_rf(dir);
}

static void write_file(const char *name, const char *text)
{
        char path[128];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* Applies diff to a with patch(1) and checks the result is b. */
static void check_diff_applies(const char *a, const char *b)
{
        char *diff = text_unified_diff("a/k.cpp", a, "b/k.cpp", b);
        char cmd[512], got[4096] = "";
        FILE *p;
        size_t n;

        write_file("k.cpp", a);
        write_file("d.patch", diff);
        snprintf(cmd, sizeof(cmd),
                 "cd '%s' && patch -s -p1 -o out.cpp k.cpp < d.patch && cat out.cpp", dir);
        p = popen(cmd, "r");
        assert_non_null(p);
        n = fread(got, 1, sizeof(got) - 1, p);
        got[n] = '\0';
        assert_int_equal(pclose(p), 0);
        assert_string_equal(got, b);
        free(diff);
}

static void test_unified_diff(void **state)
{
        char *same = text_unified_diff("a", "x\ny\n", "b", "x\ny\n");
        char *d = text_unified_diff("a/k.cpp", "a\nb\nc\nd\n", "b/k.cpp", "a\nB\nc\nd\n");
        char big_a[4096] = "", big_b[4096] = "";

        assert_string_equal(same, "");
        assert_string_equal(d, "--- a/k.cpp\n+++ b/k.cpp\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n");
        free(same);
        free(d);
        check_diff_applies("one\ntwo\nthree\n", "one\n2\nthree\nfour\n");
        check_diff_applies("x\n", "");
        /* two changes far apart make two hunks that still apply */
        for (int i = 0; i < 40; i++) {
                char line[32];
                snprintf(line, sizeof(line), "line %d\n", i);
                strcat(big_a, line);
                strcat(big_b, i == 3 ? "changed 3\n" : i == 30 ? "" : line);
        }
        strcat(big_b, "appended\n");
        check_diff_applies(big_a, big_b);
}

static void put(struct store *s, const char *title, const char *bottleneck, const char *diff,
                char id[SHA256_HEX_SIZE])
{
        struct store_batch *b = store_batch_new(s);
        json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "title", title, "description",
                              "a rewrite", "bottleneck", bottleneck, "diff", diff, "motif", title);

        assert_non_null(e);
        assert_int_equal(experience_put(b, e, id), 0);
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        json_decref(e);
}

static void test_retrieval_ranks_by_signature(void **state)
{
        char path[128], err[256], a[SHA256_HEX_SIZE], b[SHA256_HEX_SIZE], c[SHA256_HEX_SIZE];
        struct store *s = NULL;
        json_t *hits = NULL, *all = NULL;

        snprintf(path, sizeof(path), "%s/store", dir);
        assert_int_equal(store_open(path, &s, err, sizeof(err)), 0);
        put(s, "double buffer", "bound=mte2 stall=buffer_free mte2_util=high", "-1\n+2\n", a);
        put(s, "remove pipe_all", "stall=pipe_all v_util=low", "-b\n", b);
        put(s, "vectorise scalar loop", "scalar=high bound=s", "-l\n+v\n", c);
        /* the same rewrite again is the same entry */
        put(s, "double buffer", "bound=mte2 stall=buffer_free mte2_util=high", "-1\n+2\n", a);
        assert_int_equal(experience_list(s, &all), 0);
        assert_int_equal(json_array_size(all), 3);

        assert_int_equal(
            experience_retrieve(s, "bound=mte2 v_util=low stall=buffer_free", 2, &hits), 0);
        assert_int_equal(json_array_size(hits), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 0), "id")), a);
        assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 1), "id")), b);
        json_decref(hits);
        /* nothing in common, nothing returned */
        assert_int_equal(experience_retrieve(s, "align=512", 5, &hits), 0);
        assert_int_equal(json_array_size(hits), 0);
        json_decref(hits);

        assert_int_equal(experience_credit(s, c, true), 0);
        assert_int_equal(experience_credit(s, c, false), 0);
        assert_int_equal(experience_retrieve(s, "scalar=high", 1, &hits), 0);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(hits, 0), "uses")), 2);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(hits, 0), "wins")), 1);
        json_decref(hits);
        /* finding the same rewrite again keeps what it earned */
        put(s, "vectorise scalar loop", "scalar=high bound=s", "-l\n+v\n", c);
        assert_int_equal(experience_retrieve(s, "scalar=high", 1, &hits), 0);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(hits, 0), "uses")), 2);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(hits, 0), "wins")), 1);
        json_decref(hits);
        json_decref(all);
        store_close(s);
}

static struct store *open_named(const char *name)
{
        char path[128], err[256];
        struct store *s = NULL;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        assert_int_equal(store_open(path, &s, err, sizeof(err)), 0);
        return s;
}

static json_int_t count(struct store *s, const char *id, const char *field)
{
        json_t *entry = NULL;
        json_int_t n;

        assert_int_equal(experience_get(s, id, &entry), 0);
        n = json_integer_value(json_object_get(entry, field));
        json_decref(entry);
        return n;
}

/* Merges path into s; commits only when the merge succeeded. */
static int merge_file(struct store *s, const char *path, size_t *added, size_t *updated, char *err)
{
        struct store_batch *b = store_batch_new(s);
        int r = experience_merge_lines(b, path, added, updated, err, 256);

        if (r == 0)
                assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        return r;
}

/*
 * A fleet job's bank (docs/fleet.md): it starts from the head's entries,
 * credits one and learns one; what it writes is that and nothing else,
 * and merged into the head, which credited the same entry meanwhile, the
 * counts add up.
 */
static void test_job_delta_merges_into_head(void **state)
{
        struct store *head = open_named("head"), *job = open_named("job");
        char known[SHA256_HEX_SIZE], idle[SHA256_HEX_SIZE], learned[SHA256_HEX_SIZE];
        char path[128], err[256] = "";
        json_t *before = NULL, *after = NULL, *lines = NULL, *line;
        size_t added = 0, updated = 0, i;
        FILE *f;

        put(head, "double buffer", "stall=buffer_free", "-1\n+2\n", known);
        put(head, "remove pipe_all", "stall=pipe_all", "-b\n", idle);
        assert_int_equal(experience_credit(head, known, true), 0);
        /* the job is given a snapshot of the head's bank */
        put(job, "double buffer", "stall=buffer_free", "-1\n+2\n", known);
        put(job, "remove pipe_all", "stall=pipe_all", "-b\n", idle);
        assert_int_equal(experience_credit(job, known, true), 0);
        assert_int_equal(experience_list(job, &before), 0);

        assert_int_equal(experience_credit(job, known, false), 0);
        assert_int_equal(experience_credit(job, known, true), 0);
        put(job, "prefetch the next tile", "scalar=high", "-c\n+p\n", learned);
        assert_int_equal(experience_credit(job, learned, true), 0);
        assert_int_equal(experience_list(job, &after), 0);
        assert_int_equal(experience_delta(before, after, &lines), 0);
        assert_int_equal(json_array_size(lines), 2); /* the idle entry is not written */
        json_array_foreach(lines, i, line)
        {
                assert_null(json_object_get(line, "id"));
                if (strcmp(json_string_value(json_object_get(line, "title")), "double buffer") ==
                    0) {
                        assert_int_equal(json_integer_value(json_object_get(line, "uses")), 2);
                        assert_int_equal(json_integer_value(json_object_get(line, "wins")), 1);
                }
        }
        snprintf(path, sizeof(path), "%s/experience.jsonl", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        json_array_foreach(lines, i, line) assert_int_equal(json_lines_put(f, line), 0);
        fclose(f);

        /* the head credited the entry once more while the job ran */
        assert_int_equal(experience_credit(head, known, false), 0);
        assert_int_equal(merge_file(head, path, &added, &updated, err), 0);
        assert_int_equal(added, 1);
        assert_int_equal(updated, 1);
        assert_int_equal(count(head, known, "uses"), 2 + 2);
        assert_int_equal(count(head, known, "wins"), 1 + 1);
        assert_int_equal(count(head, learned, "uses"), 1);
        assert_int_equal(count(head, learned, "wins"), 1);
        assert_int_equal(count(head, idle, "uses"), 0);

        /* a bad line, and nothing of the file is merged */
        write_file("bad.jsonl", "{\"title\": \"t\", \"description\": \"d\", \"bottleneck\": "
                                "\"b\", \"diff\": \"-x\\n\", \"uses\": 1}\n"
                                "{\"title\": \"t\", \"description\": \"d\", \"bottleneck\": "
                                "\"b\", \"diff\": \"-y\\n\", \"uses\": -3}\n");
        snprintf(path, sizeof(path), "%s/bad.jsonl", dir);
        assert_int_equal(merge_file(head, path, &added, &updated, err), -EINVAL);
        assert_non_null(strstr(err, "bad.jsonl:2: \"uses\" and \"wins\" must be whole numbers"));
        json_decref(lines);
        assert_int_equal(experience_list(head, &lines), 0);
        assert_int_equal(json_array_size(lines), 3);

        json_decref(before);
        json_decref(after);
        json_decref(lines);
        store_close(job);
        store_close(head);
}

/* With embeddings, the order is the cosine order, whatever BM25 would say. */
static void test_dense_retrieval_orders_by_cosine(void **state)
{
        char path[128], err[256], a[SHA256_HEX_SIZE], b[SHA256_HEX_SIZE], c[SHA256_HEX_SIZE];
        const char *ids[2];
        /* a points away from the query, b along it, c is embedded by another model */
        const float vectors[] = { -1, 0.2f, 0, 1, 0.1f, 0 };
        const float query[] = { 1, 0, 0 };
        struct store *s = NULL;
        json_t *hits = NULL;
        char *text;

        snprintf(path, sizeof(path), "%s/store", dir);
        assert_int_equal(store_open(path, &s, err, sizeof(err)), 0);
        put(s, "double buffer", "bound=mte2 stall=buffer_free", "-1\n+2\n", a);
        put(s, "vectorise scalar loop", "scalar=high", "-l\n+v\n", b);
        put(s, "remove pipe_all", "stall=pipe_all", "-b\n", c);
        /* BM25 would put a first for this signature */
        assert_int_equal(experience_retrieve(s, "bound=mte2", 1, &hits), 0);
        assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 0), "id")), a);
        json_decref(hits);

        ids[0] = a;
        ids[1] = b;
        assert_int_equal(experience_set_embeddings(s, ids, vectors, 2, 3, "embedder-1"), 0);
        ids[0] = c;
        assert_int_equal(experience_set_embeddings(s, ids, vectors + 3, 1, 3, "embedder-2"), 0);
        assert_int_equal(experience_retrieve_dense(s, query, 3, "embedder-1", 5, &hits), 0);
        assert_int_equal(json_array_size(hits), 2); /* c's vector is another model's */
        assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 0), "id")), b);
        assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 1), "id")), a);
        assert_true(json_number_value(json_object_get(json_array_get(hits, 0), "score")) > 0.9);
        assert_true(json_number_value(json_object_get(json_array_get(hits, 1), "score")) < 0);
        assert_null(json_object_get(json_array_get(hits, 0), "embedding"));
        json_decref(hits);
        /* a vector of another length never matches */
        assert_int_equal(experience_retrieve_dense(s, query, 2, "embedder-1", 5, &hits), 0);
        assert_int_equal(json_array_size(hits), 0);
        json_decref(hits);
        /* credit keeps the embedding */
        assert_int_equal(experience_credit(s, b, true), 0);
        assert_int_equal(experience_retrieve_dense(s, query, 3, "embedder-1", 1, &hits), 0);
        assert_string_equal(json_string_value(json_object_get(json_array_get(hits, 0), "id")), b);
        json_decref(hits);
        /* what an entry is embedded from */
        assert_int_equal(experience_list(s, &hits), 0);
        text = experience_embedding_text(json_array_get(hits, 0));
        assert_non_null(strstr(text, "bottleneck: "));
        free(text);
        json_decref(hits);
        store_close(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_unified_diff, setup, teardown),
                cmocka_unit_test_setup_teardown(test_retrieval_ranks_by_signature, setup, teardown),
                cmocka_unit_test_setup_teardown(test_job_delta_merges_into_head, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dense_retrieval_orders_by_cosine, setup,
                                                teardown),
        };
        return cmocka_run_group_tests_name("optimizer_experience", tests, NULL, NULL);
}
