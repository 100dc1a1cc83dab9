/* SPDX-License-Identifier: MIT */
/*
 * The episode state machine for Stage I (and its Best-of-N opponent):
 * baseline, then propose / evaluate / confirm / record until the budget is
 * spent, persisting the record after every evaluation so that a restart
 * resumes mid-search and re-evaluations are memo hits.
 */
#include "optimizer.h"

#include "common/common.h"
#include "npu/npu.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONFIRM_SEED_OFFSET  1000003
#define MAX_FILES_WITH_GENES 16

enum phase {
        PHASE_BASELINE,
        PHASE_CONFIRM_BASELINE, /* the reference outputs for the confirmation seed */
        PHASE_SEARCH,
        PHASE_CONFIRM,
        PHASE_DONE,
};

struct episode {
        struct npu_evaluator *evaluator;
        struct store *store;
        struct npu_manifest *manifest;
        struct episode_options options;
        char *id;
        char *context;
        episode_progress_fn progress;
        episode_done_fn done;
        void *userdata;

        struct gene *genes;
        size_t n_genes;
        struct search *search;
        /* texts of the files that hold genes, to rewrite per genome */
        char *gene_files[MAX_FILES_WITH_GENES];
        char *gene_texts[MAX_FILES_WITH_GENES];
        size_t n_gene_files;

        enum phase phase;
        bool cancelled;
        bool stopping;
        struct npu_evaluation *in_flight;
        json_t *record;
        json_t *baseline;         /* kept reference result */
        json_t *confirm_baseline; /* the reference at the confirmation seed */
        int64_t pending[GENES_MAX];
        enum search_technique pending_technique;
        json_t *pending_result; /* awaiting confirmation */
        char *override_texts[MAX_FILES_WITH_GENES];
        struct npu_override overrides[MAX_FILES_WITH_GENES];
        size_t n_overrides;
};

static const char *const strategy_names[] = { [EPISODE_STAGE1] = "stage1", [EPISODE_BON] = "bon" };

const char *episode_strategy_name(enum episode_strategy s)
{
        return (size_t)s < ARRAY_SIZE(strategy_names) ? strategy_names[s] : "?";
}

int episode_strategy_from_name(const char *name, enum episode_strategy *ret)
{
        for (size_t i = 0; i < ARRAY_SIZE(strategy_names); i++) {
                if (name && strcmp(strategy_names[i], name) == 0) {
                        *ret = (enum episode_strategy)i;
                        return 0;
                }
        }
        return -EINVAL;
}

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

static void free_overrides(struct episode *ep)
{
        for (size_t i = 0; i < ep->n_overrides; i++)
                free(ep->override_texts[i]);
        ep->n_overrides = 0;
}

static void episode_free(struct episode *ep)
{
        if (!ep)
                return;
        free_overrides(ep);
        for (size_t i = 0; i < ep->n_gene_files; i++) {
                free(ep->gene_files[i]);
                free(ep->gene_texts[i]);
        }
        if (ep->baseline)
                rm_rf(json_string_value(json_object_get(ep->baseline, "scratch_dir")));
        if (ep->confirm_baseline)
                rm_rf(json_string_value(json_object_get(ep->confirm_baseline, "scratch_dir")));
        json_decref(ep->baseline);
        json_decref(ep->confirm_baseline);
        json_decref(ep->pending_result);
        json_decref(ep->record);
        search_free(ep->search);
        free(ep->genes);
        npu_manifest_free(ep->manifest);
        free(ep->id);
        free(ep);
}

/* Writes the record, search state included, in one synced batch. */
static int persist(struct episode *ep)
{
        struct store_batch *b = store_batch_new(ep->store);
        char key[512];
        int r;

        if (!b)
                return -ENOMEM;
        json_object_set_new(ep->record, "search", search_to_json(ep->search));
        json_object_set_new(ep->record, "updated", json_integer((json_int_t)time(NULL)));
        episode_key(key, sizeof(key), ep->id);
        r = store_batch_put_json(b, STORE_EPISODES, key, ep->record);
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        return r;
}

