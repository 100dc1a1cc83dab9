/* SPDX-License-Identifier: MIT */
/*
 * The episode's phase machine: baseline, then propose / evaluate / confirm
 * / record until the budget is spent, with Stage I (tiling genes), Stage II
 * (motif rewrites of the kernel, guided by the experience bank) or the
 * paper's alternation of the two, each stage starting from the best pair
 * the other left.  The record is persisted after every evaluation
 * (episode-record.c) so that a restart resumes mid-search and
 * re-evaluations are memo hits.
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

static const char *const strategy_names[] = {
        [EPISODE_STAGE1] = "stage1", [EPISODE_BON] = "bon",
        [EPISODE_STAGE2] = "stage2", [EPISODE_FULL] = "full",
        [EPISODE_EVOLVE] = "evolve", [EPISODE_STAGE2_RANDOM] = "stage2-random",
};

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

void episode_clear_candidate(struct episode *ep)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                free(ep->files[i].cand);
                ep->files[i].cand = NULL;
        }
        ep->n_overrides = 0;
        json_decref(ep->pending_action);
        ep->pending_action = NULL;
        ep->pending_llm = false;
        ep->pending_rewrite = false;
        ep->pending_move[0] = '\0';
        free(ep->llm_note);
        ep->llm_note = NULL;
        json_decref(ep->llm_entries);
        ep->llm_entries = NULL;
}

void episode_free(struct episode *ep)
{
        if (!ep)
                return;
        if (ep->wall_timer)
                event_free(ep->wall_timer);
        episode_dtypes_free(ep);
        episode_clear_candidate(ep);
        for (size_t i = 0; i < ep->n_files; i++) {
                free(ep->files[i].path);
                free(ep->files[i].disk);
                free(ep->files[i].best);
                free(ep->files[i].gene_base);
                free(ep->files[i].copied_from);
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
        gene_literals_release(&ep->literals);
        free(ep->located);
        free(ep->lost);
        free(ep->inert);
        free(ep->apply_genes);
        free(ep->apply_values);
        npu_manifest_free(ep->manifest);
        llm_budget_free(ep->llm_budget);
        json_decref(ep->dense);
        json_decref(ep->embed_ids);
        free(ep->dense_for);
        free(ep->llm_embedding_model);
        free(ep->llm_prompts_dir);
        free(ep->llm_model);
        free(ep->id);
        free(ep->log_context);
        free(ep);
}

void episode_finish(struct episode *ep, const char *state, const char *error_kind,
                    const char *message)
{
        json_t *record;

        ep->phase = PHASE_DONE;
        json_object_set_new(ep->record, "state", json_string(state));
        if (message && json_object_set_new(
                           ep->record, "error",
                           json_pack("{s:s, s:s}", "kind", error_kind, "message", message)) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the episode's error (out of memory): %s: %s", error_kind,
                        message);
        json_object_set_new(ep->record, "finished", json_integer((json_int_t)time(NULL)));
        if (episode_persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the episode's end (it resumes at the next start): %s",
                        store_last_error(ep->store));
        record = json_incref(ep->record);
        ep->done(record, ep->userdata);
        episode_free(ep);
}

/* ------------------------------------------------------------ the schedule */

static int steps_of(const struct episode *ep, int stage)
{
        int steps = stage == 1 ? ep->options.stage1_steps : ep->options.stage2_steps;

        return steps > 0 ? steps : DEFAULT_STEPS;
}

/* The alternation's state in the record, made on first use; NULL when out of memory. */
static json_t *schedule(struct episode *ep)
{
        json_t *s = json_object_get(ep->record, "schedule");

        if (!s) {
                int first = ep->options.first_stage == 2 ? 2 : 1;
                s = json_pack("{s:i, s:i, s:i}", "stage", first, "left", steps_of(ep, first),
                              "round", 0);
                if (json_object_set_new(ep->record, "schedule", s) < 0) {
                        log_msg(LOG_ERR, ep->options.log_context,
                                "cannot record the alternation (out of memory): stage 1 goes on");
                        return NULL;
                }
        }
        return s;
}

/* Hands the turn to the other stage (the alternation's switch). */
static void switch_stage(struct episode *ep)
{
        json_t *s = schedule(ep);
        int stage = (int)json_integer_value(json_object_get(s, "stage"));
        int next = stage == 1 ? 2 : 1;

        json_object_set_new(s, "stage", json_integer(next));
        json_object_set_new(s, "left", json_integer(steps_of(ep, next)));
        json_object_set_new(s, "dry", json_integer(0));
        if (next == 1)
                json_object_set_new(
                    s, "round", json_integer(json_integer_value(json_object_get(s, "round")) + 1));
}

