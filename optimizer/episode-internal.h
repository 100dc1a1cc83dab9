/* SPDX-License-Identifier: MIT */
/*
 * Private to the episode's files (episode.c, episode-record.c,
 * episode-stage1.c, episode-stage2.c, episode-llm.c, episode-dtypes.c,
 * episode-coverage.c): struct episode, the
 * operator's files as it holds them, its phases, and the functions one
 * part calls in another.
 */
#ifndef ASCENDOPT_EPISODE_INTERNAL_H
#define ASCENDOPT_EPISODE_INTERNAL_H

#include "optimizer.h"
#include "prompts-internal.h"
#include "stage2-internal.h"

#include "llm/llm.h"
#include "npu/npu.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define CONFIRM_SEED_OFFSET 1000003
/* files in op_host/ and op_kernel/ plus ascendopt.json: cann-ops's largest
 * operator has 134 (its 261 operators: median 5, 99th percentile 55) */
#define MAX_OP_FILES           256
#define MAX_FILE_BYTES         (4u << 20)
#define DEFAULT_STEPS          10
#define LLM_CALLS_RECORDED     200 /* call records kept per episode; counters go on */
#define LLM_MAX_FAILURES       2   /* calls in a row that got no answer before the LLM is left */
#define LLM_RECENT_ROWS        12  /* trajectory rows shown to the Stage I prompt */
#define LLM_TILING_DATA_MAX    (16u << 10)
#define EMBED_ENTRIES_PER_CALL 256 /* bank entries embedded per call */
#define MAX_OVERFLOW_REPAIRS   2   /* a motif that overflowed the UB retried on tiles /2, /4 */

enum phase {
        PHASE_BASELINE,
        PHASE_CONFIRM_BASELINE, /* the reference outputs for the confirmation seed */
        PHASE_SEARCH,
        PHASE_CONFIRM,
        PHASE_LLM,       /* waiting for the LLM's answer */
        PHASE_LLM_BUILD, /* building the answer: does it compile? */
        PHASE_DTYPES,    /* the OpDef's other dtype combinations: read, then run by the baseline */
        PHASE_GATE,      /* a would-be best on those combinations */
        PHASE_COVERAGE,  /* the host code's coverage over the cases (episode-coverage.c) */
        PHASE_DONE,
};

/* One file of the operator as the episode sees it. */
struct op_file {
        char *path;      /* relative to the operator directory */
        char *disk;      /* as in the operator directory */
        char *best;      /* the best pair's text */
        char *gene_base; /* the text the located genes lie in; NULL: holds no genes */
        char *cand;      /* the candidate in flight's text; NULL: as best */
        bool is_source;  /* op_kernel/ or op_host/: candidates may change it */
        /* a shared header copied into op_kernel/ (npu_op_layout.kernel_headers),
         * relative to the repository; such copies reach a candidate all
         * together, once one of them changed; NULL: the operator's own */
        char *copied_from;
};

struct dtype_gate;

struct episode {
        struct npu_evaluator *evaluator;
        struct store *store;
        struct npu_manifest *manifest;
        struct episode_options options;
        char *id;
        episode_progress_fn progress;
        episode_done_fn done;
        void *userdata;

        struct gene *genes; /* as found in the baseline; the search borrows them */
        size_t n_genes;
        struct gene_literals literals; /* every literal looked at, and why taken or not */
        struct gene *located;          /* the same genes in the current gene_base texts */
        bool *lost;                    /* a Stage II rewrite took the gene's literal away */
        struct gene *apply_genes;
        int64_t *apply_values;
        int64_t best_values[GENES_MAX];
        struct search *search;
        struct search_options search_options;
        struct search_inert *inert; /* genes a move's site leaves nothing to do */
        size_t n_inert;
        bool inert_known; /* inert found, on the operator as written */

        struct op_file files[MAX_OP_FILES];
        size_t n_files;

        enum phase phase;
        bool cancelled;
        bool stopping;
        bool out_of_time;         /* the wall-clock budget ran out */
        char *log_context;        /* owned copy of options.log_context */
        struct event *wall_timer; /* fires at the wall-clock budget */
        struct npu_job *in_flight;
        json_t *record;
        json_t *baseline;         /* kept reference result */
        json_t *confirm_baseline; /* the reference at the confirmation seed */
        int pending_stage;        /* 1 or 2 */
        int64_t pending[GENES_MAX];
        enum search_technique pending_technique;
        json_t *pending_action; /* Stage II's planned action */
        json_t *pending_result; /* awaiting confirmation */
        struct npu_override overrides[MAX_OP_FILES];
        size_t n_overrides;
        uint64_t rng;