static void finish(struct episode *ep, const char *state, const char *error_kind,
                   const char *message)
{
        json_t *record;

        ep->phase = PHASE_DONE;
        json_object_set_new(ep->record, "state", json_string(state));
        if (message)
                json_object_set_new(
                    ep->record, "error",
                    json_pack("{s:s, s:s}", "kind", error_kind, "message", message));
        json_object_set_new(ep->record, "finished", json_integer((json_int_t)time(NULL)));
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the episode's end");
        record = json_incref(ep->record);
        ep->done(record, ep->userdata);
        episode_free(ep);
}

static int counter(struct episode *ep, const char *name)
{
        return (int)json_integer_value(json_object_get(ep->record, name));
}

static void bump(struct episode *ep, const char *name)
{
        json_object_set_new(ep->record, name, json_integer(counter(ep, name) + 1));
}

static void report(struct episode *ep, const char *what, const json_t *result, bool new_best)
{
        double best = 0;
        struct episode_progress p = {
                .used = counter(ep, "evaluations"),
                .budget = ep->options.budget,
                .memo_hits = counter(ep, "memo_hits"),
                .what = what,
                .status = json_string_value(json_object_get(result, "status")),
                .latency_us = json_number_value(json_object_get(result, "latency_us")),
                .new_best = new_best,
        };

        search_best(ep->search, &best);
        p.best_us = best;
        if (ep->progress)
                ep->progress(&p, ep->userdata);
}

/* ------------------------------------------------------------ genomes */

/* Overrides for a genome: each file holding genes, rewritten. */
static int build_overrides(struct episode *ep, const int64_t *values)
{
        free_overrides(ep);
        for (size_t f = 0; f < ep->n_gene_files; f++) {
                char *text = NULL;
                int r = genes_apply(ep->gene_files[f], ep->gene_texts[f], strlen(ep->gene_texts[f]),
                                    ep->genes, values, ep->n_genes, &text);
                if (r < 0)
                        return r;
                ep->override_texts[ep->n_overrides] = text;
                ep->overrides[ep->n_overrides].path = ep->gene_files[f];
                ep->overrides[ep->n_overrides].text = text;
                ep->n_overrides++;
        }
        return 0;
}

static int load_gene_files(struct episode *ep)
{
        for (size_t g = 0; g < ep->n_genes; g++) {
                bool known = false;
                char path[PATH_MAX];
                FILE *f;
                long size;
                for (size_t i = 0; i < ep->n_gene_files && !known; i++)
                        known = strcmp(ep->gene_files[i], ep->genes[g].file) == 0;
                if (known)
                        continue;
                if (ep->n_gene_files == MAX_FILES_WITH_GENES)
                        return -E2BIG;
                if (format_path(path, sizeof(path), "%s/%s", ep->manifest->dir, ep->genes[g].file) <
                    0)
                        return -ENAMETOOLONG;
                f = fopen(path, "re");
                if (!f)
                        return -errno;
                fseek(f, 0, SEEK_END);
                size = ftell(f);
                fseek(f, 0, SEEK_SET);
                ep->gene_texts[ep->n_gene_files] = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
                ep->gene_files[ep->n_gene_files] = strdup(ep->genes[g].file);
                if (!ep->gene_texts[ep->n_gene_files] || !ep->gene_files[ep->n_gene_files] ||
                    fread(ep->gene_texts[ep->n_gene_files], 1, (size_t)size, f) != (size_t)size) {
                        fclose(f);
                        free(ep->gene_texts[ep->n_gene_files]);
                        free(ep->gene_files[ep->n_gene_files]);
                        return -EIO;
                }
                fclose(f);
                ep->n_gene_files++;
        }
        return 0;
}

static json_t *genome_json(const struct episode *ep, const int64_t *values)
{
        json_t *genome = json_object();

        for (size_t g = 0; g < ep->n_genes; g++) {
                char key[300];
                snprintf(key, sizeof(key), "%s:%u:%s", ep->genes[g].file, ep->genes[g].line,
                         ep->genes[g].name);
                json_object_set_new(genome, key, json_integer(values[g]));
        }
        return genome;
}

/* ------------------------------------------------------------ steps */

static void on_evaluated(json_t *result, bool memo_hit, void *userdata);