/*
 * A counted evaluation of the alternation: one step of the stage's turn.
 * With turn_patience, "dry" counts the turn's evaluations since its last
 * new best, and the turn also ends when that reaches the patience.  A draw
 * of Stage I's first population does not count as dry: the seeding is
 * judged as a whole, not by its first few draws.  On the corpus (budget
 * 20, seed 1) a patience of 3 cut Stage I's first turn after three draws
 * that missed, before the draw that found cast's and axpy's tiling (their
 * 6th evaluation with fixed turns).
 */
static void schedule_step(struct episode *ep, bool new_best, bool first_population)
{
        json_t *s;
        json_int_t left, dry;

        if (ep->options.strategy != EPISODE_FULL)
                return;
        s = schedule(ep);
        left = json_integer_value(json_object_get(s, "left")) - 1;
        dry = new_best ? 0 : json_integer_value(json_object_get(s, "dry")) + !first_population;
        json_object_set_new(s, "left", json_integer(left));
        json_object_set_new(s, "dry", json_integer(dry));
        if (left <= 0 || (ep->options.turn_patience > 0 && dry >= ep->options.turn_patience))
                switch_stage(ep);
}

/* Which stage proposes next. */
static int choose_stage(struct episode *ep)
{
        switch (ep->options.strategy) {
        case EPISODE_STAGE1:
        case EPISODE_BON:
                return 1;
        case EPISODE_STAGE2:
        case EPISODE_STAGE2_RANDOM:
                return 2;
        case EPISODE_FULL: {
                const json_t *s = schedule(ep);
                return s ? (int)json_integer_value(json_object_get(s, "stage")) : 1;
        }
        case EPISODE_EVOLVE:
                return stage2_random(&ep->rng) & 1 ? 2 : 1;
        }
        return 1;
}

/* ------------------------------------------------------------ steps */

/* Where a search candidate is stopped as slow: k times the best, with a floor; 0: never. */
static double slow_limit(struct episode *ep)
{
        double best = 0;
        double k = ep->options.slow_factor ? ep->options.slow_factor : EPISODE_SLOW_FACTOR;

        if (k < 0 || !search_best(ep->search, &best) || best <= 0)
                return 0;
        return best * k > best + EPISODE_SLOW_FLOOR_US ? best * k : best + EPISODE_SLOW_FLOOR_US;
}

int episode_evaluate(struct episode *ep, uint64_t seed, const json_t *reference, bool keep,
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
                .device = ep->options.device,
                .slow_after_us = ep->phase == PHASE_SEARCH ? slow_limit(ep) : 0,
                /* a search candidate whose launch was measured before costs nothing */
                .launch_memo = ep->phase == PHASE_SEARCH && !bypass_memo && with_overrides,
        };

        return npu_evaluate(ep->evaluator, &req, episode_on_evaluated, ep, &ep->in_flight);
}

/* Seconds of the wall-clock budget left (counted from the first start); +inf without one. */
static double wall_seconds_left(const struct episode *ep)
{
        json_int_t started = json_integer_value(json_object_get(ep->record, "started"));

        if (ep->options.wall_budget_s <= 0)
                return INFINITY;
        return ep->options.wall_budget_s - difftime(time(NULL), (time_t)started);
}

/*
 * Ends an episode whose wall-clock budget ran out: whatever was in flight
 * is dropped, and the best so far stands, with the reason in the record.
 */
void episode_finish_out_of_time(struct episode *ep)
{
        char why[256];

        snprintf(why, sizeof(why),
                 "the wall-clock budget (episode.wall_budget_s = %.0f s) ran out after %d of %d "
                 "evaluations",
                 ep->options.wall_budget_s, episode_counter(ep, "evaluations"), ep->options.budget);
        log_msg(LOG_NOTICE, ep->options.log_context, "%s", why);
        json_decref(ep->pending_result);
        ep->pending_result = NULL;
        episode_clear_candidate(ep);
        json_object_set_new(ep->record, "stop_reason", json_string(why));
        /* a resumed episode re-measures its baseline but already has a best */
        if (ep->phase == PHASE_BASELINE && !json_object_get(ep->record, "best"))
                episode_finish(ep, "failed", "wall_budget", why);
        else
                episode_finish(ep, "done", NULL, NULL);
}

static void on_wall_budget(evutil_socket_t fd, short what, void *userdata)
{
        struct episode *ep = userdata;

        ep->out_of_time = true;
        if (ep->in_flight)
                npu_job_cancel(ep->in_flight); /* on_evaluated finishes it */
        else if (ep->llm_call)
                llm_call_cancel(ep->llm_call); /* its callback finishes it */
        else if (episode_dtypes_cancel(ep))
                ; /* its callback finishes it */
        else if (ep->phase != PHASE_DONE)
                episode_finish_out_of_time(ep);
}

/* Arms the wall-clock timer; without a loop the budget is checked between evaluations. */
static int arm_wall_budget(struct episode *ep)
{
        double left = wall_seconds_left(ep);
        struct timeval tv;

        if (!ep->options.base || isinf(left))
                return 0;
        ep->wall_timer = evtimer_new(ep->options.base, on_wall_budget, ep);
        if (!ep->wall_timer)
                return -ENOMEM;
        if (left < 0)
                left = 0;
        tv.tv_sec = (time_t)left;
        tv.tv_usec = (suseconds_t)((left - (double)tv.tv_sec) * 1e6);
        return evtimer_add(ep->wall_timer, &tv) < 0 ? -ENOMEM : 0;
}

