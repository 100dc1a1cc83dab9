/* SPDX-License-Identifier: MIT */
/*
 * Stage II of an episode: the plan for the current best (diagnosis and
 * retrieval from the experience bank), the motif rewrite proposed from
 * it, never one whose candidate this episode measured already, the retry
 * of a rewrite that overflowed the Unified Buffer on smaller tiles, and
 * adopting a winning rewrite as the new best pair.
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

/* ------------------------------------------------------------ Stage II */

/* The record's "stage2", made on first use; NULL when out of memory. */
static json_t *stage2_state(struct episode *ep)
{
        json_t *s = json_object_get(ep->record, "stage2");

        if (!s) {
                s = json_pack("{s:[], s:n, s:i}", "plan", "plan_for", "diagnoses", 0);
                if (json_object_set_new(ep->record, "stage2", s) < 0)
                        return NULL;
        }
        return s;
}

/* The dense retrieval made for the current best, or NULL (BM25 then). */
const json_t *episode_dense_for_best(struct episode *ep)
{
        const char *identity =
            json_string_value(json_object_get(episode_best_summary(ep), "identity"));

        return ep->dense && ep->dense_for && identity && strcmp(ep->dense_for, identity) == 0
                   ? ep->dense
                   : NULL;
}

/* Diagnoses the best pair and plans what to try on it. */
static int replan(struct episode *ep, json_t *state, const char *best_identity)
{
        struct motif_file set[MAX_OP_FILES];
        size_t n = episode_best_file_set(ep, set);
        struct stage2_plan_options o = {
                .store = ep->store,
                .signature =
                    json_string_value(json_object_get(episode_best_summary(ep), "bottleneck")),
                .operator_name = ep->manifest->name,
                .top_k = ep->options.top_k > 0 ? (size_t)ep->options.top_k : 5,
                .leave_one_out = ep->options.leave_one_out,
                .mode =
                    ep->options.strategy == EPISODE_STAGE2 || ep->options.strategy == EPISODE_FULL
                        ? STAGE2_GUIDED
                        : STAGE2_RANDOM,
                .rng = &ep->rng,
                .retrieved = episode_dense_for_best(ep),
        };
        json_t *plan = NULL, *diagnosis = NULL, *tally;
        int r = stage2_plan(&o, set, n, &plan, &diagnosis);

        if (r < 0)
                return r;
        /* what becomes of this best's plan, for the line that says why it is spent */
        tally = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}}", "measured", "measured_before",
                          "not_applied", "unrepaired", "left_out");
        if (!tally) {
                json_decref(plan);
                json_decref(diagnosis);
                return -ENOMEM;
        }
        /*
         * A motif whose every-site rewrite already failed here is tried site
         * by site only; unless each failure was a UB overflow and Stage I
         * can change the tiling: on another best it may fit (double
         * buffering, dropped for good after one overflow on a UB-filling
         * tile, was apply_adam's largest gain).
         */
        for (size_t i = json_array_size(plan); i-- > 0;) {
                const json_t *a = json_array_get(plan, i);
                const json_t *stats =
                    json_object_get(json_object_get(ep->record, "motifs"),
                                    json_string_value(json_object_get(a, "motif")));
                json_int_t failed = json_integer_value(json_object_get(stats, "failed"));
                json_int_t overflowed = json_integer_value(json_object_get(stats, "overflowed"));
                if (json_integer_value(json_object_get(a, "site")) < 0 && failed > 0 &&
                    !(episode_uses_stage1(ep) && overflowed == failed)) {
                        json_counter_add(json_object_get(tally, "left_out"),
                                         json_string_value(json_object_get(a, "motif")), 1);
                        json_array_remove(plan, i);
                }
        }
        json_object_set_new(tally, "planned", json_integer((json_int_t)json_array_size(plan)));
        json_object_set_new(state, "for_best", tally);
        json_object_set_new(diagnosis, "for", json_string(best_identity));
        json_object_set_new(state, "plan", plan);
        json_object_set_new(state, "plan_for", json_string(best_identity));
        json_object_set_new(state, "diagnosis", diagnosis);
        json_object_set_new(
            state, "diagnoses",
            json_integer(json_integer_value(json_object_get(state, "diagnoses")) + 1));
        return 0;
}

