/* SPDX-License-Identifier: MIT */
/*
 * The episode record: its key in the store, the counters and trajectory
 * the phase machine writes, the best pair kept by blob so that a stopped
 * episode resumes, and struct episode_summary, the typed view through
 * which everything outside the episode reads a record.
 */
#include "episode-internal.h"

#include "common/common.h"
#include "llm/llm.h"
#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <event2/event.h>

static void episode_key(char *buf, size_t size, const char *id)
{
        snprintf(buf, size, "episode/%s", id);
}

int episode_load(struct store *store, const char *id, json_t **ret_record)
{
        char key[512];

        episode_key(key, sizeof(key), id);
        return store_get_json(store, STORE_EPISODES, key, ret_record);
}

/* ------------------------------------------------------------ the best pair */

struct op_file *episode_file_named(struct episode *ep, const char *path)
{
        for (size_t i = 0; i < ep->n_files; i++)
                if (strcmp(ep->files[i].path, path) == 0)
                        return &ep->files[i];
        return NULL;
}

/* What persist() writes so that a resumed episode has the same best pair. */
static json_t *pair_json(struct episode *ep, struct store_batch *b)
{
        json_t *values = json_array(), *best = json_object(), *bases = json_object();
        json_t *located = json_array();
        char hex[SHA256_HEX_SIZE];

        for (size_t g = 0; g < ep->n_genes; g++) {
                json_array_append_new(values, json_integer(ep->best_values[g]));
                json_array_append_new(
                    located, ep->lost[g] ? json_null()
                                         : json_pack("[I, I, I]", (json_int_t)ep->located[g].start,
                                                     (json_int_t)ep->located[g].len,
                                                     (json_int_t)ep->located[g].value));
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                if (strcmp(f->best, f->disk) != 0) {
                        store_blob_put(b, f->best, strlen(f->best), hex);
                        json_object_set_new(best, f->path, json_string(hex));
                }
                if (f->gene_base && strcmp(f->gene_base, f->disk) != 0) {
                        store_blob_put(b, f->gene_base, strlen(f->gene_base), hex);
                        json_object_set_new(bases, f->path, json_string(hex));
                }
        }
        return json_pack("{s:o, s:o, s:o, s:o}", "values", values, "best", best, "gene_base", bases,
                         "located", located);
}

static int blob_text(struct store *store, const json_t *sha, char **ret)
{
        void *data = NULL;
        size_t len = 0;
        char *text;
        int r;

        if (!json_is_string(sha))
                return -EBADMSG;
        r = store_blob_get(store, json_string_value(sha), &data, &len);
        if (r < 0)
                return r;
        text = malloc(len + 1);
        if (!text) {
                free(data);
                return -ENOMEM;
        }
        memcpy(text, data, len);
        text[len] = '\0';
        free(data);
        *ret = text;
        return 0;
}

/* Restores the best pair of a resumed record; -errno leaves a mixed state. */
static int restore_pair(struct episode *ep, const json_t *pair)
{
        const json_t *values = json_object_get(pair, "values");
        const json_t *located = json_object_get(pair, "located");
        const char *path;
        json_t *sha;
        int r;

        if (!pair)
                return 0;
        if (json_array_size(values) != ep->n_genes || json_array_size(located) != ep->n_genes)
                return -EBADMSG;
        json_object_foreach((json_t *)json_object_get(pair, "best"), path, sha)
        {
                struct op_file *f = episode_file_named(ep, path);
                char *text = NULL;
                if (!f)
                        return -EBADMSG;
                r = blob_text(ep->store, sha, &text);
                if (r < 0)
                        return r;
                free(f->best);
                f->best = text;
        }
        json_object_foreach((json_t *)json_object_get(pair, "gene_base"), path, sha)
        {
                struct op_file *f = episode_file_named(ep, path);
                char *text = NULL;
                if (!f || !f->gene_base)
                        return -EBADMSG;
                r = blob_text(ep->store, sha, &text);
                if (r < 0)
                        return r;
                free(f->gene_base);
                f->gene_base = text;
        }
        for (size_t g = 0; g < ep->n_genes; g++) {
                const json_t *at = json_array_get(located, g);
                ep->best_values[g] = json_integer_value(json_array_get(values, g));
                ep->lost[g] = json_is_null(at);
                if (ep->lost[g])
                        continue;
                ep->located[g].start = (size_t)json_integer_value(json_array_get(at, 0));
                ep->located[g].len = (size_t)json_integer_value(json_array_get(at, 1));
                ep->located[g].value = json_integer_value(json_array_get(at, 2));
        }
        return 0;
}

