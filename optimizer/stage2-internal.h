/* SPDX-License-Identifier: MIT */
/*
 * Stage II's private helpers, shared by the episode state machine: the
 * plan of motif applications for the current best (diagnosis, retrieval
 * from the experience bank ranked by similarity and measured value, and
 * the fixed or random fallback orders), applying one planned action, and
 * writing an accepted improvement back to the bank.
 */
#ifndef ASCENDOPT_STAGE2_INTERNAL_H
#define ASCENDOPT_STAGE2_INTERNAL_H

#include "optimizer.h"

/* How a plan is ordered. */
enum stage2_mode {
        STAGE2_GUIDED, /* retrieved entries first, then the fixed motif order */
        STAGE2_RANDOM, /* applicable motifs in a seeded random order, no retrieval */
};

struct stage2_plan_options {
        struct store *store;       /* the bank (borrowed); NULL: no retrieval */
        const char *signature;     /* bottleneck of the current best; may be NULL */
        const char *operator_name; /* for leave-one-out */
        size_t top_k;              /* entries kept after ranking; 0: 5 */
        bool leave_one_out;        /* drop entries whose "operator" is operator_name */
        enum stage2_mode mode;
        uint64_t *rng; /* STAGE2_RANDOM's state, advanced */
        /* entries already retrieved and scored (dense retrieval); NULL: BM25 on the signature */
        const json_t *retrieved;
};

/*
 * The actions worth trying on files (the current best's op_kernel and
 * op_host texts, ascendopt.json optional), best first: a new array of
 * {"motif", "entry" (an id or null), "site" (-1: every site), "source"
 * ("bank", "fallback" or "random")}.  Only motifs whose detector finds a
 * forward site are planned.  *ret_diagnosis (may be NULL) gets what was
 * asked and retrieved: {"signature", "query", "retrieved": [{"id",
 * "motif", "score", "value", "applicable"}]}.  -errno on a store error.
 */
int stage2_plan(const struct stage2_plan_options *options, const struct motif_file *files,
                size_t n_files, json_t **ret_plan, json_t **ret_diagnosis);

/*
 * An entry's ranking value: its BM25 score normalised by max_score, times
 * its Laplace-smoothed win rate (wins + 1) / (uses + 2) doubled (1 for an
 * entry never used), times the square root of its gain clamped to [1, 4]
 * ("mean_gain", else "gain", else "slowdown"; 1 when none).
 */
double stage2_entry_value(const json_t *entry, double max_score);

/*
 * Applies a planned action forward on files; *ret_changed holds the
 * op_kernel/op_host files that changed (motif_files_free), all of them one
 * candidate.  -ENOENT when the motif is unknown or its site is gone, other
 * -errno when the transform fails.
 */
int stage2_apply(const json_t *action, const struct motif_file *files, size_t n_files,
                 struct motif_file **ret_changed, size_t *ret_n);

/*
 * Writes an accepted improvement to the bank as an "episode" entry: the
 * motif's title and description (title and description when motif names
 * no motif, as for "llm_refine"), signature_before as its bottleneck, the
 * unified diff of the changed files against before, gain (old / new
 * latency), and the operator and level it came from.  *ret_id (may be
 * NULL) gets the entry's id.
 */
struct stage2_learned {
        const char *motif;
        const char *operator_name;
        int level;
        const char *signature_before;
        const char *context; /* the evaluator's context digest: backend and platform */
        double gain;
        /* for a rewrite that is no motif's (an LLM's): what the entry says */
        const char *title;
        const char *description;
};

int stage2_learn(struct store *store, const struct stage2_learned *what,
                 const struct motif_file *before, size_t n_before, const struct motif_file *changed,
                 size_t n_changed, char ret_id[SHA256_HEX_SIZE]);

/* splitmix64: the next number of a persisted random state. */
uint64_t stage2_random(uint64_t *state);

#endif