static int evaluate(struct episode *ep, uint64_t seed, const json_t *reference, bool keep,
                    bool bypass_memo, bool with_overrides)
{
        struct npu_request req = {
                .manifest = ep->manifest,
                .overrides = with_overrides ? ep->overrides : NULL,
                .n_overrides = with_overrides ? ep->n_overrides : 0,
                .seed = seed,
                .reference = reference,
                .keep_outputs = keep,
                .bypass_memo = bypass_memo,
        };

        return npu_evaluate(ep->evaluator, &req, on_evaluated, ep, &ep->in_flight);
}

static void next_candidate(struct episode *ep)
{
        int r;

        if (counter(ep, "evaluations") >= ep->options.budget) {
                finish(ep, "done", NULL, NULL);
                return;
        }
        r = search_propose(ep->search, ep->pending, &ep->pending_technique);
        if (r == -ENOSPC) {
                log_msg(LOG_INFO, ep->options.log_context,
                        "the tiling space is exhausted after %d evaluations",
                        counter(ep, "evaluations"));
                finish(ep, "done", NULL, NULL);
                return;
        }
        if (r == 0)
                r = build_overrides(ep, ep->pending);
        if (r == 0) {
                ep->phase = PHASE_SEARCH;
                r = evaluate(ep, ep->options.seed, ep->baseline, false, false, true);
        }
        if (r < 0)
                finish(ep, "failed", "infra_error", strerror(-r));
}

static const char *failure_kind(const json_t *result)
{
        const char *kind =
            json_string_value(json_object_get(json_object_get(result, "error"), "kind"));
        return kind ? kind : json_string_value(json_object_get(result, "status"));
}

/* Records a finished candidate in the search, the trajectory and the store. */
static void record_candidate(struct episode *ep, const json_t *result, bool memo_hit,
                             bool confirmed_ok)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        bool ok = status && strcmp(status, "ok") == 0 && confirmed_ok;
        double latency = json_number_value(json_object_get(result, "latency_us"));
        bool new_best;
        json_t *failures = json_object_get(ep->record, "failures");

        new_best = search_record(
            ep->search, ep->pending, ep->pending_technique, ok, latency,
            ok ? NULL : (confirmed_ok ? failure_kind(result) : "wrong_answer_on_second_seed"));
        if (!ok) {
                const char *kind = confirmed_ok ? failure_kind(result) : "wrong_answer";
                json_object_set_new(
                    failures, kind,
                    json_integer(json_integer_value(json_object_get(failures, kind)) + 1));
        }
        if (memo_hit)
                bump(ep, "memo_hits");
        else
                bump(ep, "evaluations");
        json_array_append_new(json_object_get(ep->record, "trajectory"),
                              json_pack("{s:i, s:s, s:s, s:s, s:f, s:b, s:b, s:o}", "evaluation",
                                        counter(ep, "evaluations"), "technique",
                                        search_technique_name(ep->pending_technique), "identity",
                                        json_string_value(json_object_get(result, "identity")),
                                        "status", ok ? "ok" : failure_kind(result), "latency_us",
                                        ok ? latency : 0.0, "memo_hit", memo_hit, "new_best",
                                        new_best, "genome", genome_json(ep, ep->pending)));
        if (new_best)
                json_object_set_new(
                    ep->record, "best",
                    json_pack("{s:s, s:f, s:o, s:O}", "identity",
                              json_string_value(json_object_get(result, "identity")), "latency_us",
                              latency, "genome", genome_json(ep, ep->pending), "files",
                              json_object_get(result, "files")));
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record evaluation %d; the episode goes on",
                        counter(ep, "evaluations"));
        report(ep, search_technique_name(ep->pending_technique), result, new_best);
}

