/* SPDX-License-Identifier: MIT */
/*
 * An episode's optional LLM: when to ask it, the prompt's variables, the
 * answer built before it is measured, its record; and dense retrieval of
 * experience entries through the embedding endpoint.  Without a client
 * none of this runs and the rule-based operators propose every step.
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

/* ------------------------------------------------------------ the LLM */

json_t *episode_llm_record(struct episode *ep)
{
        json_t *l = json_object_get(ep->record, "llm");

        if (!l) {
                l = json_pack("{s:s?, s:[], s:i, s:i, s:i, s:i, s:i, s:{}}", "model", ep->llm_model,
                              "calls", "requests", 0, "total_tokens", 0, "proposals", 0,
                              "evaluated", 0, "won", 0, "discarded");
                if (json_object_set_new(ep->record, "llm", l) < 0) {
                        log_msg(LOG_ERR, ep->options.log_context,
                                "cannot record the LLM's calls (out of memory)");
                        return NULL;
                }
        }
        return l;
}

static void llm_add(struct episode *ep, const char *name, json_int_t n)
{
        json_counter_add(episode_llm_record(ep), name, n);
}

/* The record of the last call, where its verdict goes. */
static json_t *llm_last_call(struct episode *ep)
{
        json_t *calls = json_object_get(episode_llm_record(ep), "calls");
        size_t n = json_array_size(calls);

        return n ? json_array_get(calls, n - 1) : NULL;
}

/* The LLM is left alone for the rest of the episode, and the record says why. */
static void llm_turn_off(struct episode *ep, const char *why)
{
        json_object_set_new(episode_llm_record(ep), "off", json_string(why));
        log_msg(LOG_NOTICE, ep->options.log_context, "rules only from now on: %s", why);
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The op_host source holding the tiling function: the one that names TilingContext. */
static struct op_file *tiling_file(struct episode *ep)
{
        struct op_file *fallback = NULL;

        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->is_source || strncmp(f->path, "op_host/", 8) != 0 ||
                    !(has_suffix(f->path, ".cpp") || has_suffix(f->path, ".cc")))
                        continue;
                if (strstr(f->best, "TilingContext"))
                        return f;
                if (!fallback && f->gene_base)
                        fallback = f;
        }
        return fallback;
}

static struct op_file *kernel_file(struct episode *ep)
{
        return episode_file_named(ep, ep->manifest->kernel_source);
}

/* Whether this step asks the LLM; Stage I's clock ticks once per step. */
bool episode_llm_wanted(struct episode *ep, int stage)
{
        json_t *l;
        const char *best, *refined;

        if (!ep->llm.client || ep->llm_skip_once)
                return false;
        l = episode_llm_record(ep);
        if (json_object_get(l, "off"))
                return false;
        if (stage == 1) {
                json_int_t clock = json_integer_value(json_object_get(l, "stage1_clock"));
                int every = ep->llm.stage1_every > 0 ? ep->llm.stage1_every : 3;
                json_object_set_new(l, "stage1_clock", json_integer(clock + 1));
                return tiling_file(ep) && clock % every == 0;
        }
        /* Stage II: the refiner once per best pair */
        best = json_string_value(json_object_get(episode_best_summary(ep), "identity"));
        refined = json_string_value(json_object_get(l, "refined_for"));
        return kernel_file(ep) && best && (!refined || strcmp(refined, best) != 0);
}

/* The op_host headers (the tiling data), as the prompts show them. */
static char *tiling_data_text(struct episode *ep)
{
        size_t len = 0;
        char *text = calloc(1, LLM_TILING_DATA_MAX + 1);

        for (size_t i = 0; text && i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                int n;
                if (!f->is_source || strncmp(f->path, "op_host/", 8) != 0 ||
                    !has_suffix(f->path, ".h"))
                        continue;
                n = snprintf(text + len, LLM_TILING_DATA_MAX + 1 - len, "// %s\n%s\n", f->path,
                             f->best);
                len = n < 0 ? len : len + (size_t)n;
                if (len >= LLM_TILING_DATA_MAX) {
                        len = LLM_TILING_DATA_MAX;
                        break;
                }
        }
        return text;
}