        /* the optional LLM: llm.client NULL means rules only */
        struct episode_llm llm;
        char *llm_prompts_dir, *llm_model, *llm_embedding_model;
        struct llm_budget *llm_budget;
        struct llm_call *llm_call; /* in flight */
        bool llm_skip_once;        /* the last LLM step failed: rules propose this one */
        double exhausted_said[3];  /* the best's latency when a stage last logged it is spent */
        /*
         * a stage's candidates in a row served for a launch measured before
         * (the launch memo), since its last counted evaluation or the last
         * new best: at EPISODE_LAUNCH_HITS_IN_ROW the stage is spent, as its
         * search only finds what was measured (an operator whose genes
         * change nothing it runs), and each probe costs a build
         */
        int launch_hits_in_row[3];
        bool pending_llm; /* the candidate in flight is an LLM's answer */
        /*
         * the candidate in flight rewrites the best pair's texts (an LLM's
         * answer or a structural tiling move): when it wins it is adopted
         * as a rewrite, with the genes found again in it
         */
        bool pending_rewrite;
        char pending_move[160]; /* the structural move(s) of the candidate in flight */
        int llm_failures;       /* calls in a row that got no answer */
        char *llm_note;         /* the answer's own words about its change */
        json_t *llm_entries;    /* experience entry ids the refiner was given */
        json_t *dense;          /* dense retrieval for dense_for (a best's identity) */
        char *dense_for;
        json_t *embed_ids; /* the entries being embedded */
        bool embed_query;  /* the call in flight embeds the query */
        /* a finished episode run again: stop after as many candidates as it had,
         * so that the deterministic replay is all memo hits; 0: not a replay */
        size_t replay_rows;
        struct dtype_gate *dtypes; /* the dtype gate (episode-dtypes.c); NULL: none */
};

static inline bool episode_uses_stage1(const struct episode *ep)
{
        return ep->options.strategy != EPISODE_STAGE2 &&
               ep->options.strategy != EPISODE_STAGE2_RANDOM;
}
static inline bool episode_uses_stage2(const struct episode *ep)
{
        return ep->options.strategy != EPISODE_STAGE1 && ep->options.strategy != EPISODE_BON;
}

/*
 * Stage I and Best-of-N search one space: the genes of the tiling program
 * and, for every structural tiling move that applies to the operator as it
 * is on disk, a move gene (no file; named "move:" and the move) whose value
 * says at which of its sites the move is made, 0 for none.  A genome's
 * candidate is its gene values written into the gene files, then its moves
 * made in table order (a move can open the next one's site).  A move that
 * takes a gene's literal away makes that gene's value irrelevant; the memo
 * answers the duplicates.  So a move is searched together with the genes
 * it leaves, instead of being judged at a genome tuned without it.
 */
#define MOVE_GENE_PREFIX "move:"

static inline bool episode_is_move_gene(const struct gene *g)
{
        return g->file[0] == '\0' &&
               strncmp(g->name, MOVE_GENE_PREFIX, strlen(MOVE_GENE_PREFIX)) == 0;
}

/* episode.c: the phase machine */
void episode_clear_candidate(struct episode *ep);
void episode_free(struct episode *ep);
void episode_finish(struct episode *ep, const char *state, const char *error_kind,
                    const char *message);
int episode_evaluate(struct episode *ep, uint64_t seed, const json_t *reference, bool keep,
                     bool bypass_memo, bool with_overrides);
void episode_finish_out_of_time(struct episode *ep);
/* Ends the episode when it was stopped, cancelled or ran out of time; true then. */
bool episode_interrupted(struct episode *ep);
void episode_next_candidate(struct episode *ep);
void episode_on_evaluated(json_t *result, bool memo_hit, void *userdata);
/* Records a would-be best the dtype gate checked (ownership of result passes), and goes on. */
void episode_record_checked(struct episode *ep, json_t *result, bool memo_hit);

