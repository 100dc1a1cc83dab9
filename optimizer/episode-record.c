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

int episode_record_put(struct store_batch *batch, const char *id, const json_t *record)
{
        char key[512];

        episode_key(key, sizeof(key), id);
        return store_batch_put_json(batch, STORE_EPISODES, key, record);
}

/* ------------------------------------------------------------ the best pair */

struct op_file *episode_file_named(struct episode *ep, const char *path)
{
        for (size_t i = 0; i < ep->n_files; i++)
                if (strcmp(ep->files[i].path, path) == 0)
                        return &ep->files[i];
        return NULL;
}

/*
 * Where a gene is in its gene_base: [start, len, value], and its twins
 * [[offset, len, delta], ...] when it has any; NULL: out of memory.
 */
static json_t *located_json(const struct gene *g)
{
        json_t *at = json_pack("[I, I, I]", (json_int_t)g->start, (json_int_t)g->len,
                               (json_int_t)g->value),
               *twins = g->n_twins ? json_array() : NULL;

        for (size_t t = 0; twins && t < g->n_twins; t++)
                if (json_array_append_new(twins,
                                          json_pack("[I, I, I]", (json_int_t)g->twins[t].offset,
                                                    (json_int_t)g->twins[t].len,
                                                    (json_int_t)g->twins[t].delta)) < 0) {
                        json_decref(twins);
                        json_decref(at);
                        return NULL;
                }
        if (g->n_twins && (!twins || json_array_append_new(at, twins) < 0)) {
                json_decref(at);
                return NULL;
        }
        return at;
}

/* The twins of a located entry back into g; an entry without them leaves g's. */
static void located_twins(const json_t *at, struct gene *g)
{
        const json_t *twins = json_array_get(at, 3), *twin;
        size_t i;

        if (!json_is_array(twins))
                return;
        g->n_twins = 0;
        json_array_foreach(twins, i, twin)
        {
                if (g->n_twins == GENE_TWINS_MAX)
                        break;
                g->twins[g->n_twins++] =
                    (struct gene_twin){ (long)json_integer_value(json_array_get(twin, 0)),
                                        (size_t)json_integer_value(json_array_get(twin, 1)),
                                        json_integer_value(json_array_get(twin, 2)) };
        }
}

/* What persist() writes so that a resumed episode has the same best pair; NULL: out of memory. */
static json_t *pair_json(struct episode *ep, struct store_batch *b)
{
        json_t *values = json_array(), *best = json_object(), *bases = json_object();
        json_t *located = json_array(), *pair;
        char hex[SHA256_HEX_SIZE];
        bool oom = false;

        for (size_t g = 0; g < ep->n_genes && !oom; g++)
                oom = json_array_append_new(values, json_integer(ep->best_values[g])) < 0 ||
                      json_array_append_new(
                          located, ep->lost[g] ? json_null() : located_json(&ep->located[g])) < 0;
        for (size_t i = 0; !oom && i < ep->n_files; i++) {
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
        /* json_pack takes the four, even when it fails */
        pair = json_pack("{s:o, s:o, s:o, s:o}", "values", values, "best", best, "gene_base", bases,
                         "located", located);
        if (oom) {
                json_decref(pair);
                return NULL;
        }
        return pair;
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
                located_twins(at, &ep->located[g]);
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
        if (json_object_set_new(ep->record, "search", search_to_json(ep->search)) < 0 ||
            json_object_set_new(ep->record, "pair", pair_json(ep, b)) < 0) {
                /* a stale search or pair would resume from elsewhere */
                store_batch_free(b);
                return -ENOMEM;
        }
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
                /* the failure's kind (ub_overflow), as the record counts it, not runtime_error */
                .status =
                    json_string_value(json_object_get(json_object_get(result, "error"), "kind"))
                        ?: json_string_value(json_object_get(result, "status")),
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
                if (json_array_append_new(
                        genes,
                        json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:b}", "file", ep->genes[g].file,
                                  "line", ep->genes[g].line, "name", ep->genes[g].name, "value",
                                  (json_int_t)ep->genes[g].value, "lo", (json_int_t)ep->genes[g].lo,
                                  "hi", (json_int_t)ep->genes[g].hi, "marked",
                                  ep->genes[g].marked)) < 0) {
                        json_decref(genes);
                        return NULL;
                }
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

/* ------------------------------------------------------------ the typed view */

