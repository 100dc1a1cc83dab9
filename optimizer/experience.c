/* SPDX-License-Identifier: MIT */
/*
 * The experience bank in the store, BM25 retrieval by bottleneck
 * signature (or cosine similarity of embeddings when an embedding model is
 * configured), and the unified diffs entries carry.
 */
#include "optimizer.h"

#include "llm/llm.h"
#include "store/store.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY_PREFIX "entry/"
#define MAX_TERMS  512
#define TERM_MAX   64
#define BM25_K1    1.2
#define BM25_B     0.75

void experience_id(const json_t *entry, char ret_id[SHA256_HEX_SIZE])
{
        const char *motif = json_string_value(json_object_get(entry, "motif"));
        const char *diff = json_string_value(json_object_get(entry, "diff"));
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;

        sha256_init(&s);
        sha256_update(&s, motif ? motif : "", motif ? strlen(motif) + 1 : 1);
        sha256_update(&s, diff ? diff : "", diff ? strlen(diff) : 0);
        sha256_final(&s, digest);
        sha256_hex(digest, ret_id);
}

int experience_get(struct store *store, const char *id, json_t **ret_entry)
{
        char key[SHA256_HEX_SIZE + 16];

        if (snprintf(key, sizeof(key), KEY_PREFIX "%s", id) >= (int)sizeof(key))
                return -EINVAL;
        return store_get_json(store, STORE_EXPERIENCE, key, ret_entry);
}

int experience_put(struct store_batch *batch, const json_t *entry, char ret_id[SHA256_HEX_SIZE])
{
        static const char *const required[] = { "title", "description", "bottleneck", "diff" };
        static const char *const counters[] = { "uses", "wins" };
        json_t *existing = NULL;
        char id[SHA256_HEX_SIZE], key[SHA256_HEX_SIZE + 16];
        json_t *copy;
        int r;

        for (size_t i = 0; i < ARRAY_SIZE(required); i++)
                if (!json_is_string(json_object_get(entry, required[i])))
                        return -EINVAL;
        experience_id(entry, id);
        copy = json_deep_copy(entry);
        if (!copy)
                return -ENOMEM;
        json_object_set_new(copy, "id", json_string(id));
        snprintf(key, sizeof(key), KEY_PREFIX "%s", id);
        /* the same rewrite found again keeps the statistics it earned */
        if (store_get_json(store_batch_owner(batch), STORE_EXPERIENCE, key, &existing) < 0)
                existing = NULL;
        for (size_t i = 0; i < ARRAY_SIZE(counters); i++)
                if (!json_object_get(copy, counters[i]))
                        json_object_set_new(copy, counters[i],
                                            json_integer(json_integer_value(
                                                json_object_get(existing, counters[i]))));
        json_decref(existing);
        r = store_batch_put_json(batch, STORE_EXPERIENCE, key, copy);
        json_decref(copy);
        if (r == 0 && ret_id)
                memcpy(ret_id, id, SHA256_HEX_SIZE);
        return r;
}

static int collect(const void *key, size_t key_len, const void *value, size_t value_len,
                   void *userdata)
{
        json_t *entry = json_loadb(value, value_len, 0, NULL);

        (void)key, (void)key_len;
        if (!entry)
                return 0;
        if (json_array_size(userdata) >= EXPERIENCE_MAX_ENTRIES) {
                json_decref(entry);
                return 1;
        }
        json_array_append_new(userdata, entry);
        return 0;
}

json_t *experience_export_doc(json_t *entries)
{
        return json_pack("{s:s, s:i, s:O}", "format", "ascendopt-experience", "version", 1,
                         "entries", entries);
}

int experience_list(struct store *store, json_t **ret_entries)
{
        json_t *entries = json_array();
        int r;

        if (!entries)
                return -ENOMEM;
        r = store_scan(store, STORE_EXPERIENCE, KEY_PREFIX, strlen(KEY_PREFIX), collect, entries);
        if (r < 0) {
                json_decref(entries);
                return r;
        }
        *ret_entries = entries;
        return 0;
}

/*
 * Splits text into lower-case terms: signature tokens such as
 * "bound=mte2" stay whole, other text splits on anything but letters,
 * digits, '_' and '='.
 */
