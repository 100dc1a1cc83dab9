/* SPDX-License-Identifier: MIT */
/*
 * An episode: one operator optimized for a budget of measured evaluations,
 * alternating Stage I and Stage II (docs/design.md), its record in the
 * store, and keeping the store under its size limit.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_EPISODE_H
#define ASCENDOPT_OPTIMIZER_EPISODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "search.h"
#include "experience.h"
#include "motif.h"

struct event_base;
struct store;
struct store_batch;

/* ------------------------------------------------------------ episodes */

/*
 * An episode optimizes one operator for a budget of measured evaluations
 * (docs/design.md, "An episode": memo hits, confirmations and the baseline are not
 * counted).  It is a state machine on the evaluator's event loop: evaluate
 * the baseline (kept as the correctness reference), then propose, evaluate
 * and record candidates.  A new best is confirmed on a second seed before
 * it is accepted.  After every evaluation the whole record, search state
 * included, is written to the store in one synced batch, so a restarted
 * episode with the same id continues where it stopped.
 */
struct npu_evaluator;
struct episode;
struct llm_client;

/*
 * An episode's optional LLM (docs/design.md: the mutation operator of Stage I and
 * the refiner of Stage II).  Every LLM answer is built before it is
 * measured: one that does not compile is discarded with its reason and
 * costs no evaluation; a failed call (endpoint down, truncated or
 * malformed answer, no code block, token budget spent) hands the step to
 * the rule-based operators.  The caller has checked consent: a client is
 * passed only when the operator's source may be sent.
 */
struct episode_llm {
        struct llm_client *client; /* borrowed; NULL: rules only */
        const char *prompts_dir;   /* the templates (borrowed until episode_start returns) */
        const char *model;         /* recorded for the report */
        /* entries and queries are embedded and ranked by cosine; NULL: BM25 */
        const char *embedding_model;
        int64_t token_budget; /* tokens the episode may use; 0: no call */
        int stage1_every;     /* every n-th Stage I step asks the LLM; 0: 3 */
};

/*
 * The prompt template directory: $ASCENDOPT_PROMPTS_DIR, else prompts/
 * beside the config file (installed with it; config_path may be NULL),
 * else etc/ascendopt/prompts of the source tree the program was built in,
 * else SYSCONFDIR/ascendopt/prompts.  A directory counts when it holds
 * system.txt.  buf or the environment's string, or NULL when none does.
 */
const char *prompts_find_dir(const char *config_path, char *buf, size_t size);

enum episode_strategy {
        EPISODE_STAGE1,        /* evolve the tiling program */
        EPISODE_BON,           /* Best-of-N: random genomes from the same space */
        EPISODE_STAGE2,        /* Stage II only: experience-guided kernel rewriting */
        EPISODE_FULL,          /* Algorithm 1: rounds of U Stage I then S Stage II steps */
        EPISODE_EVOLVE,        /* OpenEvolve-style: gene mutation or a random motif, no bank */
        EPISODE_STAGE2_RANDOM, /* Stage II with motifs in random order, no retrieval */
};

const char *episode_strategy_name(enum episode_strategy strategy);

#define EPISODE_SLOW_FACTOR      3.0
#define EPISODE_SLOW_FLOOR_US    10.0 /* tiny kernels: never stop within this of the best */
#define EPISODE_NOISE_MARGIN_PCT 2.0
/* a stage whose last this many candidates in a row were served for their launch is spent for now */
#define EPISODE_LAUNCH_HITS_IN_ROW 16

/*
 * The latency a new best counts with: a first measurement that beats
 * best_us by margin_pct or more counts as measured; a closer one counts as
 * the slower of its two measurements, so an "improvement" that the
 * re-measurement does not repeat is not accepted.
 */
double episode_noise_latency(double first_us, double again_us, double best_us, double margin_pct);
int episode_strategy_from_name(const char *name, enum episode_strategy *ret);

