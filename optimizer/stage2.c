/* SPDX-License-Identifier: MIT */
/*
 * Stage II without an LLM: diagnose the current best by its bottleneck
 * signature, retrieve experience entries for it, rank them by similarity
 * and by what they have measurably paid off, and turn the motifs they name
 * into candidates; fall back to a fixed motif order when the bank has
 * nothing that applies, and write accepted improvements back to the bank.
 */
#include "stage2-internal.h"

#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RETRIEVE_FACTOR  4 /* entries asked for per one kept, room for filtering */
#define MAX_SINGLE_SITES 4 /* per motif, after the every-site action */
#define QUERY_MAX        4096

uint64_t stage2_random(uint64_t *state)
{
        uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

double stage2_entry_value(const json_t *entry, double max_score)
{
        double score = json_number_value(json_object_get(entry, "score"));
        double uses = (double)json_integer_value(json_object_get(entry, "uses"));
        double wins = (double)json_integer_value(json_object_get(entry, "wins"));
        const json_t *gain = json_object_get(entry, "mean_gain");
        double g;

        if (!json_is_number(gain))
                gain = json_object_get(entry, "gain");
        if (!json_is_number(gain))
                gain = json_object_get(entry, "slowdown");
        g = json_is_number(gain) ? json_number_value(gain) : 1.0;
        if (!(g >= 1.0))
                g = 1.0;
        if (g > 4.0)
                g = 4.0;
        if (wins > uses)
                wins = uses;
        return (max_score > 0 ? score / max_score : 0) * 2.0 * (wins + 1) / (uses + 2) * sqrt(g);
}

/* Sites of motif m forward on files; -1 when the detector fails. */
static long forward_sites(const struct motif *m, const struct motif_file *files, size_t n)
{
        struct motif_site *sites = NULL;
        size_t n_sites = 0;

        if (motif_detect(m, MOTIF_FORWARD, files, n, &sites, &n_sites) < 0)
                return -1;
        free(sites);
        return (long)n_sites;
}

static bool planned(const json_t *plan, const char *motif)
{
        size_t i;
        json_t *a;

        json_array_foreach(plan, i, a)
        {
                if (strcmp(json_string_value(json_object_get(a, "motif")), motif) == 0)
                        return true;
        }
        return false;
}

static int add_action(json_t *plan, const char *motif, const char *entry, long site,
                      const char *source)
{
        json_t *action = json_pack("{s:s, s:s?, s:I, s:s}", "motif", motif, "entry", entry, "site",
                                   (json_int_t)site, "source", source);

        return json_array_append_new(plan, action) < 0 ? -ENOMEM : 0;
}

struct ranked {
        double value;
        size_t index;
};

static int by_value(const void *a, const void *b)
{
        const struct ranked *x = a, *y = b;

        if (x->value != y->value)
                return x->value > y->value ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

/* Retrieved entries, filtered and ranked, into plan (and diagnosis). */
static int plan_from_bank(const struct stage2_plan_options *o, const char *query,
                          const long *n_sites, json_t *plan, json_t *retrieved_out)
{
        size_t k = o->top_k ? o->top_k : 5, n, i, kept = 0, added = 0;
        struct ranked *rank = NULL;
        json_t *entries = NULL, *e;
        double max_score = 0;
        int r = 0;

        if (o->retrieved)
                entries = json_incref((json_t *)o->retrieved);
        else
                r = experience_retrieve(o->store, query, k * RETRIEVE_FACTOR, &entries);
        if (r < 0)
                return r;
        n = json_array_size(entries);
        rank = calloc(n ? n : 1, sizeof(*rank));
        if (!rank) {
                json_decref(entries);
                return -ENOMEM;
        }
        json_array_foreach(entries, i, e)
        {
                const char *op = json_string_value(json_object_get(e, "operator"));
                if (o->leave_one_out && op && o->operator_name && strcmp(op, o->operator_name) == 0)
                        continue;
                if (json_number_value(json_object_get(e, "score")) > max_score)
                        max_score = json_number_value(json_object_get(e, "score"));
                rank[kept].index = i;
                kept++;
        }
        for (i = 0; i < kept; i++)
                rank[i].value =
                    stage2_entry_value(json_array_get(entries, rank[i].index), max_score);
        qsort(rank, kept, sizeof(*rank), by_value);
        /*
         * The k best entries whose motif the detector finds here, one per
         * motif: an entry naming a motif that does not apply, or one
         * already planned, gives its place to the next (it is still
         * listed in the diagnosis, marked).
         */
        for (i = 0; r == 0 && i < kept && added < k; i++) {
                const json_t *entry = json_array_get(entries, rank[i].index);
                const char *motif = json_string_value(json_object_get(entry, "motif"));
                const char *id = json_string_value(json_object_get(entry, "id"));
                const struct motif *m = motif ? motif_find(motif) : NULL;
                long sites = m ? n_sites[m - motif_at(0)] : 0;
                bool take = sites > 0 && id && !planned(plan, motif);
                if (json_array_append_new(
                        retrieved_out,
                        json_pack("{s:s?, s:s?, s:f, s:f, s:b, s:b}", "id", id, "motif", motif,
                                  "score", json_number_value(json_object_get(entry, "score")),
                                  "value", rank[i].value, "applicable", sites > 0, "planned",
                                  take)) < 0)
                        r = -ENOMEM;
                else if (take) {
                        r = add_action(plan, motif, id, -1, "bank");
                        added++;
                }
        }
        free(rank);
        json_decref(entries);
        return r;
}

static void shuffle(json_t *plan, uint64_t *rng)
{
        for (size_t i = json_array_size(plan); i > 1; i--) {
                size_t j = (size_t)(stage2_random(rng) % i);
                json_t *a = json_incref(json_array_get(plan, i - 1));
                json_t *b = json_incref(json_array_get(plan, j));
                json_array_set_new(plan, i - 1, b);
                json_array_set_new(plan, j, a);
        }
}

int stage2_plan(const struct stage2_plan_options *o, const struct motif_file *files, size_t n_files,
                json_t **ret_plan, json_t **ret_diagnosis)
{
        size_t n_motifs = motif_count();
        long *n_sites = calloc(n_motifs ? n_motifs : 1, sizeof(*n_sites));
        json_t *plan = json_array(), *singles = json_array(), *retrieved = json_array();
        char *query = malloc(QUERY_MAX);
        int r = 0;

        if (!n_sites || !plan || !singles || !retrieved || !query) {
                r = -ENOMEM;
                goto out;
        }
        /*
         * The query is the diagnosis alone; the kernel's motif features (what
         * the detectors find) filter what is planned.  Titles of the motifs
         * that apply used to join the query too, and then the longest,
         * most distinctive title (bank_conflict_pad's) led on every kernel:
         * precision@3 on the corpus was 0.84, with the signature alone 0.88.
         */
        snprintf(query, QUERY_MAX, "%s", o->signature ? o->signature : "");
        for (size_t i = 0; i < n_motifs; i++)
                n_sites[i] = forward_sites(motif_at(i), files, n_files);
        if (o->mode == STAGE2_GUIDED && o->store) {
                r = plan_from_bank(o, query, n_sites, plan, retrieved);
                if (r < 0)
                        goto out;
        }
        for (size_t i = 0; r == 0 && i < n_motifs; i++) {
                const struct motif *m = motif_at(i);
                const char *source = o->mode == STAGE2_RANDOM ? "random" : "fallback";
                if (n_sites[i] <= 0)
                        continue;
                if (!planned(plan, m->name))
                        r = add_action(plan, m->name, NULL, -1, source);
                /* one site at a time, for when changing every site at once fails */
                for (long s = 0; r == 0 && n_sites[i] > 1 && s < n_sites[i] && s < MAX_SINGLE_SITES;
                     s++)
                        r = add_action(singles, m->name, NULL, s, source);
        }
        if (r < 0)
                goto out;
        if (o->mode == STAGE2_RANDOM && o->rng) {
                shuffle(plan, o->rng);
                shuffle(singles, o->rng);
        }
        json_array_extend(plan, singles);
        if (ret_diagnosis) {
                *ret_diagnosis = json_pack(
                    "{s:s, s:s, s:O, s:s}", "signature", o->signature ? o->signature : "", "query",
                    query, "retrieved", retrieved, "retrieval", o->retrieved ? "dense" : "bm25");
                if (!*ret_diagnosis) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        *ret_plan = json_incref(plan);
out:
        json_decref(plan);
        json_decref(singles);
        json_decref(retrieved);
        free(n_sites);
        free(query);
        return r;
}

int stage2_apply(const json_t *action, const struct motif_file *files, size_t n_files,
                 struct motif_file **ret_changed, size_t *ret_n)
{
        const struct motif *m = motif_find(json_string_value(json_object_get(action, "motif")));
        json_int_t site = json_integer_value(json_object_get(action, "site"));
        struct motif_file *changed = NULL;
        size_t n_changed = 0, kept = 0;
        int r;

        if (!m)
                return -ENOENT;
        r = motif_apply(m, MOTIF_FORWARD, files, n_files, site < 0 ? MOTIF_ALL_SITES : (size_t)site,
                        &changed, &n_changed);
        if (r < 0)
                return r;
        /* only sources are candidates' files; the manifest is read, never rewritten */
        for (size_t i = 0; i < n_changed; i++) {
                if (strncmp(changed[i].path, "op_kernel/", 10) == 0 ||
                    strncmp(changed[i].path, "op_host/", 8) == 0) {
                        changed[kept++] = changed[i];
                } else {
                        free((void *)changed[i].path);
                        free((void *)changed[i].text);
                }
        }
        *ret_changed = changed;
        *ret_n = kept;
        return 0;
}

int stage2_learn(struct store *store, const struct stage2_learned *what,
                 const struct motif_file *before, size_t n_before, const struct motif_file *changed,
                 size_t n_changed, char ret_id[SHA256_HEX_SIZE])
{
        const struct motif *m = motif_find(what->motif);
        const char *title = m ? m->title : what->title;
        const char *about = m ? m->description : what->description;
        size_t len = 0, cap = 1;
        char *diff = calloc(1, 1), description[1024];
        struct store_batch *b = NULL;
        json_t *entry = NULL;
        int r;

        if (!title || !about || !what->motif || !diff) {
                free(diff);
                return diff ? -ENOENT : -ENOMEM;
        }
        for (size_t c = 0; c < n_changed; c++) {
                const char *old = "";
                char a_name[300], b_name[300], *part, *grown;
                size_t part_len;
                for (size_t i = 0; i < n_before; i++)
                        if (strcmp(before[i].path, changed[c].path) == 0)
                                old = before[i].text;
                snprintf(a_name, sizeof(a_name), "a/%s", changed[c].path);
                snprintf(b_name, sizeof(b_name), "b/%s", changed[c].path);
                part = text_unified_diff(a_name, old, b_name, changed[c].text);
                if (!part) {
                        r = -ENOMEM;
                        goto out;
                }
                part_len = strlen(part);
                if (len + part_len + 1 > cap) {
                        cap = (len + part_len + 1) * 2;
                        grown = realloc(diff, cap);
                        if (!grown) {
                                free(part);
                                r = -ENOMEM;
                                goto out;
                        }
                        diff = grown;
                }
                memcpy(diff + len, part, part_len + 1);
                len += part_len;
                free(part);
        }
        snprintf(description, sizeof(description),
                 "%s  Found by an episode on %s, where it gained %.2fx.", about,
                 what->operator_name ? what->operator_name : "an operator", what->gain);
        entry = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s?, s:i, s:s, s:f, s:f, s:s?}", "title",
                          title, "description", description, "bottleneck",
                          what->signature_before ? what->signature_before : "", "diff", diff,
                          "motif", what->motif, "operator", what->operator_name, "level",
                          what->level, "origin", "episode", "gain", what->gain, "mean_gain",
                          what->gain, "context", what->context);
        b = store_batch_new(store);
        if (!entry || !b) {
                r = -ENOMEM;
                goto out;
        }
        r = experience_put(b, entry, ret_id);
        if (r == 0)
                r = store_batch_commit(b);
out:
        store_batch_free(b);
        json_decref(entry);
        free(diff);
        return r;
}