/* The experience entries the refiner is given: the bank's best matches for the signature. */
static json_t *refiner_entries(struct episode *ep, const char *signature)
{
        size_t k = ep->options.top_k > 0 ? (size_t)ep->options.top_k : 5, i;
        json_t *found = NULL, *kept = json_array(), *e;

        if (kept && episode_dense_for_best(ep))
                found = json_incref((json_t *)episode_dense_for_best(ep));
        else if (!kept || !signature ||
                 experience_retrieve(ep->store, signature, 3 * k, &found) < 0)
                return kept;
        json_array_foreach(found, i, e)
        {
                const char *op = json_string_value(json_object_get(e, "operator"));
                if (json_array_size(kept) >= k)
                        break;
                if (ep->options.leave_one_out && op && strcmp(op, ep->manifest->name) == 0)
                        continue;
                json_array_append(kept, e);
        }
        json_decref(found);
        return kept;
}

/* The template fields of a step's prompt. */
static json_t *llm_prompt_vars(struct episode *ep, int stage)
{
        char *facts = npu_evaluator_platform_facts(ep->evaluator);
        char *tiling_data = tiling_data_text(ep);
        const json_t *best = episode_best_summary(ep);
        double best_us = json_number_value(json_object_get(best, "latency_us"));
        json_t *vars =
            json_pack("{s:s, s:s, s:s, s:s}", "operator", ep->manifest->name, "platform",
                      npu_evaluator_platform(ep->evaluator), "platform_facts",
                      facts ? facts : "(unknown)", "tiling_data", tiling_data ? tiling_data : "");

        free(facts);
        free(tiling_data);
        if (!vars)
                return NULL;
        if (stage == 1) {
                const struct op_file *f = tiling_file(ep);
                json_object_set_new(vars, "tiling_file", json_string(f->path));
                json_object_set_new(vars, "tiling_source", json_string(f->best));
                char *recent = prompts_recent_results(json_object_get(ep->record, "trajectory"),
                                                      LLM_RECENT_ROWS);
                json_object_set_new(vars, "recent_results", json_string(recent ? recent : ""));
                free(recent);
                json_object_set_new(vars, "best_latency_us", json_real(best_us));
        } else {
                const struct op_file *f = kernel_file(ep);
                const char *signature = json_string_value(json_object_get(best, "bottleneck"));
                json_t *result = NULL, *entries = refiner_entries(ep, signature), *e;
                const char *identity = json_string_value(json_object_get(best, "identity"));
                char *profile, *experiences = prompts_experiences(entries);
                size_t i;

                if (identity)
                        store_candidate_get(ep->store, identity, &result);
                profile = prompts_profile_summary(result);
                json_object_set_new(vars, "kernel_file", json_string(f->path));
                json_object_set_new(vars, "kernel", json_string(f->best));
                json_object_set_new(vars, "bottleneck_signature",
                                    json_string(signature ? signature : "(unknown)"));
                json_object_set_new(vars, "profile_summary", json_string(profile ? profile : ""));
                json_object_set_new(vars, "latency_us", json_real(best_us));
                json_object_set_new(vars, "experiences",
                                    json_string(experiences ? experiences : ""));
                json_decref(ep->llm_entries);
                ep->llm_entries = json_array();
                json_array_foreach(entries, i, e)
                    json_array_append(ep->llm_entries, json_object_get(e, "id"));
                free(profile);
                free(experiences);
                json_decref(entries);
                json_decref(result);
        }
        return vars;
}

static void on_llm_answer(struct llm_call *call, const struct llm_result *result, void *userdata);

/* Asks the LLM for this step's candidate; -errno when no call was made (rules go on). */
int episode_llm_propose(struct episode *ep, int stage)
{
        char err[512] = "", *system = NULL, *user = NULL;
        json_t *vars;
        int r;

        episode_clear_candidate(ep);
        vars = llm_prompt_vars(ep, stage);
        if (!vars)
                return -ENOMEM;
        r = prompts_render(ep->llm_prompts_dir,
                           stage == 1 ? "stage1_mutation.txt" : "stage2_refine.txt", vars, &system,
                           &user, err, sizeof(err));
        json_decref(vars);
        if (r < 0) {
                llm_turn_off(ep, err);
                return r;
        }
        {
                const struct llm_message messages[] = { { "system", system }, { "user", user } };
                r = llm_chat(ep->llm.client, messages, 2, ep->llm_budget, on_llm_answer, ep,
                             &ep->llm_call);
        }
        free(system);
        free(user);
        if (r < 0) {
                log_msg(LOG_WARNING, ep->options.log_context, "cannot ask the LLM: %s",
                        strerror(-r));
                return r;
        }
        if (stage == 2)
                json_object_set(episode_llm_record(ep), "refined_for",
                                json_object_get(episode_best_summary(ep), "identity"));
        llm_add(ep, "requests", 1);
        ep->pending_stage = stage;
        ep->phase = PHASE_LLM;
        return 0;
}