static size_t terms_of(const char *text, char terms[][TERM_MAX], size_t max)
{
        size_t n = 0, len = 0;

        for (const char *p = text ? text : "";; p++) {
                unsigned char c = (unsigned char)*p;
                if (c && (isalnum(c) || c == '_' || c == '=')) {
                        if (len + 1 < TERM_MAX)
                                terms[n][len++] = (char)tolower(c);
                        continue;
                }
                if (len >= 2 && n < max) {
                        terms[n][len] = '\0';
                        n++;
                }
                len = 0;
                if (!c || n == max)
                        break;
        }
        return n;
}

static size_t entry_terms(const json_t *entry, char terms[][TERM_MAX], size_t max)
{
        size_t n = terms_of(json_string_value(json_object_get(entry, "bottleneck")), terms, max);

        n += terms_of(json_string_value(json_object_get(entry, "title")), terms + n, max - n);
        n += terms_of(json_string_value(json_object_get(entry, "description")), terms + n, max - n);
        return n;
}

static size_t count_term(char terms[][TERM_MAX], size_t n, const char *term)
{
        size_t c = 0;

        for (size_t i = 0; i < n; i++)
                c += strcmp(terms[i], term) == 0;
        return c;
}

struct scored {
        double score;
        size_t index;
};

static int by_score(const void *a, const void *b)
{
        const struct scored *x = a, *y = b;

        if (x->score != y->score)
                return x->score > y->score ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

int experience_retrieve(struct store *store, const char *query, size_t k, json_t **ret_entries)
{
        static char q_terms[MAX_TERMS][TERM_MAX];
        char(*doc)[TERM_MAX] = NULL;
        struct scored *scores = NULL;
        json_t *entries = NULL, *out = NULL, *entry;
        size_t n_q, n_docs, i, total_len = 0, n_scored = 0;
        size_t *df = NULL;
        double avg_len;
        int r;

        r = experience_list(store, &entries);
        if (r < 0)
                return r;
        n_docs = json_array_size(entries);
        n_q = terms_of(query, q_terms, MAX_TERMS);
        doc = malloc(sizeof(*doc) * MAX_TERMS);
        df = calloc(n_q ? n_q : 1, sizeof(*df));
        scores = calloc(n_docs ? n_docs : 1, sizeof(*scores));
        out = json_array();
        if (!doc || !df || !scores || !out) {
                r = -ENOMEM;
                goto fail;
        }
        /* document frequencies and lengths */
        json_array_foreach(entries, i, entry)
        {
                size_t len = entry_terms(entry, doc, MAX_TERMS);
                total_len += len;
                for (size_t t = 0; t < n_q; t++)
                        df[t] += count_term(doc, len, q_terms[t]) > 0;
        }
        avg_len = n_docs ? (double)total_len / (double)n_docs : 1;
        json_array_foreach(entries, i, entry)
        {
                size_t len = entry_terms(entry, doc, MAX_TERMS);
                double score = 0;
                for (size_t t = 0; t < n_q; t++) {
                        double tf = (double)count_term(doc, len, q_terms[t]);
                        double idf = log(1.0 + ((double)n_docs - (double)df[t] + 0.5) /
                                                   ((double)df[t] + 0.5));
                        if (tf == 0)
                                continue;
                        score += idf * tf * (BM25_K1 + 1) /
                                 (tf + BM25_K1 * (1 - BM25_B + BM25_B * (double)len / avg_len));
                }
                if (score > 0) {
                        scores[n_scored].score = score;
                        scores[n_scored].index = i;
                        n_scored++;
                }
        }
        qsort(scores, n_scored, sizeof(*scores), by_score);
        for (i = 0; i < n_scored && i < k; i++) {
                json_t *e = json_deep_copy(json_array_get(entries, scores[i].index));
                json_object_set_new(e, "score", json_real(scores[i].score));
                json_array_append_new(out, e);
        }
        *ret_entries = out;
        out = NULL;
fail:
        json_decref(out);
        json_decref(entries);
        free(doc);
        free(df);
        free(scores);
        return r;
}

int experience_credit(struct store *store, const char *id, bool won)
{
        char key[SHA256_HEX_SIZE + 16];
        struct store_batch *b;
        json_t *entry = NULL;
        int r;

        snprintf(key, sizeof(key), KEY_PREFIX "%s", id);
        r = store_get_json(store, STORE_EXPERIENCE, key, &entry);
        if (r < 0)
                return r;
        json_object_set_new(entry, "uses",
                            json_integer(json_integer_value(json_object_get(entry, "uses")) + 1));
        if (won)
                json_object_set_new(
                    entry, "wins",
                    json_integer(json_integer_value(json_object_get(entry, "wins")) + 1));
        b = store_batch_new(store);
        r = b ? store_batch_put_json(b, STORE_EXPERIENCE, key, entry) : -ENOMEM;
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        json_decref(entry);
        return r;
}

/* ------------------------------------------------------------ diffs */

struct lines {
        const char **at;
        size_t *len;
        size_t n;
};

static int split_lines(const char *text, struct lines *l)
{
        size_t cap = 64;

        l->n = 0;
        l->at = malloc(cap * sizeof(*l->at));
        l->len = malloc(cap * sizeof(*l->len));
        if (!l->at || !l->len)
                return -ENOMEM;
        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
                if (l->n == cap) {
                        cap *= 2;
                        const char **a = realloc(l->at, cap * sizeof(*l->at));
                        size_t *b = a ? realloc(l->len, cap * sizeof(*l->len)) : NULL;
                        if (a)
                                l->at = a;
                        if (!a || !b)
                                return -ENOMEM;
                        l->len = b;
                }
                l->at[l->n] = p;
                l->len[l->n] = len;
                l->n++;
                p += len;
        }
        return 0;
}