/*
 * A motif that overflowed the UB (double buffering on a tile that filled
 * it) retried with the tiling fitted to the new kernel in the same
 * candidate: the tiling moves made again on it (tile_from_ub counts its
 * live buffers), and every gene whose growth overflowed in Stage I
 * (search_overflow_direction) moved 2^shrink times back; when Stage I saw
 * no overflow at all, the genes named as a tile's size are shrunk.  The motif must
 * leave the gene files alone (the tiling is the genome's).  -ERANGE when
 * nothing in the tiling can change, -EXDEV when the motif changes a gene
 * file.
 */
static int propose_overflow_repair(struct episode *ep, const json_t *action, int shrink)
{
        struct motif_file set[MAX_OP_FILES], *changed = NULL;
        size_t n_changed = 0, n = episode_best_file_set(ep, set);
        bool moved = false, moves_made = false, known = false;
        int r;

        memcpy(ep->pending, ep->best_values, ep->n_genes * sizeof(*ep->pending));
        for (size_t g = 0; g < ep->n_genes; g++)
                known |= !ep->lost[g] && search_overflow_direction(ep->search, g) != 0;
        for (size_t g = 0; g < ep->n_genes; g++) {
                int direction = ep->lost[g] ? 0 : search_overflow_direction(ep->search, g);
                int64_t v = ep->best_values[g];
                /* Stage I never overflowed: a gene named as a tile's size is the one to shrink */
                if (!known && !ep->lost[g] && !episode_is_move_gene(&ep->genes[g]) &&
                    gene_name_is_tile_size(ep->genes[g].name))
                        direction = 1;
                moves_made |= episode_is_move_gene(&ep->genes[g]) && v > 0;
                if (direction == 0 || v <= 0 || v > (INT64_MAX >> shrink))
                        continue;
                v = gene_snap(&ep->genes[g], direction > 0 ? v >> shrink : v << shrink);
                moved |= v != ep->best_values[g];
                ep->pending[g] = v;
        }
        /* made again, the moves give the same tiling at every shrink: once is enough */
        if (!moved && !(moves_made && shrink == 1))
                return -ERANGE;
        r = stage2_apply(action, set, n, &changed, &n_changed);
        if (r == 0 && n_changed == 0)
                r = -ENOENT;
        for (size_t c = 0; c < n_changed && r == 0; c++) {
                struct op_file *f = episode_file_named(ep, changed[c].path);
                if (f && f->gene_base)
                        r = -EXDEV;
        }
        for (size_t c = 0; c < n_changed && r == 0; c++) {
                struct op_file *f = episode_file_named(ep, changed[c].path);
                if (!f || !f->is_source)
                        continue;
                f->cand = (char *)changed[c].text;
                changed[c].text = NULL;
        }
        if (r == 0)
                r = episode_write_genome(ep, ep->pending);
        motif_files_free(changed, n_changed);
        if (r < 0)
                episode_clear_candidate(ep);
        return r;
}

/* After a motif overflowed the UB: the same action, next at the front of the plan, shrunk. */
void episode_plan_overflow_repair(struct episode *ep)
{
        const char *motif = json_string_value(json_object_get(ep->pending_action, "motif"));
        json_int_t shrink = json_integer_value(json_object_get(ep->pending_action, "shrink")) + 1;
        json_t *repair;

        if (shrink > MAX_OVERFLOW_REPAIRS || !episode_uses_stage1(ep) || ep->n_genes == 0 ||
            !motif || !motif_find(motif))
                return;
        repair = json_deep_copy(ep->pending_action);
        if (!repair)
                return;
        json_object_set_new(repair, "shrink", json_integer(shrink));
        if (json_array_insert_new(json_object_get(stage2_state(ep), "plan"), 0, repair) < 0)
                log_msg(LOG_WARNING, ep->options.log_context,
                        "motif %s overflowed the UB; its repair is not planned (out of memory)",
                        motif);
}

/* Adds one to this best's tally of what became of its plan ("measured", ...) for motif. */
static void tally(struct episode *ep, const char *what, const char *motif)
{
        json_t *t = json_object_get(json_object_get(stage2_state(ep), "for_best"), what);

        if (t && motif)
                json_counter_add(t, motif, 1);
}