/* The LLM's step came to nothing: say why, and let the rules propose instead. */
static void llm_discard(struct episode *ep, const char *verdict, const char *message)
{
        json_t *call = llm_last_call(ep);
        json_t *discarded = json_object_get(episode_llm_record(ep), "discarded");

        if (call) {
                json_object_set_new(call, "verdict", json_string(verdict));
                if (message && *message)
                        json_object_set_new(call, "message", json_string(message));
        }
        json_counter_add(discarded, verdict, 1);
        log_msg(LOG_INFO, ep->options.log_context, "LLM %s answer discarded (%s)%s%.300s",
                ep->pending_stage == 1 ? "tiling" : "kernel", verdict,
                message && *message ? ": " : "", message ? message : "");
        episode_clear_candidate(ep);
        ep->llm_skip_once = true;
        ep->phase = PHASE_SEARCH;
        if (episode_persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the LLM's step: %s",
                        store_last_error(ep->store));
        episode_next_candidate(ep);
}

/* The process is stopping: the record stays "running" so the episode resumes. */
void episode_deliver_stopped(struct episode *ep)
{
        json_t *record = json_incref(ep->record);

        json_object_set_new(record, "state", json_string("stopped"));
        ep->phase = PHASE_DONE;
        ep->done(record, ep->userdata);
        episode_free(ep);
}

static int evaluate_build_only(struct episode *ep)
{
        struct npu_request req = {
                .manifest = ep->manifest,
                .overrides = ep->overrides,
                .n_overrides = ep->n_overrides,
                .seed = ep->options.seed,
                .build_only = true,
        };

        return npu_evaluate(ep->evaluator, &req, episode_on_evaluated, ep, &ep->in_flight);
}

/*
 * A call came back: its record and tokens.  True when the episode ended
 * instead (stopping or cancelled), and the caller must return at once.
 */