static const char *str_at(const json_t *o, const char *key)
{
        return json_string_value(json_object_get(o, key));
}

/* An integer, or a real truncated (older records), or 0. */
static int64_t int_at(const json_t *o, const char *key)
{
        const json_t *v = json_object_get(o, key);

        if (json_is_integer(v))
                return (int64_t)json_integer_value(v);
        if (json_is_real(v))
                return (int64_t)json_real_value(v);
        return 0;
}

static double num_at(const json_t *o, const char *key)
{
        return json_number_value(json_object_get(o, key));
}

void episode_llm_usage_read(const json_t *llm, struct episode_llm_usage *ret)
{
        *ret = (struct episode_llm_usage){ .present = json_is_object(llm) };
        if (!ret->present)
                return;
        ret->model = str_at(llm, "model");
        ret->requests = int_at(llm, "requests");
        ret->total_tokens = int_at(llm, "total_tokens");
        ret->proposals = int_at(llm, "proposals");
        ret->evaluated = int_at(llm, "evaluated");
        ret->won = int_at(llm, "won");
        ret->discarded = json_object_get(llm, "discarded");
        ret->has_off = json_object_get(llm, "off") != NULL;
        ret->off = str_at(llm, "off");
}

static void read_point(const json_t *o, struct episode_point *ret)
{
        *ret = (struct episode_point){ .present = json_is_object(o) };
        ret->identity = str_at(o, "identity");
        ret->latency_us = num_at(o, "latency_us");
        ret->roofline_us = num_at(o, "roofline_us");
        ret->files = json_object_get(o, "files");
        ret->genome = json_object_get(o, "genome");
}

/* The members of an object of counter objects ({name: {counter: n}}), in record order. */
static int read_counts(const json_t *o, struct episode_counts **ret, size_t *ret_n)
{
        const char *name;
        const json_t *v;
        size_t n = 0;

        *ret_n = 0;
        *ret = calloc(json_object_size(o) + 1, sizeof(**ret));
        if (!*ret)
                return -ENOMEM;
        json_object_foreach((json_t *)o, name, v)
        {
                struct episode_counts *c = &(*ret)[n++];

                c->name = name;
                c->evaluations = int_at(v, "evaluations");
                c->memo_hits = int_at(v, "memo_hits");
                c->wins = int_at(v, "wins");
                c->tried = int_at(v, "tried");
                c->failed = int_at(v, "failed");
                c->won = int_at(v, "won");
                c->apply_errors = int_at(v, "apply_errors");
                c->has_apply_errors = json_is_integer(json_object_get(v, "apply_errors"));
        }
        *ret_n = n;
        return 0;
}

static int read_genes(const json_t *genes, struct episode_summary *s)
{
        const json_t *g;
        size_t i;

        s->genes = calloc(json_array_size(genes) + 1, sizeof(*s->genes));
        if (!s->genes)
                return -ENOMEM;
        json_array_foreach(genes, i, g)
        {
                s->genes[i] = (struct episode_gene){
                        .file = str_at(g, "file"),
                        .name = str_at(g, "name"),
                        .line = int_at(g, "line"),
                        .value = int_at(g, "value"),
                        .lo = int_at(g, "lo"),
                        .hi = int_at(g, "hi"),
                        .marked = json_is_true(json_object_get(g, "marked")),
                };
        }
        s->n_genes = json_array_size(genes);
        return 0;
}

static int read_rows(const json_t *trajectory, struct episode_summary *s)
{
        const json_t *row;
        size_t i;

        s->rows = calloc(json_array_size(trajectory) + 1, sizeof(*s->rows));
        if (!s->rows)
                return -ENOMEM;
        json_array_foreach(trajectory, i, row)
        {
                const json_t *stage = json_object_get(row, "stage");

                s->rows[i] = (struct episode_row){
                        .evaluation = int_at(row, "evaluation"),
                        .stage = json_is_number(stage) ? (int)int_at(row, "stage") : 1,
                        .technique = str_at(row, "technique"),
                        .motif = str_at(row, "motif"),
                        .entry = str_at(row, "entry"),
                        .source = str_at(row, "source"),
                        .identity = str_at(row, "identity"),
                        .status = str_at(row, "status"),
                        .moves = str_at(row, "moves"),
                        .dtype_regression =
                            str_at(json_object_get(row, "dtype_regression"), "dtypes"),
                        .llm_note = str_at(row, "llm_note"),
                        .latency_us = num_at(row, "latency_us"),
                        .memo_hit = json_is_true(json_object_get(row, "memo_hit")),
                        .new_best = json_is_true(json_object_get(row, "new_best")),
                };
        }
        s->n_rows = json_array_size(trajectory);
        return 0;
}