/* Whether this episode measured a candidate of this identity: its baseline or a trajectory step. */
static bool measured_before(struct episode *ep, const char *identity)
{
        const json_t *steps = json_object_get(ep->record, "trajectory"), *step;
        size_t i;

        if (strcmp(json_string_value(
                       json_object_get(json_object_get(ep->record, "baseline"), "identity"))
                       ?: "",
                   identity) == 0)
                return true;
        json_array_foreach(steps, i, step)
        {
                if (strcmp(json_string_value(json_object_get(step, "identity")) ?: "", identity) ==
                    0)
                        return true;
        }
        return false;
}

/*
 * Whether the candidate just built was measured before in this episode
 * (the same motif on a best that an earlier one already gave it, such as
 * every site padded after one site was), so that measuring it again would
 * only hit the memo: then it is left out, counted and cleared.
 */
static bool candidate_measured_before(struct episode *ep, const char *motif)
{
        struct npu_request req = {
                .manifest = ep->manifest,
                .overrides = ep->overrides,
                .n_overrides = ep->n_overrides,
        };
        char identity[SHA256_HEX_SIZE];

        if (npu_candidate_identity(ep->evaluator, &req, identity) < 0 ||
            !measured_before(ep, identity))
                return false;
        episode_bump(ep, "stage2_measured_before");
        tally(ep, "measured_before", motif);
        log_msg(LOG_DEBUG, ep->options.log_context,
                "motif %s gives candidate %.12s, measured before in this episode: left out", motif,
                identity);
        episode_clear_candidate(ep);
        return true;
}

/*
 * Stage II's next candidate: the next planned action that changes
 * something on the best pair and makes a candidate this episode has not
 * measured.  -ENOSPC when the plan for the current best is spent
 * (episode_stage2_spent says why).
 */
int episode_propose_stage2(struct episode *ep)
{
        json_t *state = stage2_state(ep), *plan;
        const char *best_identity =
            json_string_value(json_object_get(episode_best_summary(ep), "identity"));
        struct motif_file set[MAX_OP_FILES];
        size_t n = episode_best_file_set(ep, set);
        int r;

        episode_clear_candidate(ep);
        if (!state)
                return -ENOMEM;
        if (!best_identity)
                return -EINVAL;
        if (strcmp(json_string_value(json_object_get(state, "plan_for")) ?: "", best_identity) !=
            0) {
                r = replan(ep, state, best_identity);
                if (r < 0)
                        return r;
        }
        plan = json_object_get(state, "plan");
        while (json_array_size(plan) > 0) {
                json_t *action = json_incref(json_array_get(plan, 0));
                const char *motif = json_string_value(json_object_get(action, "motif"));
                struct motif_file *changed = NULL;
                size_t n_changed = 0;
                json_array_remove(plan, 0);
                if (json_integer_value(json_object_get(action, "shrink")) > 0) {
                        r = propose_overflow_repair(
                            ep, action, (int)json_integer_value(json_object_get(action, "shrink")));
                        if (r == 0 && candidate_measured_before(ep, motif)) {
                                json_decref(action);
                                continue;
                        }
                        if (r == 0) {
                                tally(ep, "measured", motif);
                                ep->pending_action = action;
                                ep->pending_stage = 2;
                                return 0;
                        }
                        log_msg(LOG_INFO, ep->options.log_context,
                                "motif %s overflowed the UB and is not repaired: %s", motif,
                                r == -ERANGE   ? "no tiling gene or move is known to shrink it"
                                : r == -EXDEV  ? "the motif rewrites the tiling files itself"
                                : r == -ENOENT ? "the motif no longer applies"
                                               : strerror(-r));
                        tally(ep, "unrepaired", motif);
                        json_decref(action);
                        continue;
                }
                r = stage2_apply(action, set, n, &changed, &n_changed);
                if (r < 0 || n_changed == 0) {
                        if (r < 0) {
                                episode_bump_in(ep, "motifs", motif, "apply_errors");
                                log_msg(LOG_INFO, ep->options.log_context,
                                        "motif %s does not apply: %s", motif, strerror(-r));
                        }
                        tally(ep, "not_applied", motif);
                        motif_files_free(changed, n_changed);
                        json_decref(action);
                        continue;
                }
                for (size_t c = 0; c < n_changed; c++) {
                        struct op_file *f = episode_file_named(ep, changed[c].path);
                        if (!f || !f->is_source)
                                continue;
                        f->cand = (char *)changed[c].text;
                        changed[c].text = NULL;
                }
                motif_files_free(changed, n_changed);
                episode_build_overrides(ep);
                if (candidate_measured_before(ep, motif)) {
                        json_decref(action);
                        continue;
                }
                tally(ep, "measured", motif);
                ep->pending_action = action;
                ep->pending_stage = 2;
                memcpy(ep->pending, ep->best_values, ep->n_genes * sizeof(*ep->pending));
                return 0;
        }
        return -ENOSPC;
}