void episode_next_candidate(struct episode *ep)
{
        bool exhausted[3] = { false, false, false };
        int r = 0;

        for (;;) {
                int stage;
                if (ep->out_of_time || wall_seconds_left(ep) <= 0) {
                        episode_finish_out_of_time(ep);
                        return;
                }
                if (episode_counter(ep, "evaluations") >= ep->options.budget ||
                    (ep->replay_rows && json_array_size(json_object_get(
                                            ep->record, "trajectory")) >= ep->replay_rows)) {
                        episode_finish(ep, "done", NULL, NULL);
                        return;
                }
                stage = choose_stage(ep);
                if (exhausted[stage])
                        stage = stage == 1 ? 2 : 1;
                /* a stage that only finds what was measured before is spent for now */
                bool repeating = !ep->replay_rows && !exhausted[stage] &&
                                 ep->launch_hits_in_row[stage] >= EPISODE_LAUNCH_HITS_IN_ROW;
                if (repeating) {
                        r = -ENOSPC;
                } else {
                        if (stage == 2 && !exhausted[2] && episode_embed_wanted(ep) &&
                            episode_embed_start(ep, false) == 0)
                                return;
                        if (!exhausted[stage] && episode_llm_wanted(ep, stage) &&
                            episode_llm_propose(ep, stage) == 0)
                                return;
                        ep->llm_skip_once = false;
                        r = stage == 2 ? episode_propose_stage2(ep) : episode_propose_stage1(ep);
                }
                if (r != -ENOSPC)
                        break;
                exhausted[stage] = true;
                /* said once per best, not again each time the turn comes back to it */
                double best_us = 0;
                search_best(ep->search, &best_us);
                if (ep->exhausted_said[stage] != best_us) {
                        char why[1024] = "Stage I has nothing left to try (the tiling space is "
                                         "exhausted)";
                        ep->exhausted_said[stage] = best_us;
                        if (repeating)
                                snprintf(why, sizeof(why),
                                         "Stage %s is spent for now: its last %d candidates "
                                         "were served from the memo (the same kernel on a "
                                         "launch measured before)",
                                         stage == 1 ? "I" : "II", ep->launch_hits_in_row[stage]);
                        else if (stage == 2)
                                episode_stage2_spent(ep, why, sizeof(why));
                        log_msg(LOG_INFO, ep->options.log_context, "%s after %d evaluations", why,
                                episode_counter(ep, "evaluations"));
                }
                if (exhausted[1] && exhausted[2]) {
                        episode_finish(ep, "done", NULL, NULL);
                        return;
                }
                if ((stage == 1 && !episode_uses_stage2(ep)) ||
                    (stage == 2 && !episode_uses_stage1(ep))) {
                        episode_finish(ep, "done", NULL, NULL);
                        return;
                }
                if (ep->options.strategy == EPISODE_FULL)
                        switch_stage(ep);
        }
        if (r == 0) {
                ep->phase = PHASE_SEARCH;
                r = episode_evaluate(ep, ep->options.seed, ep->baseline, false, false, true);
        }
        if (r < 0)
                episode_finish(ep, "failed", "infra_error", strerror(-r));
}

bool episode_interrupted(struct episode *ep)
{
        if (ep->stopping) {
                episode_deliver_stopped(ep);
                return true;
        }
        if (ep->cancelled) {
                episode_finish(ep, "cancelled", "cancelled", "cancelled by request");
                return true;
        }
        if (ep->out_of_time) {
                episode_finish_out_of_time(ep);
                return true;
        }
        return false;
}

static const char *failure_kind(const json_t *result)
{
        const char *kind =
            json_string_value(json_object_get(json_object_get(result, "error"), "kind"));
        return kind ? kind : json_string_value(json_object_get(result, "status"));
}

static const char *pending_what(const struct episode *ep)
{
        if (ep->pending_stage == 1 && ep->pending_llm)
                return "llm_tiling";
        if (ep->pending_stage == 2)
                return json_string_value(json_object_get(ep->pending_action, "motif"));
        return search_technique_name(ep->pending_technique);
}

/*
 * Records a finished candidate in the search, the trajectory and the store;
 * false when that ended the episode (a new best it could not record).
 */