struct episode_options {
        const char *id; /* the episode's key in the store; required */
        uint64_t seed;
        int budget; /* 0: 40 */
        enum episode_strategy strategy;
        const char *log_context; /* prefix of the episode's log lines (copied); may be NULL */
        int device;              /* the device slot leased for it (ascend); the sim ignores it */
        /*
         * The alternation (EPISODE_FULL): rounds of stage1_steps Stage I
         * evaluations then stage2_steps Stage II ones, each stage starting
         * from the best pair (tiling and kernel) the other left.  rounds 0:
         * as many as the budget holds; otherwise the budget is capped at
         * rounds * (stage1_steps + stage2_steps).  A stage with nothing left
         * to try hands its turn to the other.  Steps 0: 10 each.
         */
        int rounds;
        int stage1_steps;
        int stage2_steps;
        /* a turn also ends after this many of its evaluations in a row
         * found no new best, Stage I's draws of its first population
         * not counted; 0: turns run their steps */
        int turn_patience;
        /* the stage whose turn comes first: 2, Stage II (the kernel
         * rewrites the bank ranks, then the tiling tuned for them); any
         * other value, Stage I */
        int first_stage;
        int top_k;                     /* experience entries kept per diagnosis; 0: 5 */
        bool frozen_bank;              /* neither credit entries nor add new ones (benchmarks) */
        bool leave_one_out;            /* ignore entries whose "operator" is this operator */
        const struct episode_llm *llm; /* NULL: rules only (copied by episode_start) */
        /*
         * Noise policy (docs/design.md).  A candidate whose bench case runs
         * past slow_factor times the best (and at least EPISODE_SLOW_FLOOR_US past
         * it) is stopped early and recorded as slow, not failed; 0: 3, < 0:
         * never.  A new best within noise_margin_pct of the old one must also
         * beat it on the re-measurement (the confirmation run) and counts
         * with the slower of the two; 0: 2 %.
         */
        double slow_factor;
        double noise_margin_pct;
        /*
         * Wall-clock seconds the episode may take, counted from its first
         * start (restarts included); 0: no limit.  Past it the evaluation
         * in flight is killed and the episode ends "done" with the best it
         * had and "stop_reason" saying why ("failed" when not even the
         * baseline was measured).  base is the loop of the timer that
         * enforces it (borrowed); without one it is checked between
         * evaluations only.
         */
        double wall_budget_s;
        struct event_base *base;
};

/* What the caller hears after each evaluation (for progress lines). */
struct episode_progress {
        int used, budget, memo_hits;
        const char *what;   /* "baseline", a technique name, or a motif name (Stage II) */
        int stage;          /* 1 or 2; 0 for the baseline */
        const char *status; /* "ok", or the failure's kind (ub_overflow) */
        double latency_us;  /* 0 when not ok */
        double best_us;     /* best so far, 0 before the baseline */
        bool new_best;
};

typedef void (*episode_progress_fn)(const struct episode_progress *progress, void *userdata);

/*
 * The final record (ownership passes); "state" is "done" or "failed".
 * "run_timeouts" counts the evaluations (memo hits aside) whose run timed
 * out, so that the caller can check the device.
 */
typedef void (*episode_done_fn)(json_t *record, void *userdata);

