/* SPDX-License-Identifier: MIT */
/*
 * Rewind: de-optimizing an expert kernel step by step with the motifs'
 * inverses, keeping each step that measurably slows it as experience.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_REWIND_H
#define ASCENDOPT_OPTIMIZER_REWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "motif.h"
#include "experience.h"

struct event_base;
struct store;
struct store_batch;

/* ------------------------------------------------------------ rewind */

/*
 * Rewind builds the experience bank from expert kernels: it walks a
 * de-optimization trajectory from an operator's expert (its baseline files
 * with expert/op_host and expert/op_kernel laid over them), one inverse
 * motif site at a time, measuring every step on the evaluator.  A step is
 * kept when the slower version is correct (judged against the expert's
 * outputs) and slower than the current version by more than the
 * threshold; it becomes an experience entry (origin "rewind") whose diff
 * leads from the slow version back to the fast one, and the walk goes on
 * from the slow version.  Candidates that fail to apply, compile or give
 * the right answer are skipped and counted by motif.
 *
 * The walk is deterministic: motifs in table order, sites in detection
 * order, and each site (a motif, file and description, with its
 * occurrence among equal descriptions) is tried at most once per walk,
 * except that a step slower than defer_gain is put off to a final pass; a
 * motif that was kept is not tried again on the same operator, so the
 * entries of one walk are distinct (motif, operator) pairs.  Evaluations
 * are memoized, so running rewind again re-measures only the expert.
 */
struct rewind;

#define REWIND_DEFAULT_THRESHOLD_PCT 5.0
#define REWIND_DEFAULT_MAX_STEPS     12
#define REWIND_DEFAULT_MAX_TRIES     120
#define REWIND_DEFAULT_DEFER_GAIN    2.0

struct rewind_options {
        double threshold_pct; /* a kept step is slower by more than this; 0: 5 */
        int max_steps;        /* kept steps per operator; 0: 12 */
        int max_tries;        /* candidates evaluated per operator; 0: 120 */
        uint64_t seed;        /* of the inputs; 0: 1 */
        /*
         * A step that slows the kernel by more than this factor (a scalar
         * loop, say) would make every later step look negligible: it is
         * deferred to a final pass over the deferred sites.  0: 2.
         */
        double defer_gain;
        /* the motifs to try, in this order (borrowed); NULL: the whole table */
        const struct motif *const *motifs;
        size_t n_motifs;
        /*
         * An LLM (NULL: motifs only; copied by rewind_start): the distiller
         * rewrites every kept entry's title, description and bottleneck, and
         * once the motifs are spent the inverse agent proposes up to three
         * de-optimizations of its own (motif "llm_inverse"), each built
         * before it is measured.  token_budget is for the whole walk.
         */
        const struct episode_llm *llm;
};

/* What the caller hears after each candidate (for progress lines). */
struct rewind_progress {
        const char *operator_name;
        int step;          /* kept steps so far, this one included */
        int tries;         /* candidates evaluated so far */
        const char *motif; /* the motif's name */
        const struct motif_site *site;
        size_t site_index;   /* in motif_detect's order */
        const char *status;  /* the result's status (or "apply_error") */
        const char *outcome; /* "kept", "not_slower", or the failure kind */
        double before_us;    /* the current version's latency */
        double after_us;     /* the candidate's latency; 0 when it failed */
        bool memo_hit;
        bool kept;
        bool new_entry; /* kept and not in the bank before */
};

typedef void (*rewind_progress_fn)(const struct rewind_progress *progress, void *userdata);

/*
 * The walk's summary (ownership passes): "operator", "dir", "level",
 * "state" ("done", "failed" or "cancelled", with "error" when failed),
 * "expert_us", "final_us", "tries", "evaluations", "memo_hits", "kept",
 * "new_entries", "steps" (every kept step: motif, site, before_us,
 * after_us, gain, entry id, new, slow_identity, fast_identity), "tried"
 * (every candidate: motif, site, outcome) and "failures"
 * ({motif: {kind: count}}).
 */
typedef void (*rewind_done_fn)(json_t *summary, void *userdata);

/*
 * Starts a walk on the operator in opdir, which must hold an expert/
 * (-ENOENT with a message otherwise).  evaluator and store are borrowed
 * and must outlive the walk; entries are written to the store's experience
 * family as they are kept, each in its own synced batch (an entry already
 * in the bank keeps its uses and wins).  Errors before anything runs come
 * back as -errno with a message in err; later ones end the walk with
 * state "failed".  The callbacks run from the evaluator's event loop.
 */
int rewind_start(struct npu_evaluator *evaluator, struct store *store, const char *opdir,
                 const struct rewind_options *options, rewind_progress_fn progress,
                 rewind_done_fn done, void *userdata, struct rewind **ret_rewind, char *err,
                 size_t err_size);

/*
 * Stops a walk after the evaluation in flight; its done callback runs then
 * with state "cancelled".  Entries already kept stay in the bank.
 */
void rewind_cancel(struct rewind *rewind);

/* Whether opdir has an expert/ with op_kernel files, the thing rewind walks from. */
bool rewind_has_expert(const char *opdir);

#endif