static bool record_candidate(struct episode *ep, const json_t *result, bool memo_hit,
                             bool confirmed_ok)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        bool ok = status && strcmp(status, "ok") == 0 && confirmed_ok;
        double latency = json_number_value(json_object_get(result, "latency_us"));
        double best_before = 0;
        const char *what = pending_what(ep);
        const char *kind = ok ? NULL : (confirmed_ok ? failure_kind(result) : "wrong_answer");
        /* asked before the record, which makes the draw one of the population */
        bool first_draw = ep->pending_stage == 1 && !ep->pending_rewrite && !ep->pending_llm &&
                          search_drawing_first_population(ep->search);
        bool new_best;
        json_t *failures = json_object_get(ep->record, "failures"), *step;

        search_best(ep->search, &best_before);
        if (ep->pending_stage == 1 && !ep->pending_rewrite) {
                const char *why =
                    ok ? NULL
                       : (confirmed_ok ? failure_kind(result) : "wrong_answer_on_second_seed");
                new_best =
                    search_record(ep->search, ep->pending, ep->pending_technique, ok, latency, why);
        } else {
                new_best = ok && latency < best_before;
        }
        if (!ok && strcmp(kind, "slow") == 0)
                episode_bump(ep, "slow"); /* stopped early: too slow to matter, not a failure */
        else if (!ok)
                json_counter_add(failures, kind, 1);
        if (memo_hit) {
                episode_bump(ep, "memo_hits");
                /* a candidate measured before as it is (an earlier episode's) costs no
                 * probe and does not count here; one its launch gave away does */
                if (json_is_true(json_object_get(result, "launch_probe"))) {
                        episode_bump(ep, "launch_memo_hits");
                        ep->launch_hits_in_row[ep->pending_stage == 2 ? 2 : 1]++;
                }
        } else {
                episode_bump(ep, "evaluations");
                schedule_step(ep, new_best, first_draw);
                ep->launch_hits_in_row[ep->pending_stage == 2 ? 2 : 1] = 0;
        }
        if (new_best)
                memset(ep->launch_hits_in_row, 0, sizeof(ep->launch_hits_in_row));
        episode_bump_in(ep, "stages", ep->pending_stage == 1 ? "stage1" : "stage2",
                        memo_hit ? "memo_hits" : "evaluations");
        if (new_best)
                episode_bump_in(ep, "stages", ep->pending_stage == 1 ? "stage1" : "stage2", "wins");
        step =
            json_pack("{s:i, s:i, s:s, s:s, s:s, s:f, s:b, s:b}", "evaluation",
                      episode_counter(ep, "evaluations"), "stage", ep->pending_stage, "technique",
                      what, "identity", json_string_value(json_object_get(result, "identity")),
                      "status", ok ? "ok" : kind, "latency_us", ok ? latency : 0.0, "memo_hit",
                      memo_hit, "new_best", new_best);
        if (ep->pending_stage == 2) {
                const char *entry = json_string_value(json_object_get(ep->pending_action, "entry"));
                json_object_set(step, "motif", json_object_get(ep->pending_action, "motif"));
                json_object_set(step, "entry", json_object_get(ep->pending_action, "entry"));
                json_object_set(step, "site", json_object_get(ep->pending_action, "site"));
                json_object_set(step, "source", json_object_get(ep->pending_action, "source"));
                episode_bump_in(ep, "motifs", what, "tried");
                if (!ok)
                        episode_bump_in(ep, "motifs", what, "failed");
                if (!ok && kind && strcmp(kind, "ub_overflow") == 0)
                        episode_bump_in(ep, "motifs", what, "overflowed");
                if (new_best)
                        episode_bump_in(ep, "motifs", what, "won");
                if (entry && !ep->options.frozen_bank &&
                    experience_credit(ep->store, entry, new_best) < 0)
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "cannot credit experience entry %.12s", entry);
                if (json_integer_value(json_object_get(ep->pending_action, "shrink")) > 0) {
                        json_object_set(step, "repair",
                                        json_object_get(ep->pending_action, "shrink"));
                        episode_bump_in(ep, "motifs", what, "overflow_repairs");
                        if (new_best) /* the shrunk tiling first, then the kernel rewrite */
                                episode_adopt_genome(ep, true);
                }
                if (new_best)
                        episode_accept_stage2(ep, latency);
                else if (kind && strcmp(kind, "ub_overflow") == 0)
                        episode_plan_overflow_repair(ep);
        } else if (new_best && ep->pending_rewrite) {
                episode_adopt_rewrite(ep, latency);
        } else if (new_best) {
                episode_adopt_genome(ep, false);
        }
        if (ep->pending_llm)
                episode_llm_recorded(ep, step, ok, new_best);
        if (json_object_get(result, "launch_of"))
                json_object_set(step, "launch_of", json_object_get(result, "launch_of"));
        if (json_object_get(result, "remeasured_us"))
                json_object_set(step, "remeasured_us", json_object_get(result, "remeasured_us"));
        if (json_object_get(result, "dtype_regression"))
                json_object_set(step, "dtype_regression",
                                json_object_get(result, "dtype_regression"));
        if (ep->pending_stage == 1 && !ep->pending_rewrite && ep->pending_move[0])
                json_object_set_new(step, "moves", json_string(ep->pending_move));
        json_object_set_new(step, "genome", episode_genome_json(ep, ep->pending));
        episode_note_constraints(ep);
        if (json_array_append_new(json_object_get(ep->record, "trajectory"), step) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record evaluation %d in the trajectory (out of memory)",
                        episode_counter(ep, "evaluations"));
        if (new_best) {
                /* O* leaves bottleneck and moves out when there are none */
                json_t *best = json_pack(
                    "{s:s, s:f, s:o, s:O, s:i, s:s, s:O*, s:O*}", "identity",
                    json_string_value(json_object_get(result, "identity")), "latency_us", latency,
                    "genome", episode_genome_json(ep, ep->best_values), "files",
                    json_object_get(result, "files"), "stage", ep->pending_stage, "technique", what,
                    "bottleneck", json_object_get(result, "bottleneck"), "moves",
                    json_object_get(step, "moves"));
                if (json_object_set_new(ep->record, "best", best) < 0) {
                        episode_finish(ep, "failed", "infra_error",
                                       "out of memory recording the new best");
                        return false;
                }
        }
        if (episode_persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record evaluation %d; the episode goes on: %s",
                        episode_counter(ep, "evaluations"), store_last_error(ep->store));
        episode_report_progress(ep, what, ep->pending_stage, result, new_best);
        episode_clear_candidate(ep);
        return true;
}