/*
 * The record's trajectory holds one object per candidate: "evaluation",
 * "stage" (1 or 2), "technique" (Stage I's search technique, or the motif
 * name), for Stage I "moves" (the structural tiling moves the genome made,
 * "+"-joined, when it made any), for Stage II "motif", "entry" (the experience entry it came from, or null),
 * "site" and "source" ("bank", "fallback", "random"), then "identity",
 * "status", "latency_us", "memo_hit", "new_best" and "genome".  Stage II
 * also keeps "stage2" (its plan for the current best and the last
 * diagnosis), "llm" (with an LLM: "model", "calls" [{stage, purpose,
 * prompt_sha256, outcome, tokens, latency_s, attempts, verdict, message}],
 * "total_tokens", "proposals", "evaluated", "won", "discarded" {reason:
 * count} and "off" once it stopped asking), "motifs" ({name: {tried, failed, won, apply_errors}}),
 * "learned" (ids of entries written back to the bank) and "pair" (the best texts, by blob, for resuming).
 *
 * Starts (or resumes, when the store holds a running record with this id)
 * an episode on the operator in opdir.  evaluator and store are borrowed.
 * Errors before anything runs come back as -errno with a message; later
 * ones end the episode with state "failed" and an "error" in the record.
 */
int episode_start(struct npu_evaluator *evaluator, struct store *store, const char *opdir,
                  const struct episode_options *options, episode_progress_fn progress,
                  episode_done_fn done, void *userdata, struct episode **ret_episode, char *err,
                  size_t err_size);

/*
 * Stops an episode after the evaluation in flight; its done callback runs
 * then with state "cancelled".  The record stays in the store.
 */
void episode_cancel(struct episode *episode);

/*
 * Stops an episode at once because the process is stopping: the
 * evaluation in flight is killed, nothing more is written (the record as
 * of the last evaluation stays "running", so the episode resumes on the
 * next start), and the done callback runs with state "stopped".
 */
void episode_stop(struct episode *episode);

/* Reads an episode record; -ENOENT when unknown. */
int episode_load(struct store *store, const char *id, json_t **ret_record);

/* Adds an episode record made elsewhere (a fleet job's) to batch, under id. */
int episode_record_put(struct store_batch *batch, const char *id, const json_t *record);

/* What episode_prune_store() did; sizes are store_size_bytes() estimates. */
struct episode_prune {
        uint64_t size_before, size_after;
        bool compacted;
        size_t dropped; /* trajectories dropped */
};

/*
 * Keeps store under max_bytes: compacts it, and while it is still over,
 * drops the trajectories of done or cancelled episodes, oldest first (the record
 * keeps its summary and "trajectory_dropped": the rows that went).
 * Memoized results, blobs and the experience bank are never touched, so
 * the store may stay over.  Compacting blocks: the daemon calls it from a
 * worker thread.
 */
int episode_prune_store(struct store *store, uint64_t max_bytes, struct episode_prune *ret);

/* ------------------------------------------------------------ the record, typed */

/*
 * struct episode_summary is how everything outside the episode's own
 * files reads a record (the report, the CLI, the daemon, the benchmarks),
 * so that a renamed or retyped key is a compile error or one change in
 * episode-record.c, never a field that silently reads as 0.  Strings and
 * JSON members point into the record, which the summary holds a reference
 * to; a key the record lacks reads as NULL, 0 or false and its has_* flag
 * says so where the difference matters.
 */

/* One candidate of the trajectory. */
struct episode_row {
        int64_t evaluation; /* 1-based; memo hits repeat the last evaluation's number */
        int stage;          /* 1 or 2; 1 when unrecorded */
        const char *technique;
        const char *motif;  /* Stage II */
        const char *entry;  /* the experience entry it came from, or NULL */
        const char *source; /* "bank", "fallback", "random", "llm"; NULL: unrecorded */
        const char *identity;
        const char *status;
        const char *moves;            /* Stage I's structural moves, or NULL */
        const char *dtype_regression; /* status dtype_regression: the dtypes it broke */
        const char *llm_note;         /* the LLM's words about its change, or NULL */
        double latency_us;            /* 0 unless ok */
        bool memo_hit, new_best;
};

/* One tiling gene as the baseline had it. */
struct episode_gene {
        const char *file, *name;
        int64_t line, value, lo, hi;
        bool marked;
};

/* Counters of one stage ("stage1" or "stage2"), or of one motif. */
struct episode_counts {
        const char *name;
        int64_t evaluations, memo_hits, wins;     /* stages */
        int64_t tried, failed, won, apply_errors; /* motifs */
        bool has_apply_errors;
};