static bool same_line(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
        size_t la = a->len[i], lb = b->len[j];

        /* a last line without its newline equals the same line with one */
        if (la && a->at[i][la - 1] == '\n')
                la--;
        if (lb && b->at[j][lb - 1] == '\n')
                lb--;
        return la == lb && memcmp(a->at[i], b->at[j], la) == 0;
}

static void append_line(struct strbuf *b, char mark, const char *s, size_t n)
{
        strbuf_putn(b, &mark, 1);
        strbuf_putn(b, s, n);
        if (!n || s[n - 1] != '\n')
                strbuf_putn(b, "\n", 1);
}

/*
 * Line diff by longest common subsequence (operator sources are small),
 * printed as unified hunks with three lines of context.
 */
char *text_unified_diff(const char *a_name, const char *a, const char *b_name, const char *b)
{
        struct lines x = { 0 }, y = { 0 };
        struct strbuf out = { 0 };
        uint32_t *lcs = NULL;
        char *ops = NULL; /* per step: '=' '-' '+' */
        size_t *oi = NULL, *oj = NULL, n_ops = 0;

        if (split_lines(a ? a : "", &x) < 0 || split_lines(b ? b : "", &y) < 0 ||
            (x.n + 1) * (y.n + 1) > (size_t)64 << 20)
                goto out;
        lcs = calloc((x.n + 1) * (y.n + 1), sizeof(*lcs));
        ops = malloc(x.n + y.n + 1);
        oi = malloc((x.n + y.n + 1) * sizeof(*oi));
        oj = malloc((x.n + y.n + 1) * sizeof(*oj));
        if (!lcs || !ops || !oi || !oj)
                goto out;
#define L(i, j) lcs[(i) * (y.n + 1) + (j)]
        for (size_t i = x.n; i-- > 0;)
                for (size_t j = y.n; j-- > 0;)
                        L(i, j) = same_line(&x, i, &y, j)      ? L(i + 1, j + 1) + 1
                                  : L(i + 1, j) >= L(i, j + 1) ? L(i + 1, j)
                                                               : L(i, j + 1);
        for (size_t i = 0, j = 0; i < x.n || j < y.n;) {
                oi[n_ops] = i;
                oj[n_ops] = j;
                if (i < x.n && j < y.n && same_line(&x, i, &y, j)) {
                        ops[n_ops++] = '=';
                        i++, j++;
                } else if (i < x.n && (j == y.n || L(i + 1, j) >= L(i, j + 1))) {
                        /* deletions before insertions, as diff -u prints them */
                        ops[n_ops++] = '-';
                        i++;
                } else {
                        ops[n_ops++] = '+';
                        j++;
                }
        }
#undef L
        for (size_t k = 0; k < n_ops;) {
                size_t start = k, end, last = k, j, a_count = 0, b_count = 0;
                char header[96];
                if (ops[k] == '=') {
                        k++;
                        continue;
                }
                /* up to three lines of context before, changes closer than seven
                 * equal lines merge into one hunk, three lines of context after */
                for (size_t ctx = 0; start > 0 && ops[start - 1] == '=' && ctx < 3; ctx++)
                        start--;
                for (j = k; j < n_ops; j++) {
                        if (ops[j] != '=')
                                last = j;
                        else if (j - last > 6)
                                break;
                }
                end = last + 1 + 3 < n_ops ? last + 1 + 3 : n_ops;
                for (size_t t = start; t < end; t++) {
                        a_count += ops[t] != '+';
                        b_count += ops[t] != '-';
                }
                if (!out.len) {
                        strbuf_putn(&out, "--- ", 4);
                        strbuf_putn(&out, a_name, strlen(a_name));
                        strbuf_putn(&out, "\n+++ ", 5);
                        strbuf_putn(&out, b_name, strlen(b_name));
                        strbuf_putn(&out, "\n", 1);
                }
                snprintf(header, sizeof(header), "@@ -%zu,%zu +%zu,%zu @@\n",
                         oi[start] + (a_count ? 1 : 0), a_count, oj[start] + (b_count ? 1 : 0),
                         b_count);
                strbuf_putn(&out, header, strlen(header));
                for (size_t t = start; t < end; t++) {
                        if (ops[t] == '+')
                                append_line(&out, '+', y.at[oj[t]], y.len[oj[t]]);
                        else
                                append_line(&out, ops[t] == '=' ? ' ' : '-', x.at[oi[t]],
                                            x.len[oi[t]]);
                }
                k = end;
        }
out:
        free(x.at);
        free(x.len);
        free(y.at);
        free(y.len);
        free(lcs);
        free(ops);
        free(oi);
        free(oj);
        return strbuf_detach(&out); /* NULL only when out of memory */
}