/* A result evaluated with its outputs kept that is not kept after all: its scratch goes too. */
static void discard_kept(json_t *result)
{
        const char *dir = json_string_value(json_object_get(result, "scratch_dir"));

        if (dir)
                rm_rf(dir);
        json_decref(result);
}

static void on_baseline(struct episode *ep, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        double latency = json_number_value(json_object_get(result, "latency_us"));
        char message[2048];
        json_t *summary;

        if (status && strcmp(status, "infra_error") == 0) {
                /* a busy device or a missing tool says nothing about the operator: the
                 * episode fails as infra_error, which the scheduler retries later */
                const json_t *error = json_object_get(result, "error");
                snprintf(message, sizeof(message), "the baseline could not be measured: %s",
                         json_string_value(json_object_get(error, "message"))
                             ? json_string_value(json_object_get(error, "message"))
                             : "no message");
                discard_kept(result);
                episode_finish(ep, "failed", "infra_error", message);
                return;
        }
        if (!status || strcmp(status, "ok") != 0) {
                const json_t *error = json_object_get(result, "error");
                const char *kind = failure_kind(result) ?: "failed";
                /* only the simulator's rules can be relaxed; a compiler's error, a
                 * crash, a failing tiling function or a wrong answer cannot */
                bool rule = strcmp(kind, "compile_error") != 0 && strcmp(kind, "timeout") != 0 &&
                            strcmp(kind, "infra_error") != 0 && strcmp(kind, "tiling_error") != 0 &&
                            strcmp(kind, "crash") != 0 && strcmp(kind, "wrong_answer") != 0;
                snprintf(message, sizeof(message), "the baseline itself fails: %s: %s%s", kind,
                         json_string_value(json_object_get(error, "message"))
                             ? json_string_value(json_object_get(error, "message"))
                             : "no message",
                         rule ? " (use --permissive RULE for code that relies on hardware "
                                "leniency)"
                              : "");
                discard_kept(result);
                episode_finish(ep, "failed", "baseline", message);
                return;
        }
        if (latency <= 0) {
                discard_kept(result);
                episode_finish(
                    ep, "failed", "infra_error",
                    "the backend reported no latency for the baseline, so there is nothing "
                    "to optimize against");
                return;
        }
        ep->baseline = result;
        /* O* leaves bottleneck out when there is none */
        summary = json_pack("{s:s, s:f, s:O, s:O, s:O*}", "identity",
                            json_string_value(json_object_get(result, "identity")), "latency_us",
                            latency, "roofline_us",
                            json_object_get(result, "roofline_us")
                                ? json_object_get(result, "roofline_us")
                                : json_null(),
                            "files", json_object_get(result, "files"), "bottleneck",
                            json_object_get(result, "bottleneck"));
        if (json_object_set_new(ep->record, "baseline", summary) < 0) {
                episode_finish(ep, "failed", "infra_error", "out of memory recording the baseline");
                return;
        }
        /* a resumed search already holds the baseline */
        if (!search_best(ep->search, NULL))
                search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, latency, NULL);
        if (episode_persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the baseline: %s",
                        store_last_error(ep->store));
        episode_report_progress(ep, "baseline", 0, result, false);
        episode_coverage_start(ep); /* then the dtype gate's setup, then the search */
}

/*
 * The noise policy's second half: a new best that beats the old one by
 * less than the margin counts with the slower of its two measurements (the
 * first and the confirmation's), so a noisy "improvement" that does not
 * hold is not accepted.
 */
double episode_noise_latency(double first_us, double again_us, double best_us, double margin_pct)
{
        if (first_us <= 0 || again_us <= 0 || best_us <= 0 ||
            first_us < best_us * (1 - margin_pct / 100))
                return first_us;
        return again_us > first_us ? again_us : first_us;
}