/* Writes the record, search state and best pair included, in one synced batch. */
int episode_persist(struct episode *ep)
{
        struct store_batch *b = store_batch_new(ep->store);
        char key[512];
        int r;

        if (!b)
                return -ENOMEM;
        json_object_set_new(ep->record, "search", search_to_json(ep->search));
        json_object_set_new(ep->record, "pair", pair_json(ep, b));
        json_object_set_new(ep->record, "rng", json_sprintf("%016" PRIx64, ep->rng));
        json_object_set_new(ep->record, "updated", json_integer((json_int_t)time(NULL)));
        episode_key(key, sizeof(key), ep->id);
        r = store_batch_put_json(b, STORE_EPISODES, key, ep->record);
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        return r;
}

int episode_counter(struct episode *ep, const char *name)
{
        return (int)json_integer_value(json_object_get(ep->record, name));
}

void episode_bump(struct episode *ep, const char *name)
{
        json_object_set_new(ep->record, name, json_integer(episode_counter(ep, name) + 1));
}

/* Adds one to object[outer][inner] of the record, creating what is missing. */
void episode_bump_in(struct episode *ep, const char *outer, const char *middle, const char *inner)
{
        json_t *o = json_object_get(ep->record, outer), *m;

        if (!o) {
                o = json_object();
                json_object_set_new(ep->record, outer, o);
        }
        m = json_object_get(o, middle);
        if (!m) {
                m = json_object();
                json_object_set_new(o, middle, m);
        }
        json_object_set_new(m, inner,
                            json_integer(json_integer_value(json_object_get(m, inner)) + 1));
}

void episode_report_progress(struct episode *ep, const char *what, int stage, const json_t *result,
                             bool new_best)
{
        double best = 0;
        struct episode_progress p = {
                .used = episode_counter(ep, "evaluations"),
                .budget = ep->options.budget,
                .memo_hits = episode_counter(ep, "memo_hits"),
                .what = what,
                .stage = stage,
                .status = json_string_value(json_object_get(result, "status")),
                .latency_us = json_number_value(json_object_get(result, "latency_us")),
                .new_best = new_best,
        };

        search_best(ep->search, &best);
        p.best_us = best;
        if (ep->progress)
                ep->progress(&p, ep->userdata);
}

json_t *episode_genome_json(const struct episode *ep, const int64_t *values)
{
        json_t *genome = json_object();

        for (size_t g = 0; g < ep->n_genes; g++) {
                char key[300];
                if (episode_is_move_gene(&ep->genes[g]))
                        snprintf(key, sizeof(key), "%s", ep->genes[g].name);
                else
                        snprintf(key, sizeof(key), "%s:%u:%s", ep->genes[g].file, ep->genes[g].line,
                                 ep->genes[g].name);
                json_object_set_new(genome, key, json_integer(values[g]));
        }
        return genome;
}

const json_t *episode_best_summary(struct episode *ep)
{
        const json_t *best = json_object_get(ep->record, "best");

        return best ? best : json_object_get(ep->record, "baseline");
}

json_t *episode_genes_json(const struct episode *ep)
{
        json_t *genes = json_array();

        for (size_t g = 0; g < ep->n_genes; g++)
                json_array_append_new(
                    genes,
                    json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:b}", "file", ep->genes[g].file,
                              "line", ep->genes[g].line, "name", ep->genes[g].name, "value",
                              (json_int_t)ep->genes[g].value, "lo", (json_int_t)ep->genes[g].lo,
                              "hi", (json_int_t)ep->genes[g].hi, "marked", ep->genes[g].marked));
        return genes;
}

/* Takes a running record of this id back, with its search, best pair and plan. */
bool episode_resume(struct episode *ep, json_t *old)
{
        const char *rng = json_string_value(json_object_get(old, "rng"));

        if (strcmp(json_string_value(json_object_get(old, "state")) ?: "", "running") != 0 ||
            strcmp(json_string_value(json_object_get(old, "strategy")) ?: "",
                   episode_strategy_name(ep->options.strategy)) != 0 ||
            search_from_json(ep->search, json_object_get(old, "search")) < 0)
                return false;
        if (restore_pair(ep, json_object_get(old, "pair")) < 0) {
                log_msg(LOG_WARNING, ep->options.log_context,
                        "the best texts of the stopped episode are gone; starting over");
                return false;
        }
        if (!json_object_get(old, "pair") && search_best(ep->search, NULL))
                memcpy(ep->best_values, search_best(ep->search, NULL),
                       ep->n_genes * sizeof(*ep->best_values));
        if (rng)
                ep->rng = strtoull(rng, NULL, 16);
        return true;
}