static void on_baseline(struct episode *ep, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        double latency = json_number_value(json_object_get(result, "latency_us"));
        int64_t values[GENES_MAX];
        char message[2048];

        if (!status || strcmp(status, "ok") != 0) {
                const json_t *error = json_object_get(result, "error");
                snprintf(message, sizeof(message),
                         "the baseline itself fails: %s: %s (use --permissive RULE for code "
                         "that relies on hardware leniency)",
                         failure_kind(result),
                         json_string_value(json_object_get(error, "message"))
                             ? json_string_value(json_object_get(error, "message"))
                             : "no message");
                json_decref(result);
                finish(ep, "failed", "baseline", message);
                return;
        }
        if (latency <= 0) {
                json_decref(result);
                finish(ep, "failed", "infra_error",
                       "the backend reported no latency for the baseline, so there is nothing "
                       "to optimize against");
                return;
        }
        ep->baseline = result;
        json_object_set_new(ep->record, "baseline",
                            json_pack("{s:s, s:f, s:O, s:O}", "identity",
                                      json_string_value(json_object_get(result, "identity")),
                                      "latency_us", latency, "roofline_us",
                                      json_object_get(result, "roofline_us")
                                          ? json_object_get(result, "roofline_us")
                                          : json_null(),
                                      "files", json_object_get(result, "files")));
        /* a resumed search already holds the baseline */
        if (!search_best(ep->search, NULL)) {
                for (size_t g = 0; g < ep->n_genes; g++)
                        values[g] = ep->genes[g].value;
                search_record(ep->search, values, TECHNIQUE_COUNT, true, latency, NULL);
        }
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the baseline");
        report(ep, "baseline", result, false);
        next_candidate(ep);
}

static void on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        struct episode *ep = userdata;
        const char *status = json_string_value(json_object_get(result, "status"));
        double best = 0;

        ep->in_flight = NULL;
        if (ep->stopping) {
                json_t *record = json_incref(ep->record);
                json_decref(result);
                json_object_set_new(record, "state", json_string("stopped"));
                ep->phase = PHASE_DONE;
                ep->done(record, ep->userdata);
                episode_free(ep);
                return;
        }
        if (ep->cancelled && ep->phase != PHASE_DONE) {
                json_decref(result);
                finish(ep, "cancelled", "cancelled", "cancelled by request");
                return;
        }
        switch (ep->phase) {
        case PHASE_BASELINE:
                on_baseline(ep, result);
                return;
        case PHASE_SEARCH:
                search_best(ep->search, &best);
                /* a new best made here must hold on a second seed before it counts */
                if (!memo_hit && status && strcmp(status, "ok") == 0 &&
                    json_number_value(json_object_get(result, "latency_us")) < best) {
                        ep->pending_result = result;
                        if (!ep->confirm_baseline) {
                                ep->phase = PHASE_CONFIRM_BASELINE;
                                if (evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET, NULL, true,
                                             true, false) < 0)
                                        finish(ep, "failed", "infra_error",
                                               "cannot start the confirmation baseline");
                                return;
                        }
                        ep->phase = PHASE_CONFIRM;
                        if (evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET,
                                     ep->confirm_baseline, false, true, true) < 0)
                                finish(ep, "failed", "infra_error", "cannot start a confirmation");
                        return;
                }
                if (status && strcmp(status, "infra_error") == 0) {
                        /* says nothing about the candidate and costs no budget */
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "infrastructure error, candidate skipped: %s",
                                json_string_value(
                                    json_object_get(json_object_get(result, "error"), "message")));
                        json_decref(result);
                        next_candidate(ep);
                        return;
                }
                record_candidate(ep, result, memo_hit, true);
                json_decref(result);
                next_candidate(ep);
                return;
        case PHASE_CONFIRM_BASELINE:
                if (!status || strcmp(status, "ok") != 0) {
                        json_decref(result);
                        finish(ep, "failed", "baseline",
                               "the baseline fails on the confirmation seed");
                        return;
                }
                ep->confirm_baseline = result;
                ep->phase = PHASE_CONFIRM;
                if (evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET, ep->confirm_baseline,
                             false, true, true) < 0)
                        finish(ep, "failed", "infra_error", "cannot start a confirmation");
                return;
        case PHASE_CONFIRM: {
                json_t *first = ep->pending_result;
                bool confirmed = status && strcmp(status, "ok") == 0;
                ep->pending_result = NULL;
                bump(ep, "confirmations");
                record_candidate(ep, first, false, confirmed);
                json_decref(first);
                json_decref(result);
                next_candidate(ep);
                return;
        }
        case PHASE_DONE:
                json_decref(result);
                return;
        }
}

void episode_cancel(struct episode *ep)
{
        if (ep)
                ep->cancelled = true;
}