/* What the optional LLM did (record.llm). */
struct episode_llm_usage {
        bool present;
        const char *model; /* NULL: not named */
        int64_t requests, total_tokens, proposals, evaluated, won;
        const json_t *discarded; /* {reason: count} */
        const char *off;         /* why it was left alone, or NULL */
        bool has_off;
};

/* The baseline or the best candidate. */
struct episode_point {
        bool present;
        const char *identity;
        double latency_us;
        double roofline_us;   /* the baseline's; 0: not recorded */
        const json_t *files;  /* {path: blob sha} */
        const json_t *genome; /* {"file:line:name": value} (the best's) */
};

/*
 * The dtype gate (record.dtypes, issue #26): the dtype combinations the
 * OpDef registers beyond the manifest's, which every new best had to pass
 * on the small cases against the original's outputs.  Each list is an
 * array or NULL.
 */
struct episode_dtypes {
        bool present;
        const char *manifest;         /* the manifest's own ("x:float32 y:float32"), or NULL */
        const json_t *checked;        /* [label]: those the original passes */
        const json_t *not_checkable;  /* [{dtypes, why}] */
        const json_t *baseline_fails; /* [{dtypes, status, message}]: the original fails them */
};

struct episode_summary {
        json_t *record; /* held */
        const char *id, *operator_name, *dir, *strategy, *state;
        const char *error_kind, *error_message; /* NULL: no error */
        const char *stop_reason;
        int64_t seed, budget, evaluations, memo_hits, confirmations;
        int64_t slow, remeasured;
        bool has_slow_or_remeasured;
        int64_t run_timeouts, trajectory_dropped;
        int64_t started, finished; /* seconds since the epoch; finished falls back to "updated" */
        int64_t llm_tokens;
        bool has_llm_tokens;
        struct episode_llm_usage llm;
        const json_t *llm_record; /* record.llm as it is, forwarded to the control API */
        struct episode_point baseline, best;
        const json_t *failures; /* {kind: count}; NULL: none recorded */
        const json_t *learned;  /* [ids of experience entries learned]; NULL: none */
        struct episode_dtypes dtypes;
        struct episode_counts *stages, *motifs;
        size_t n_stages, n_motifs;
        struct episode_gene *genes;
        size_t n_genes;
        struct episode_row *rows;
        size_t n_rows;
};

/*
 * Reads record (an object, as episode_load() and the done callback give
 * it) into ret.  -EINVAL when record is not an object, -ENOMEM.  Release
 * with episode_summary_release() (also after an error).
 */
int episode_summary_read(const json_t *record, struct episode_summary *ret);
void episode_summary_release(struct episode_summary *summary);

/* Stage 1's or 2's counters, or NULL when the record has none for it. */
const struct episode_counts *episode_summary_stage(const struct episode_summary *summary,
                                                   int stage);

/* Whether record is of an episode that finished its search (state "done"). */
bool episode_record_done(const json_t *record);

/* The same for an LLM usage object (record.llm, or the control API's copy of it). */
void episode_llm_usage_read(const json_t *llm, struct episode_llm_usage *ret);

/*
 * How many candidates an episode evaluated (its trajectory's rows that are
 * no memo hits, *ret_checked of them found in the store) changed a frozen
 * literal of record.literals (a tiling key, a byte width, a selector, code
 * no case runs): judged from each candidate's own texts as the store holds
 * them against the operator's files in opdir (NULL: the record's dir), not
 * from its genome.  A literal is changed when the candidate holds its line,
 * other numbers on it aside, fewer times than the operator does.  -EINVAL
 * for a record that lists no literals (from before they were recorded).
 */
int episode_frozen_changes(struct store *store, const json_t *record, const char *opdir,
                           size_t *ret_changed, size_t *ret_checked);

#endif