static const json_t *array_at(const json_t *o, const char *key)
{
        const json_t *a = json_object_get(o, key);

        return json_is_array(a) ? a : NULL;
}

static void read_dtypes(const json_t *d, struct episode_dtypes *ret)
{
        *ret = (struct episode_dtypes){ .present = json_is_object(d) };
        ret->manifest = str_at(d, "manifest");
        ret->checked = array_at(d, "checked");
        ret->not_checkable = array_at(d, "not_checkable");
        ret->baseline_fails = array_at(d, "baseline_fails");
}

int episode_summary_read(const json_t *record, struct episode_summary *ret)
{
        struct episode_summary *s = ret;
        const json_t *error;
        int r;

        *s = (struct episode_summary){ 0 };
        if (!json_is_object(record))
                return -EINVAL;
        s->record = json_incref((json_t *)record);
        s->id = str_at(record, "id");
        s->operator_name = str_at(record, "operator");
        s->dir = str_at(record, "dir");
        s->strategy = str_at(record, "strategy");
        s->state = str_at(record, "state");
        error = json_object_get(record, "error");
        if (json_is_string(error)) {
                s->error_message = json_string_value(error);
        } else if (error) {
                s->error_kind = str_at(error, "kind");
                s->error_message = str_at(error, "message");
        }
        s->stop_reason = str_at(record, "stop_reason");
        s->seed = int_at(record, "seed");
        s->budget = int_at(record, "budget");
        s->evaluations = int_at(record, "evaluations");
        s->memo_hits = int_at(record, "memo_hits");
        s->confirmations = int_at(record, "confirmations");
        s->slow = int_at(record, "slow");
        s->remeasured = int_at(record, "remeasured");
        s->has_slow_or_remeasured =
            json_object_get(record, "slow") || json_object_get(record, "remeasured");
        s->run_timeouts = int_at(record, "run_timeouts");
        s->trajectory_dropped = int_at(record, "trajectory_dropped");
        s->started = int_at(record, "started");
        s->finished = json_object_get(record, "finished") ? int_at(record, "finished")
                                                          : int_at(record, "updated");
        s->llm_record = json_object_get(record, "llm");
        episode_llm_usage_read(s->llm_record, &s->llm);
        if (json_is_integer(json_object_get(record, "llm_tokens"))) {
                s->llm_tokens = int_at(record, "llm_tokens");
                s->has_llm_tokens = true;
        } else if (json_is_integer(json_object_get(s->llm_record, "total_tokens"))) {
                s->llm_tokens = s->llm.total_tokens;
                s->has_llm_tokens = true;
        }
        read_point(json_object_get(record, "baseline"), &s->baseline);
        read_point(json_object_get(record, "best"), &s->best);
        s->failures = json_object_get(record, "failures");
        if (!json_is_object(s->failures))
                s->failures = NULL;
        s->learned = json_object_get(record, "learned");
        if (!json_is_array(s->learned))
                s->learned = NULL;
        read_dtypes(json_object_get(record, "dtypes"), &s->dtypes);
        r = read_counts(json_object_get(record, "stages"), &s->stages, &s->n_stages);
        if (r == 0)
                r = read_counts(json_object_get(record, "motifs"), &s->motifs, &s->n_motifs);
        if (r == 0)
                r = read_genes(json_object_get(record, "genes"), s);
        if (r == 0)
                r = read_rows(json_object_get(record, "trajectory"), s);
        return r;
}

void episode_summary_release(struct episode_summary *s)
{
        if (!s)
                return;
        free(s->stages);
        free(s->motifs);
        free(s->genes);
        free(s->rows);
        json_decref(s->record);
        *s = (struct episode_summary){ 0 };
}

bool episode_record_done(const json_t *record)
{
        return strcmp(str_at(record, "state") ?: "", "done") == 0;
}

const struct episode_counts *episode_summary_stage(const struct episode_summary *s, int stage)
{
        const char *name = stage == 1 ? "stage1" : "stage2";

        for (size_t i = 0; i < s->n_stages; i++)
                if (strcmp(s->stages[i].name, name) == 0)
                        return &s->stages[i];
        return NULL;
}