void episode_stop(struct episode *ep)
{
        if (!ep)
                return;
        ep->stopping = true;
        npu_evaluation_cancel(ep->in_flight);
}

int episode_start(struct npu_evaluator *evaluator, struct store *store, const char *opdir,
                  const struct episode_options *options, episode_progress_fn progress,
                  episode_done_fn done, void *userdata, struct episode **ret_episode, char *err,
                  size_t err_size)
{
        struct search_options search_options = { 0 };
        struct episode *ep;
        json_t *old = NULL, *genes;
        int r;

        if (!evaluator || !store || !opdir || !options || !options->id || !done)
                return -EINVAL;
        ep = calloc(1, sizeof(*ep));
        if (!ep)
                return -ENOMEM;
        ep->evaluator = evaluator;
        ep->store = store;
        ep->options = *options;
        if (ep->options.budget <= 0)
                ep->options.budget = 40;
        ep->progress = progress;
        ep->done = done;
        ep->userdata = userdata;
        ep->id = strdup(options->id);
        if (!ep->id) {
                r = -ENOMEM;
                goto fail;
        }
        r = npu_manifest_load(opdir, &ep->manifest, err, err_size);
        if (r < 0)
                goto fail;
        r = genes_find(ep->manifest->dir, &ep->genes, &ep->n_genes, err, err_size);
        if (r < 0)
                goto fail;
        if (ep->n_genes == 0) {
                snprintf(err, err_size,
                         "%s: no tunable literal found in op_host/; mark knobs with a comment "
                         "// @tune lo..hi on their line",
                         ep->manifest->dir);
                r = -ENOENT;
                goto fail;
        }
        r = load_gene_files(ep);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot read the files holding genes: %s",
                         ep->manifest->dir, strerror(-r));
                goto fail;
        }
        search_options.seed = options->seed;
        search_options.random_only = options->strategy == EPISODE_BON;
        r = search_new(ep->genes, ep->n_genes, &search_options, &ep->search);
        if (r < 0)
                goto fail;

        genes = json_array();
        for (size_t g = 0; g < ep->n_genes; g++)
                json_array_append_new(
                    genes,
                    json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:b}", "file", ep->genes[g].file,
                              "line", ep->genes[g].line, "name", ep->genes[g].name, "value",
                              (json_int_t)ep->genes[g].value, "lo", (json_int_t)ep->genes[g].lo,
                              "hi", (json_int_t)ep->genes[g].hi, "marked", ep->genes[g].marked));
        if (episode_load(store, ep->id, &old) == 0 &&
            strcmp(json_string_value(json_object_get(old, "state")) ?: "", "running") == 0 &&
            search_from_json(ep->search, json_object_get(old, "search")) == 0) {
                ep->record = old;
                json_object_set_new(ep->record, "genes", genes);
                json_object_set_new(
                    ep->record, "resumed",
                    json_integer(json_integer_value(json_object_get(old, "resumed")) + 1));
                log_msg(LOG_NOTICE, options->log_context, "resuming after %d evaluations",
                        counter(ep, "evaluations"));
        } else {
                json_decref(old);
                ep->record = json_pack(
                    "{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:o, s:i, s:i, s:i, s:o, s:o, s:I}", "id",
                    ep->id, "operator", ep->manifest->name, "dir", ep->manifest->dir, "strategy",
                    episode_strategy_name(options->strategy), "seed", (json_int_t)options->seed,
                    "budget", ep->options.budget, "state", "running", "genes", genes, "evaluations",
                    0, "memo_hits", 0, "confirmations", 0, "failures", json_object(), "trajectory",
                    json_array(), "started", (json_int_t)time(NULL));
        }
        if (!ep->record) {
                r = -ENOMEM;
                goto fail;
        }
        json_object_set_new(ep->record, "context", json_string(npu_evaluator_context(evaluator)));
        ep->phase = PHASE_BASELINE;
        r = evaluate(ep, options->seed, NULL, true, true, false);
        if (r < 0) {
                snprintf(err, err_size, "cannot start the baseline: %s", strerror(-r));
                goto fail;
        }
        if (ret_episode)
                *ret_episode = ep;
        return 0;
fail:
        episode_free(ep);
        return r;
}