/*
 * Appends "; " (or " (" first) and "a x2, b" and what for a tally object
 * {motif: n}; nothing when it is empty.  *first says whether a part came yet.
 */
static void append_tally(char *buf, size_t size, const json_t *counts, const char *what,
                         bool *first)
{
        const char *motif;
        const json_t *n;
        bool any = false;

        json_object_foreach((json_t *)counts, motif, n)
        {
                size_t len = strlen(buf);
                json_int_t times = json_integer_value(n);
                if (times <= 0)
                        continue;
                snprintf(buf + len, size - len, "%s%s", !any ? (*first ? " (" : "; ") : ", ",
                         motif);
                len = strlen(buf);
                if (times > 1)
                        snprintf(buf + len, size - len, " x%lld", (long long)times);
                any = true;
                *first = false;
        }
        if (any && what[0]) {
                size_t len = strlen(buf);
                snprintf(buf + len, size - len, " %s", what);
        }
}

void episode_stage2_spent(struct episode *ep, char *buf, size_t size)
{
        const json_t *t = json_object_get(stage2_state(ep), "for_best");
        bool first = true, measured = false;
        const char *motif;
        const json_t *n;
        size_t len;

        json_object_foreach(json_object_get(t, "measured"), motif, n) measured |=
            json_integer_value(n) > 0;
        json_object_foreach(json_object_get(t, "measured_before"), motif, n) measured |=
            json_integer_value(n) > 0;
        snprintf(buf, size, "%s",
                 measured ? "Stage II: every motif that applies to the best was measured on it"
                          : "Stage II: no motif applies to the best");
        append_tally(buf, size, json_object_get(t, "measured"), "", &first);
        append_tally(buf, size, json_object_get(t, "measured_before"),
                     "measured before in this episode", &first);
        append_tally(buf, size, json_object_get(t, "not_applied"), "did not apply", &first);
        append_tally(buf, size, json_object_get(t, "unrepaired"),
                     "overflowed the UB and could not be repaired", &first);
        append_tally(buf, size, json_object_get(t, "left_out"),
                     "at every site, failed on an earlier best", &first);
        len = strlen(buf);
        snprintf(buf + len, size - len, "%s; nothing %sto try", first ? "" : ")",
                 measured ? "new " : "");
}

/* Whether the candidate in flight changes only files that hold genes (a tiling rewrite). */
static bool candidate_is_tiling_only(const struct episode *ep)
{
        for (size_t i = 0; i < ep->n_files; i++)
                if (ep->files[i].cand && !ep->files[i].gene_base)
                        return false;
        return true;
}

/*
 * A rewrite (Stage II's, an LLM's or a structural tiling move's) becomes the
 * best pair: the rewritten texts, the genes found again in rewritten gene
 * files, and the genome recorded in the search so that Stage I mutates on
 * top of it.
 *
 * A tiling rewrite that takes some genes away (a move that puts the core
 * count where CORE_NUM was) leaves Stage I the survivors, searched in the
 * new text: the tile is then tuned for the move's core count.  A tiling
 * rewrite that takes every gene is the best, but it is not the end of
 * Stage I: the genes stay where they were, so the search goes on over the
 * texts they came from and a genome can still beat the rewrite.  Without
 * this an early move that wins against a poor first population ends the
 * search.
 */