static bool llm_call_returned(struct episode *ep, const struct llm_result *result,
                              const char *purpose)
{
        json_t *calls = json_object_get(episode_llm_record(ep), "calls");

        ep->llm_call = NULL;
        llm_add(ep, "total_tokens", result->tokens_charged);
        if (json_array_size(calls) >= LLM_CALLS_RECORDED)
                json_array_remove(calls, 0);
        if (json_array_append_new(
                calls,
                json_pack("{s:i, s:s, s:s, s:s, s:I, s:b, s:f, s:i, s:i}", "stage",
                          ep->pending_stage, "purpose", purpose, "prompt_sha256",
                          result->prompt_sha256, "outcome", llm_outcome_name(result->outcome),
                          "tokens", (json_int_t)result->tokens_charged, "tokens_estimated",
                          result->usage_estimated, "latency_s", result->latency_s, "attempts",
                          result->attempts, "at_evaluation", episode_counter(ep, "evaluations"))) <
            0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the LLM call (out of memory): %s", purpose);
        return episode_interrupted(ep);
}

static void on_llm_answer(struct llm_call *call, const struct llm_result *result, void *userdata)
{
        struct episode *ep = userdata;
        int stage = ep->pending_stage;
        struct op_file *target = stage == 1 ? tiling_file(ep) : kernel_file(ep);
        const char *verdict = NULL;
        char *code = NULL, why[256] = "";
        int r;

        (void)call;
        if (llm_call_returned(ep, result, stage == 1 ? "tiling_mutation" : "kernel_refinement"))
                return;
        switch (result->outcome) {
        case LLM_OK:
                ep->llm_failures = 0;
                r = llm_extract_code_block(result->content, "cpp", &code);
                if (r == -ENOENT)
                        verdict = "no_code_block";
                else if (r == -EBADMSG)
                        verdict = "unterminated_code_block";
                else if (r < 0)
                        verdict = "unreadable_answer";
                else if (!target)
                        verdict = "nothing_to_rewrite";
                else if (strcmp(code, target->best) == 0)
                        verdict = "unchanged";
                break;
        case LLM_BUDGET_EXHAUSTED:
                verdict = "budget_exhausted";
                llm_turn_off(ep, "the episode's LLM token budget is spent");
                break;
        case LLM_TRUNCATED:
                verdict = "truncated";
                break;
        case LLM_MALFORMED:
                verdict = "malformed";
                break;
        case LLM_CANCELLED:
                verdict = "cancelled";
                break;
        case LLM_HTTP_ERROR:
        case LLM_TIMEOUT:
        case LLM_UNREACHABLE:
                verdict = llm_outcome_name(result->outcome);
                if (++ep->llm_failures >= LLM_MAX_FAILURES) {
                        snprintf(why, sizeof(why),
                                 "the LLM endpoint failed %d calls in a row (last: %.150s)",
                                 ep->llm_failures, result->error ? result->error : verdict);
                        llm_turn_off(ep, why);
                }
                break;
        }
        if (verdict) {
                free(code);
                llm_discard(ep, verdict, result->error);
                return;
        }
        /* an answer: built before it is measured, so that one that does not compile costs nothing */
        free(target->cand);
        target->cand = code;
        ep->llm_note = prompts_answer_note(result->content);
        ep->pending_llm = true;
        ep->pending_rewrite = true;
        memcpy(ep->pending, ep->best_values, ep->n_genes * sizeof(*ep->pending));
        if (stage == 2) {
                ep->pending_action =
                    json_pack("{s:s, s:n, s:i, s:s, s:o}", "motif", "llm_refine", "entry", "site",
                              -1, "source", "llm", "entries",
                              ep->llm_entries ? json_incref(ep->llm_entries) : json_array());
                if (!ep->pending_action) {
                        llm_discard(ep, "out_of_memory", "its stage II action cannot be built");
                        return;
                }
        }
        llm_add(ep, "proposals", 1);
        if (episode_changes_frozen(ep, why, sizeof(why))) {
                llm_discard(ep, "changes_a_frozen_literal", why);
                return;
        }
        episode_build_overrides(ep);
        ep->phase = PHASE_LLM_BUILD;
        r = evaluate_build_only(ep);
        if (r < 0)
                llm_discard(ep, "build_not_started", strerror(-r));
}

/* The LLM's answer was built: measure it as a candidate, or discard it. */
void episode_on_llm_built(struct episode *ep, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        const char *message =
            json_string_value(json_object_get(json_object_get(result, "error"), "message"));

        if (!status || strcmp(status, "ok") != 0) {
                char verdict[64];
                char *copy = message ? strdup(message) : NULL;
                snprintf(verdict, sizeof(verdict), "%s",
                         status && strcmp(status, "compile_error") == 0
                             ? "does_not_compile"
                             : (status ? status : "unknown"));
                json_decref(result);
                llm_discard(ep, verdict, copy);
                free(copy);
                return;
        }
        json_decref(result);
        json_object_set_new(llm_last_call(ep), "verdict", json_string("built"));
        ep->phase = PHASE_SEARCH;
        if (episode_evaluate(ep, ep->options.seed, ep->baseline, false, false, true) < 0)
                episode_finish(ep, "failed", "infra_error", "cannot start the LLM's candidate");
}

/* An LLM candidate was measured: its trajectory step, the counters and the entries' credit. */
void episode_llm_recorded(struct episode *ep, json_t *step, bool ok, bool new_best)
{
        json_t *call = llm_last_call(ep), *id;
        size_t i;

        json_object_set_new(step, "source", json_string("llm"));
        if (ep->llm_note)
                json_object_set_new(step, "llm_note", json_string(ep->llm_note));
        if (ep->llm_entries && ep->pending_stage == 2)
                json_object_set(step, "entries", ep->llm_entries);
        llm_add(ep, "evaluated", 1);
        if (new_best)
                llm_add(ep, "won", 1);
        if (call)
                json_object_set_new(call, "verdict",
                                    json_string(new_best ? "new_best"
                                                : ok     ? "not_faster"
                                                         : "failed"));
        if (ep->pending_stage == 2 && !ep->options.frozen_bank)
                json_array_foreach(
                    ep->llm_entries, i,
                    id) if (experience_credit(ep->store, json_string_value(id), new_best) < 0)
                    log_msg(LOG_WARNING, ep->options.log_context,
                            "cannot credit experience entry %.12s", json_string_value(id));
}

/* ------------------------------------------------------------ dense retrieval */

/* Whether Stage II should embed before it retrieves for the current best. */
bool episode_embed_wanted(struct episode *ep)
{
        const json_t *best = episode_best_summary(ep);
        const char *identity = json_string_value(json_object_get(best, "identity"));

        if (!ep->llm.client || !ep->llm.embedding_model || !episode_uses_stage2(ep) ||
            json_object_get(episode_llm_record(ep), "embeddings_off"))
                return false;
        return identity && json_string_value(json_object_get(best, "bottleneck")) &&
               (!ep->dense_for || strcmp(ep->dense_for, identity) != 0);
}

static void embeddings_off(struct episode *ep, const char *why)
{
        json_object_set_new(episode_llm_record(ep), "embeddings_off", json_string(why));
        log_msg(LOG_NOTICE, ep->options.log_context, "BM25 retrieval from now on: %s", why);
}

static void on_embedded(struct llm_call *call, const struct llm_result *result, void *userdata);

/*
 * Embeds, for the current best: first the bank's entries that have no
 * embedding by this model yet (up to EMBED_ENTRIES_PER_CALL), then the
 * best's bottleneck signature, which becomes the dense query.
 */
int episode_embed_start(struct episode *ep, bool query)
{
        const char *signature =
            json_string_value(json_object_get(episode_best_summary(ep), "bottleneck"));
        char *texts[EMBED_ENTRIES_PER_CALL];
        json_t *entries = NULL, *e;
        size_t n = 0, i;
        int r;

        json_decref(ep->embed_ids);
        ep->embed_ids = json_array();
        if (!ep->embed_ids)
                return -ENOMEM;
        if (!query && experience_list(ep->store, &entries) == 0)
                json_array_foreach(entries, i, e)
                {
                        const char *model =
                            json_string_value(json_object_get(e, "embedding_model"));
                        if (n == EMBED_ENTRIES_PER_CALL)
                                break;
                        if (model && strcmp(model, ep->llm.embedding_model) == 0 &&
                            json_object_get(e, "embedding"))
                                continue;
                        texts[n] = experience_embedding_text(e);
                        if (!texts[n])
                                continue;
                        json_array_append(ep->embed_ids, json_object_get(e, "id"));
                        n++;
                }
        json_decref(entries);
        ep->embed_query = n == 0;
        if (n == 0) {
                texts[0] = strdup(signature ? signature : "");
                if (!texts[0])
                        return -ENOMEM;
                n = 1;
        }
        r = llm_embed(ep->llm.client, (const char *const *)texts, n, ep->llm_budget, on_embedded,
                      ep, &ep->llm_call);
        for (i = 0; i < n; i++)
                free(texts[i]);
        if (r < 0) {
                embeddings_off(ep, "the embedding call could not be made");
                return r;
        }
        llm_add(ep, "requests", 1);
        ep->pending_stage = 2;
        ep->phase = PHASE_LLM;
        return 0;
}

/* The dense ranking for the current best, leave-one-out applied. */
static void dense_retrieve(struct episode *ep, const float *query, size_t dim)
{
        size_t k = ep->options.top_k > 0 ? (size_t)ep->options.top_k : 5;
        const char *identity =
            json_string_value(json_object_get(episode_best_summary(ep), "identity"));
        json_t *found = NULL;

        if (experience_retrieve_dense(ep->store, query, dim, ep->llm.embedding_model, 3 * k,
                                      &found) < 0) {
                embeddings_off(ep, "dense retrieval failed");
                return;
        }
        for (size_t i = json_array_size(found); ep->options.leave_one_out && i-- > 0;) {
                const char *op =
                    json_string_value(json_object_get(json_array_get(found, i), "operator"));
                if (op && strcmp(op, ep->manifest->name) == 0)
                        json_array_remove(found, i);
        }
        llm_add(ep, "dense_retrievals", 1);
        json_decref(ep->dense);
        ep->dense = found;
        free(ep->dense_for);
        ep->dense_for = identity ? strdup(identity) : NULL;
}

static void on_embedded(struct llm_call *call, const struct llm_result *result, void *userdata)
{
        struct episode *ep = userdata;

        (void)call;
        if (llm_call_returned(ep, result, ep->embed_query ? "embed_query" : "embed_entries"))
                return;
        if (result->outcome != LLM_OK) {
                char why[300];
                snprintf(why, sizeof(why), "the embedding endpoint: %s%s%.200s",
                         llm_outcome_name(result->outcome), result->error ? ": " : "",
                         result->error ? result->error : "");
                embeddings_off(ep, why);
        } else if (!ep->embed_query) {
                const char *ids[EMBED_ENTRIES_PER_CALL];
                size_t n = json_array_size(ep->embed_ids);
                for (size_t i = 0; i < n; i++)
                        ids[i] = json_string_value(json_array_get(ep->embed_ids, i));
                if (result->n_vectors != n ||
                    experience_set_embeddings(ep->store, ids, result->vectors, n, result->dim,
                                              ep->llm.embedding_model) < 0)
                        embeddings_off(ep, "cannot store the entries' embeddings");
                else if (episode_embed_start(ep, true) == 0)
                        return;
        } else {
                dense_retrieve(ep, result->vectors, result->dim);
        }
        ep->phase = PHASE_SEARCH;
        episode_next_candidate(ep);
}