/* episode-record.c: the record */
struct op_file *episode_file_named(struct episode *ep, const char *path);
int episode_persist(struct episode *ep);
int episode_counter(struct episode *ep, const char *name);
void episode_bump(struct episode *ep, const char *name);
void episode_bump_in(struct episode *ep, const char *outer, const char *middle, const char *inner);
void episode_report_progress(struct episode *ep, const char *what, int stage, const json_t *result,
                             bool new_best);
json_t *episode_genome_json(const struct episode *ep, const int64_t *values);
const json_t *episode_best_summary(struct episode *ep);
/* The genes as the record lists them; NULL when out of memory. */
json_t *episode_genes_json(const struct episode *ep);
bool episode_resume(struct episode *ep, json_t *old);

/* episode-stage1.c: Stage I */
int episode_load_files(struct episode *ep);
size_t episode_relocate_genes(struct episode *ep, const char *path, const char *old_text,
                              const char *new_text);

int episode_add_move_genes(struct episode *ep);
void episode_build_overrides(struct episode *ep);
int episode_write_genome(struct episode *ep, const int64_t *values);
size_t episode_best_file_set(struct episode *ep, struct motif_file *set);
int episode_propose_stage1(struct episode *ep);
void episode_adopt_genome(struct episode *ep, bool gene_files_only);
void episode_shape_facts(const struct npu_manifest *manifest, struct search_options *options);
void episode_note_constraints(struct episode *ep);

/* episode-stage2.c: Stage II */
const json_t *episode_dense_for_best(struct episode *ep);
void episode_plan_overflow_repair(struct episode *ep);
int episode_propose_stage2(struct episode *ep);
/* Why the plan for the current best is spent, once episode_propose_stage2 said -ENOSPC. */
void episode_stage2_spent(struct episode *ep, char *buf, size_t size);
void episode_adopt_rewrite(struct episode *ep, double latency);
void episode_accept_stage2(struct episode *ep, double latency);

/* episode-dtypes.c: the dtype gate (issue #26) */
/* After the baseline: reads the OpDef and runs the baseline on its other
 * dtype combinations; false when there is nothing to wait for (the caller
 * goes on), true when the search goes on once that is done. */
bool episode_dtypes_begin(struct episode *ep);
/* A would-be best (owned by the gate when it returns true) runs those the baseline passes. */
bool episode_dtypes_gate(struct episode *ep, json_t *result, bool memo_hit);
/* A result of PHASE_DTYPES or PHASE_GATE. */
void episode_dtypes_on_evaluated(struct episode *ep, json_t *result, bool memo_hit);
/* Cancels the OpDef's reading in flight (its callback ends the episode); false: none. */
bool episode_dtypes_cancel(struct episode *ep);
void episode_dtypes_free(struct episode *ep);
/* episode-coverage.c: genes only where a choice is */
/* The literals the gene finder looked at, as the record lists them; NULL when out of memory. */
json_t *episode_literals_json(const struct episode *ep);
/* Sets the record's "literals" (and "literals_more"). */
void episode_record_literals(struct episode *ep);
/*
 * After the baseline: freezes the genes no case runs (cached in the record
 * under the baseline's identity), then the search goes on.  Starts the
 * coverage as PHASE_COVERAGE, whose result episode_on_coverage() takes.
 */
void episode_coverage_start(struct episode *ep);
void episode_on_coverage(struct episode *ep, json_t *result);
/* Whether the candidate's texts change a frozen literal; why says which. */
bool episode_changes_frozen(struct episode *ep, char *why, size_t why_size);

/* episode-frozen.c: a literal of disk (at byte start) kept as written in text */
bool episode_literal_kept(const char *disk, size_t start, const char *text);

/* episode-llm.c: the LLM and dense retrieval */
/* The record's "llm", made on first use; NULL (logged) when out of memory. */
json_t *episode_llm_record(struct episode *ep);
bool episode_llm_wanted(struct episode *ep, int stage);
int episode_llm_propose(struct episode *ep, int stage);
void episode_deliver_stopped(struct episode *ep);
void episode_on_llm_built(struct episode *ep, json_t *result);
void episode_llm_recorded(struct episode *ep, json_t *step, bool ok, bool new_best);
bool episode_embed_wanted(struct episode *ep);
int episode_embed_start(struct episode *ep, bool query);

#endif