int experience_import_file(struct store *store, const char *path, size_t *ret_added, char *err,
                           size_t err_size)
{
        json_error_t error;
        json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &error), *entry;
        json_t *entries = json_object_get(doc, "entries");
        struct store_batch *batch = NULL;
        size_t i, added = 0;
        int r = 0;

        if (!doc) {
                snprintf(err, err_size, "%s:%d:%d: %s", path, error.line, error.column, error.text);
                return access(path, R_OK) < 0 ? -errno : -EINVAL;
        }
        if (!json_is_array(entries)) {
                snprintf(err, err_size, "%s: .entries: expected an array", path);
                r = -EINVAL;
                goto out;
        }
        if (json_array_size(entries) > EXPERIENCE_MAX_ENTRIES) {
                snprintf(err, err_size, "%s: more than %d entries", path, EXPERIENCE_MAX_ENTRIES);
                r = -E2BIG;
                goto out;
        }
        batch = store_batch_new(store);
        if (!batch) {
                r = -ENOMEM;
                snprintf(err, err_size, "out of memory");
                goto out;
        }
        json_array_foreach(entries, i, entry)
        {
                if (experience_put(batch, entry, NULL) < 0) {
                        snprintf(err, err_size,
                                 "%s: .entries[%zu]: needs title, description, bottleneck and "
                                 "diff as strings",
                                 path, i);
                        r = -EINVAL;
                        goto out;
                }
                added++;
        }
        r = store_batch_commit(batch);
        if (r < 0)
                snprintf(err, err_size, "%s: cannot write the store: %s", path, strerror(-r));
out:
        store_batch_free(batch);
        json_decref(doc);
        if (r == 0 && ret_added)
                *ret_added = added;
        return r;
}

/* The seed bank's file, as experience_seed_if_empty() looks for it; NULL: none. */
static const char *find_seed_bank(char *buf, size_t size)
{
        const char *env = getenv("ASCENDOPT_SEED_BANK");

        if (env)
                return *env ? env : NULL; /* set but empty: no seeding */
        if (program_relative_path(buf, size, "../etc/ascendopt/seed-bank.json") == 0 &&
            access(buf, R_OK) == 0)
                return buf;
        if (access(ASCENDOPT_DATADIR "/seed-bank.json", R_OK) == 0)
                return ASCENDOPT_DATADIR "/seed-bank.json";
        return NULL;
}