static void remeasure_if_close(struct episode *ep, json_t *first, const json_t *again)
{
        double margin = ep->options.noise_margin_pct > 0 ? ep->options.noise_margin_pct
                                                         : EPISODE_NOISE_MARGIN_PCT;
        double best = 0, a = json_number_value(json_object_get(first, "latency_us"));
        double b = json_number_value(json_object_get(again, "latency_us"));

        if (!search_best(ep->search, &best) || a <= 0 || b <= 0 || a < best * (1 - margin / 100))
                return; /* a clear win, or nothing to compare */
        json_object_set_new(first, "remeasured_us", json_real(b));
        json_object_set_new(first, "latency_us",
                            json_real(episode_noise_latency(a, b, best, margin)));
        episode_bump(ep, "remeasured");
}

void episode_record_checked(struct episode *ep, json_t *result, bool memo_hit)
{
        bool going = record_candidate(ep, result, memo_hit, true);

        json_decref(result);
        if (going)
                episode_next_candidate(ep);
}

void episode_on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        struct episode *ep = userdata;
        const char *status = json_string_value(json_object_get(result, "status"));
        double best = 0;
        bool going;

        ep->in_flight = NULL;
        if (ep->stopping) {
                json_decref(result);
                episode_deliver_stopped(ep);
                return;
        }
        if (ep->cancelled && ep->phase != PHASE_DONE) {
                json_decref(result);
                episode_finish(ep, "cancelled", "cancelled", "cancelled by request");
                return;
        }
        if (ep->out_of_time && ep->phase != PHASE_DONE) {
                json_decref(result);
                episode_finish_out_of_time(ep);
                return;
        }
        /* the daemon health-probes a device whose run timed out */
        if (!memo_hit && status && strcmp(status, "timeout") == 0)
                episode_bump(ep, "run_timeouts");
        switch (ep->phase) {
        case PHASE_BASELINE:
                on_baseline(ep, result);
                return;
        case PHASE_SEARCH:
                search_best(ep->search, &best);
                /* a new best made here must hold on a second seed before it counts; one
                 * served for its launch too (the measured twin may have failed its own) */
                if ((!memo_hit || json_object_get(result, "launch_of")) && status &&
                    strcmp(status, "ok") == 0 &&
                    json_number_value(json_object_get(result, "latency_us")) < best) {
                        ep->pending_result = result;
                        if (!ep->confirm_baseline) {
                                ep->phase = PHASE_CONFIRM_BASELINE;
                                if (episode_evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET,
                                                     NULL, true, true, false) < 0)
                                        episode_finish(ep, "failed", "infra_error",
                                                       "cannot start the confirmation baseline");
                                return;
                        }
                        ep->phase = PHASE_CONFIRM;
                        if (episode_evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET,
                                             ep->confirm_baseline, false, true, true) < 0)
                                episode_finish(ep, "failed", "infra_error",
                                               "cannot start a confirmation");
                        return;
                }
                /* a memo hit is not confirmed again, but the dtype gate holds for it too */
                if (memo_hit && status && strcmp(status, "ok") == 0 &&
                    json_number_value(json_object_get(result, "latency_us")) < best &&
                    episode_dtypes_gate(ep, result, true))
                        return;
                if (status && strcmp(status, "infra_error") == 0) {
                        /* says nothing about the candidate and costs no budget */
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "infrastructure error, candidate skipped: %s",
                                json_string_value(
                                    json_object_get(json_object_get(result, "error"), "message")));
                        json_decref(result);
                        episode_clear_candidate(ep);
                        episode_next_candidate(ep);
                        return;
                }
                going = record_candidate(ep, result, memo_hit, true);
                json_decref(result);
                if (going)
                        episode_next_candidate(ep);
                return;
        case PHASE_CONFIRM_BASELINE:
                if (!status || strcmp(status, "ok") != 0) {
                        json_decref(result);
                        episode_finish(ep, "failed", "baseline",
                                       "the baseline fails on the confirmation seed");
                        return;
                }
                ep->confirm_baseline = result;
                ep->phase = PHASE_CONFIRM;
                if (episode_evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET,
                                     ep->confirm_baseline, false, true, true) < 0)
                        episode_finish(ep, "failed", "infra_error", "cannot start a confirmation");
                return;
        case PHASE_CONFIRM: {
                json_t *first = ep->pending_result;
                bool confirmed = status && strcmp(status, "ok") == 0;
                ep->pending_result = NULL;
                episode_bump(ep, "confirmations");
                if (confirmed)
                        remeasure_if_close(ep, first, result);
                search_best(ep->search, &best);
                if (confirmed && json_number_value(json_object_get(first, "latency_us")) < best &&
                    episode_dtypes_gate(ep, first, false)) {
                        json_decref(result);
                        return;
                }
                going = record_candidate(ep, first, false, confirmed);
                json_decref(first);
                json_decref(result);
                if (going)
                        episode_next_candidate(ep);
                return;
        }
        case PHASE_LLM_BUILD:
                episode_on_llm_built(ep, result);
                return;
        case PHASE_DTYPES:
        case PHASE_GATE:
                episode_dtypes_on_evaluated(ep, result, memo_hit);
                return;
        case PHASE_COVERAGE:
                episode_on_coverage(ep, result);
                return;
        case PHASE_LLM:
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
        npu_job_cancel(ep->in_flight);
        episode_dtypes_cancel(ep);
        if (ep->llm_call)
                llm_call_cancel(ep->llm_call);
}