void episode_adopt_rewrite(struct episode *ep, double latency)
{
        size_t bytes = ep->n_genes * sizeof(*ep->located), lost = 0, live = 0;
        struct gene *located_before = bytes ? malloc(bytes) : NULL;
        bool *lost_before = ep->n_genes ? malloc(ep->n_genes * sizeof(*lost_before)) : NULL;
        int64_t *values_before = ep->n_genes ? malloc(ep->n_genes * sizeof(*values_before)) : NULL;
        bool can_keep =
            candidate_is_tiling_only(ep) && located_before && lost_before && values_before;
        char *relocated[MAX_OP_FILES] = { NULL };

        for (size_t g = 0; g < ep->n_genes; g++)
                live += !ep->lost[g] && !episode_is_move_gene(&ep->genes[g]);
        if (can_keep) {
                memcpy(located_before, ep->located, bytes);
                memcpy(lost_before, ep->lost, ep->n_genes * sizeof(*lost_before));
                memcpy(values_before, ep->best_values, ep->n_genes * sizeof(*values_before));
        }
        /* first every gene file's genes found again, so that the choice holds for all */
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand || !f->gene_base)
                        continue;
                relocated[i] = strdup(f->cand);
                if (relocated[i])
                        lost += episode_relocate_genes(ep, f->path, f->gene_base, relocated[i]);
        }
        can_keep = can_keep && lost > 0 && lost == live;
        if (can_keep) {
                memcpy(ep->located, located_before, bytes);
                memcpy(ep->lost, lost_before, ep->n_genes * sizeof(*lost_before));
                memcpy(ep->best_values, values_before, ep->n_genes * sizeof(*values_before));
                episode_bump(ep, "genes_kept_past_rewrite");
                log_msg(LOG_INFO, ep->options.log_context,
                        "a tiling rewrite took %zu gene(s); Stage I goes on searching them in "
                        "the text before it",
                        lost);
        } else if (lost) {
                log_msg(LOG_INFO, ep->options.log_context,
                        "a rewrite took %zu of %zu gene(s); Stage I searches the rest in "
                        "the new text",
                        lost, live);
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand)
                        continue;
                if (relocated[i] && !can_keep) {
                        free(f->gene_base);
                        f->gene_base = relocated[i];
                } else {
                        free(relocated[i]);
                }
                free(f->best);
                f->best = f->cand;
                f->cand = NULL;
        }
        free(located_before);
        free(lost_before);
        free(values_before);
        /* Stage I goes on from the inherited genome, on the new kernel */
        episode_bump(ep, "kernel_changes_unsearched");
        search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, latency, NULL);
}

/* A Stage II improvement: adopted, and the rewrite written back to the bank. */
void episode_accept_stage2(struct episode *ep, double latency)
{
        const char *motif = json_string_value(json_object_get(ep->pending_action, "motif"));
        struct motif_file before[MAX_OP_FILES], changed[MAX_OP_FILES];
        size_t n_before = episode_best_file_set(ep, before), n_changed = 0;
        double old_latency = 0;
        char id[SHA256_HEX_SIZE];
        struct stage2_learned learned = {
                .motif = motif,
                .operator_name = ep->manifest->name,
                .level = ep->manifest->level,
                .signature_before =
                    json_string_value(json_object_get(episode_best_summary(ep), "bottleneck")),
                .context = npu_evaluator_context(ep->evaluator),
                .title = ep->llm_note ? ep->llm_note : "A kernel rewrite by the LLM refiner",
                .description = "The LLM refiner rewrote the kernel for this bottleneck, given "
                               "the entries retrieved for it; the diff shows how.",
        };

        search_best(ep->search, &old_latency);
        learned.gain = latency > 0 ? old_latency / latency : 1.0;
        for (size_t i = 0; i < ep->n_files; i++) {
                if (!ep->files[i].cand)
                        continue;
                changed[n_changed].path = ep->files[i].path;
                changed[n_changed].text = ep->files[i].cand;
                n_changed++;
        }
        if (!ep->options.frozen_bank) {
                if (stage2_learn(ep->store, &learned, before, n_before, changed, n_changed, id) ==
                    0) {
                        json_t *list = json_object_get(ep->record, "learned");
                        if (!list) {
                                list = json_array();
                                json_object_set_new(ep->record, "learned", list);
                        }
                        json_array_append_new(list, json_string(id));
                } else {
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "cannot write the %s improvement to the experience bank", motif);
                }
        }
        episode_adopt_rewrite(ep, latency);
}