int experience_seed_if_empty(struct store *store, struct experience_seeding *ret, char *err,
                             size_t err_size)
{
        static char buf[PATH_MAX];
        json_t *entries = NULL;
        int r;

        *ret = (struct experience_seeding){ 0 };
        r = experience_list(store, &entries);
        if (r < 0) {
                snprintf(err, err_size, "cannot read the experience bank: %s", strerror(-r));
                return r;
        }
        ret->was_empty = json_array_size(entries) == 0;
        json_decref(entries);
        if (!ret->was_empty)
                return 0;
        ret->path = find_seed_bank(buf, sizeof(buf));
        if (!ret->path)
                return 0;
        return experience_import_file(store, ret->path, &ret->added, err, err_size);
}

/* ------------------------------------------------------------ embeddings */

char *experience_embedding_text(const json_t *entry)
{
        char *text = NULL;

        if (asprintf(&text, "%s\n%s\nbottleneck: %s",
                     json_string_value(json_object_get(entry, "title")) ?: "",
                     json_string_value(json_object_get(entry, "description")) ?: "",
                     json_string_value(json_object_get(entry, "bottleneck")) ?: "") < 0)
                return NULL;
        return text;
}

int experience_set_embeddings(struct store *store, const char *const *ids, const float *vectors,
                              size_t n, size_t dim, const char *model)
{
        struct store_batch *b = store_batch_new(store);
        int r = b ? 0 : -ENOMEM;

        for (size_t i = 0; r == 0 && i < n; i++) {
                char key[SHA256_HEX_SIZE + 16];
                json_t *entry = NULL, *vector = json_array();
                snprintf(key, sizeof(key), KEY_PREFIX "%s", ids[i]);
                r = vector ? store_get_json(store, STORE_EXPERIENCE, key, &entry) : -ENOMEM;
                for (size_t d = 0; r == 0 && d < dim; d++)
                        if (json_array_append_new(vector, json_real(vectors[i * dim + d])) < 0)
                                r = -ENOMEM;
                if (r == 0) {
                        json_object_set_new(entry, "embedding", json_incref(vector));
                        json_object_set_new(entry, "embedding_model", json_string(model));
                        r = store_batch_put_json(b, STORE_EXPERIENCE, key, entry);
                }
                json_decref(vector);
                json_decref(entry);
        }
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        return r;
}

/* The entry's embedding as floats when it has one of model and dim. */
static bool entry_vector(const json_t *entry, const char *model, size_t dim, float *out)
{
        const json_t *vector = json_object_get(entry, "embedding"), *x;
        const char *of = json_string_value(json_object_get(entry, "embedding_model"));
        size_t i;

        if (!of || !model || strcmp(of, model) != 0 || json_array_size(vector) != dim)
                return false;
        json_array_foreach(vector, i, x)
        {
                if (!json_is_number(x))
                        return false;
                out[i] = (float)json_number_value(x);
        }
        return true;
}

int experience_retrieve_dense(struct store *store, const float *query, size_t dim,
                              const char *model, size_t k, json_t **ret_entries)
{
        struct scored *scores = NULL;
        json_t *entries = NULL, *out = NULL, *entry;
        float *vector = NULL;
        size_t n_scored = 0, i;
        int r;

        if (!query || dim == 0 || dim > LLM_MAX_EMBED_DIM || !model)
                return -EINVAL;
        r = experience_list(store, &entries);
        if (r < 0)
                return r;
        scores = calloc(json_array_size(entries) + 1, sizeof(*scores));
        vector = malloc(dim * sizeof(*vector));
        out = json_array();
        if (!scores || !vector || !out) {
                r = -ENOMEM;
                goto out;
        }
        json_array_foreach(entries, i, entry)
        {
                if (!entry_vector(entry, model, dim, vector))
                        continue;
                scores[n_scored].score = llm_cosine_similarity(query, vector, dim);
                scores[n_scored].index = i;
                n_scored++;
        }
        qsort(scores, n_scored, sizeof(*scores), by_score);
        for (i = 0; i < n_scored && i < k; i++) {
                json_t *e = json_deep_copy(json_array_get(entries, scores[i].index));
                json_object_del(e, "embedding"); /* large, and the caller has the score */
                json_object_set_new(e, "score", json_real(scores[i].score));
                json_array_append_new(out, e);
        }
        *ret_entries = out;
        out = NULL;
out:
        json_decref(out);
        json_decref(entries);
        free(scores);
        free(vector);
        return r;
}