int episode_start(struct npu_evaluator *evaluator, struct store *store, const char *opdir,
                  const struct episode_options *options, episode_progress_fn progress,
                  episode_done_fn done, void *userdata, struct episode **ret_episode, char *err,
                  size_t err_size)
{
        struct search_options search_options = { 0 };
        struct episode *ep;
        json_t *old = NULL;
        int r;

        if (!evaluator || !store || !opdir || !options || !options->id || !done)
                return -EINVAL;
        if ((size_t)options->strategy >= ARRAY_SIZE(strategy_names))
                return -EINVAL;
        ep = calloc(1, sizeof(*ep));
        if (!ep)
                return -ENOMEM;
        ep->evaluator = evaluator;
        ep->store = store;
        ep->options = *options;
        if (ep->options.budget <= 0)
                ep->options.budget = 40;
        if (ep->options.strategy == EPISODE_FULL && ep->options.rounds > 0 &&
            ep->options.budget > ep->options.rounds * (steps_of(ep, 1) + steps_of(ep, 2)))
                ep->options.budget = ep->options.rounds * (steps_of(ep, 1) + steps_of(ep, 2));
        ep->progress = progress;
        ep->done = done;
        ep->userdata = userdata;
        ep->rng = options->seed ^ 0x5eed5eed5eed5eedull;
        ep->id = strdup(options->id);
        ep->options.llm = NULL;
        if (options->llm && options->llm->client) {
                ep->llm = *options->llm;
                ep->llm_prompts_dir =
                    options->llm->prompts_dir ? strdup(options->llm->prompts_dir) : NULL;
                ep->llm_model = options->llm->model ? strdup(options->llm->model) : NULL;
                ep->llm_embedding_model =
                    options->llm->embedding_model ? strdup(options->llm->embedding_model) : NULL;
                ep->llm.prompts_dir = ep->llm_prompts_dir;
                ep->llm.model = ep->llm_model;
                ep->llm.embedding_model = ep->llm_embedding_model;
        }
        /* the caller's string may live on its stack: every later log line needs it */
        ep->log_context = options->log_context ? strdup(options->log_context) : NULL;
        ep->options.log_context = ep->log_context;
        if (!ep->id || (options->log_context && !ep->log_context)) {
                r = -ENOMEM;
                goto fail;
        }
        r = npu_manifest_load(opdir, &ep->manifest, err, err_size);
        if (r < 0)
                goto fail;
        r = genes_scan(ep->manifest->dir, &ep->genes, &ep->n_genes, &ep->literals, err, err_size);
        if (r < 0)
                goto fail;
        r = episode_load_files(ep);
        if (r == 0)
                r = episode_add_move_genes(ep);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot read the operator's sources: %s",
                         ep->manifest->dir, strerror(-r));
                goto fail;
        }
        if (ep->n_genes > GENES_MAX) {
                snprintf(err, err_size, "%s: more than %d genes", ep->manifest->dir, GENES_MAX);
                r = -E2BIG;
                goto fail;
        }
        ep->located = calloc(ep->n_genes + 1, sizeof(*ep->located));
        ep->apply_genes = calloc(ep->n_genes + 1, sizeof(*ep->apply_genes));
        ep->apply_values = calloc(ep->n_genes + 1, sizeof(*ep->apply_values));
        ep->lost = calloc(ep->n_genes + 1, sizeof(*ep->lost));
        if (!ep->located || !ep->apply_genes || !ep->apply_values || !ep->lost) {
                r = -ENOMEM;
                goto fail;
        }
        if (ep->n_genes)
                memcpy(ep->located, ep->genes, ep->n_genes * sizeof(*ep->genes));
        for (size_t g = 0; g < ep->n_genes; g++)
                ep->best_values[g] = ep->genes[g].value;
        /* without genes (move genes included), Stage I and Best-of-N have nothing to search */
        if (ep->n_genes == 0 && !episode_uses_stage2(ep)) {
                snprintf(err, err_size,
                         "%s: no tunable literal found in op_host/ and no structural tiling "
                         "move applies; mark knobs with a comment // @tune lo..hi on their line",
                         ep->manifest->dir);
                r = -ENOENT;
                goto fail;
        }
        search_options.seed = options->seed;
        search_options.random_only = options->strategy == EPISODE_BON;
        episode_shape_facts(ep->manifest, &search_options);
        ep->search_options = search_options;
        r = search_new(ep->genes, ep->n_genes, &search_options, &ep->search);
        if (r < 0)
                goto fail;

        if (episode_load(store, ep->id, &old) == 0 && episode_resume(ep, old)) {
                ep->record = old;
                if (json_object_set_new(ep->record, "genes", episode_genes_json(ep)) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
                json_object_set_new(
                    ep->record, "resumed",
                    json_integer(json_integer_value(json_object_get(old, "resumed")) + 1));
                log_msg(LOG_NOTICE, options->log_context, "resuming after %d evaluations",
                        episode_counter(ep, "evaluations"));
        } else {
                /* the same episode finished before: replay it from the memo */
                if (old &&
                    strcmp(json_string_value(json_object_get(old, "state")) ?: "", "done") == 0 &&
                    strcmp(json_string_value(json_object_get(old, "strategy")) ?: "",
                           episode_strategy_name(options->strategy)) == 0 &&
                    json_integer_value(json_object_get(old, "budget")) == ep->options.budget)
                        ep->replay_rows = json_array_size(json_object_get(old, "trajectory"));
                json_decref(old);
                /* a fresh search: resume() may have half-restored the old one */
                search_free(ep->search);
                ep->search = NULL;
                r = search_new(ep->genes, ep->n_genes, &search_options, &ep->search);
                if (r < 0)
                        goto fail;
                for (size_t i = 0; i < ep->n_files; i++) {
                        struct op_file *f = &ep->files[i];
                        char *best = strdup(f->disk), *base = f->gene_base ? strdup(f->disk) : NULL;
                        if (!best || (f->gene_base && !base)) {
                                free(best);
                                r = -ENOMEM;
                                goto fail;
                        }
                        free(f->best);
                        f->best = best;
                        free(f->gene_base);
                        f->gene_base = base;
                }
                if (ep->n_genes)
                        memcpy(ep->located, ep->genes, ep->n_genes * sizeof(*ep->genes));
                for (size_t g = 0; g < ep->n_genes; g++) {
                        ep->best_values[g] = ep->genes[g].value;
                        ep->lost[g] = false;
                }
                ep->rng = options->seed ^ 0x5eed5eed5eed5eedull;
                ep->record = json_pack(
                    "{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:o, s:i, s:i, s:i, s:o, s:o, s:I}", "id",
                    ep->id, "operator", ep->manifest->name, "dir", ep->manifest->dir, "strategy",
                    episode_strategy_name(options->strategy), "seed", (json_int_t)options->seed,
                    "budget", ep->options.budget, "state", "running", "genes",
                    episode_genes_json(ep), "evaluations", 0, "memo_hits", 0, "confirmations", 0,
                    "failures", json_object(), "trajectory", json_array(), "started",
                    (json_int_t)time(NULL));
                if (ep->record && ep->options.strategy == EPISODE_FULL &&
                    json_object_set_new(
                        ep->record, "alternation",
                        json_pack("{s:i, s:i, s:i, s:i, s:i}", "rounds", ep->options.rounds,
                                  "stage1_steps", steps_of(ep, 1), "stage2_steps", steps_of(ep, 2),
                                  "turn_patience", ep->options.turn_patience, "first_stage",
                                  ep->options.first_stage == 2 ? 2 : 1)) < 0) {
                        json_decref(ep->record);
                        ep->record = NULL; /* -ENOMEM below */
                }
        }
        if (!ep->record) {
                r = -ENOMEM;
                goto fail;
        }
        episode_record_literals(ep);
        {
                /* where the copies of shared kernel headers came from, for the report */
                json_t *copies = json_object();
                for (size_t i = 0; copies && i < ep->n_files; i++)
                        if (ep->files[i].copied_from)
                                json_object_set_new(copies, ep->files[i].path,
                                                    json_string(ep->files[i].copied_from));
                if (copies && json_object_size(copies))
                        json_object_set(ep->record, "shared_copies", copies);
                json_decref(copies);
        }
        json_object_set_new(ep->record, "context", json_string(npu_evaluator_context(evaluator)));
        if (ep->llm.client) {
                /* a resumed episode has spent part of its tokens already */
                int64_t used = json_integer_value(
                    json_object_get(json_object_get(ep->record, "llm"), "total_tokens"));
                int64_t left = ep->llm.token_budget - used;
                ep->llm_budget = llm_budget_new(left > 0 ? left : 0);
                if (!ep->llm_budget) {
                        r = -ENOMEM;
                        goto fail;
                }
                if (!episode_llm_record(ep)) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        ep->phase = PHASE_BASELINE;
        r = arm_wall_budget(ep);
        if (r < 0) {
                snprintf(err, err_size, "cannot arm the wall-clock budget: %s", strerror(-r));
                goto fail;
        }
        r = episode_evaluate(ep, options->seed, NULL, true, true, false);
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
