/* SPDX-License-Identifier: MIT */
/*
 * Optimizer: the episodic agent (Stage I tiling evolution, Stage II
 * experience-guided kernel rewriting), the motifs it applies, rewind and
 * the experience bank.  Everything here works on tokens of C++ source, never
 * on regular expressions over raw text, so rewrites survive comments,
 * whitespace and macros.
 */
#ifndef ASCENDOPT_OPTIMIZER_H
#define ASCENDOPT_OPTIMIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct event_base;

struct store;
struct store_batch;

/* ------------------------------------------------------------ tokens */

enum token_kind {
        TOKEN_IDENTIFIER, /* also keywords */
        TOKEN_NUMBER,     /* integer or floating literal, with suffixes */
        TOKEN_STRING,     /* "..." including prefixes and raw strings */
        TOKEN_CHAR,       /* '...' */
        TOKEN_PUNCT,      /* operators and punctuation, longest match */
        TOKEN_COMMENT,    /* // and block comments, kept so rewrites preserve them */
        TOKEN_DIRECTIVE,  /* the '#' starting a preprocessor line */
};

struct token {
        enum token_kind kind;
        size_t start; /* byte offset into the text */
        size_t len;
        unsigned line;     /* 1-based */
        bool in_directive; /* part of a preprocessor line such as #define */
};

struct token_list {
        const char *text; /* borrowed: the tokens point into it */
        size_t text_len;
        struct token *tokens;
        size_t n;
};

#define TOKENS_MAX 1000000

/*
 * Splits C++ source into tokens.  Whitespace is dropped; comments are kept.
 * Line continuations inside directives are followed.  -EINVAL for an
 * unterminated comment, string or character literal (*ret_line says where),
 * -E2BIG past TOKENS_MAX tokens.
 */
int tokenize(const char *text, size_t len, struct token_list *ret, unsigned *ret_line);
void token_list_release(struct token_list *list);

/* Whether token i is the identifier or punctuation spelled s. */
bool token_is(const struct token_list *list, size_t i, const char *s);

/* Index of the next token after i that is not a comment, or list->n. */
size_t token_next(const struct token_list *list, size_t i);
/* Index of the previous token before i that is not a comment, or (size_t)-1. */
size_t token_prev(const struct token_list *list, size_t i);

/*
 * Index of the bracket that closes the one at i ('(', '[', '{' or '<' when
 * used as a template bracket is not handled: only the first three), or
 * list->n when unbalanced.
 */
size_t token_match(const struct token_list *list, size_t i);

/* ------------------------------------------------------------ edits */

/*
 * A set of replacements of byte ranges of one text, applied at once.
 * Ranges must not overlap; they may be added in any order.
 */
struct text_edit {
        size_t start, len;
        char *replacement;
};

struct text_edits {
        struct text_edit *edits;
        size_t n, cap;
};

int text_edits_add(struct text_edits *edits, size_t start, size_t len, const char *replacement);
/* Applies the edits to text; *ret is a new NUL-terminated string.  -EINVAL on overlap. */
int text_edits_apply(const struct text_edits *edits, const char *text, size_t len, char **ret);
void text_edits_release(struct text_edits *edits);

/* ------------------------------------------------------------ genes */

/* How a gene's value may move. */
enum gene_scale {
        GENE_STEP,    /* any integer in [lo, hi] */
        GENE_POW2,    /* powers of two in [lo, hi] */
        GENE_ALIGN32, /* multiples of 32 in [lo, hi] */
        GENE_CHOICE,  /* one of the integers in [lo, hi], unordered (a move's site, 0 none) */
};

/*
 * One tunable integer literal of the tiling program: where it is, what it
 * is called, and the range it may take.  Found in constexpr/const
 * initialisers, #define values, plain variable initialisers and
 * SetBlockDim(...) arguments, or marked explicitly with a comment
 * "@tune lo..hi [step|pow2|align32]" on its line.
 */
struct gene {
        char file[128];    /* relative to the operator directory */
        size_t start, len; /* the literal's bytes in that file */
        unsigned line;
        char name[64]; /* the variable or macro it initialises */
        int64_t value; /* as written in the baseline */
        int64_t lo, hi;
        enum gene_scale scale;
        bool marked; /* from an @tune marker */
};

#define GENES_MAX 256

/*
 * Finds the genes of the files in op_host/ of an operator directory.  When
 * any @tune marker exists, only marked literals are genes.  *ret_genes is
 * malloc'd; 0 genes is not an error.
 */
int genes_find(const char *opdir, struct gene **ret_genes, size_t *ret_n, char *err,
               size_t err_size);

/* Parses one file's text (named file in the result) for genes; appends to *genes. */
int genes_find_in_text(const char *file, const char *text, size_t len, struct gene **genes,
                       size_t *n, char *err, size_t err_size);

/* Clamps and snaps value to the gene's range and scale. */
int64_t gene_snap(const struct gene *gene, int64_t value);

/*
 * Rewrites the text of one file with the genes that belong to it (those
 * whose file equals file) set to values[i]; others are ignored.  *ret is a
 * new string.  -EINVAL if a gene's bytes no longer hold its literal.
 */
int genes_apply(const char *file, const char *text, size_t len, const struct gene *genes,
                const int64_t *values, size_t n, char **ret);

/* ------------------------------------------------------------ Stage I search */

/*
 * Evolutionary search over genomes (one value per gene): a population with
 * tournament selection, mutations (step, halve/double, align to 32 B,
 * random reset), uniform crossover and a one-gene sweep from the best
 * genome, combined by an AUC bandit that
 * credits whichever technique recently produced improvements (as OpenTuner
 * does).  Failed genomes are remembered: a proposal at least as large, gene
 * by gene, as one that overflowed UB is not made.  Deterministic for a
 * seed; the whole state round-trips through JSON so an episode can resume.
 */
enum search_technique {
        TECHNIQUE_MUTATE_STEP,
        TECHNIQUE_MUTATE_SCALE, /* halve or double */
        TECHNIQUE_MUTATE_ALIGN,
        TECHNIQUE_MUTATE_RESET,
        TECHNIQUE_CROSSOVER,
        TECHNIQUE_RANDOM, /* a whole random genome: what BoN does */
        /*
         * one gene swept across its values (all of them when it has at most
         * 16, else its best value times powers of two), nearest first, the
         * others held at the best genome
         */
        TECHNIQUE_SWEEP,
        TECHNIQUE_COUNT,
};

const char *search_technique_name(enum search_technique t);

struct search;

struct search_options {
        uint64_t seed;
        size_t population; /* 0: 16, the first half of it drawn at random */
        bool random_only;  /* Best-of-N: every proposal is TECHNIQUE_RANDOM */
};

/* genes (borrowed, must outlive the search); the baseline genome is their values. */
int search_new(const struct gene *genes, size_t n_genes, const struct search_options *options,
               struct search **ret_search);
struct search *search_free(struct search *search);

/*
 * Genes that no longer change any text (a rewrite took their literal
 * away): frozen[g] true keeps gene g at the best genome's value in every
 * proposal.  frozen is borrowed (n_genes entries) and read at each
 * proposal; NULL: none.
 */
void search_set_frozen(struct search *search, const bool *frozen);

/*
 * Proposes the next genome into values (n_genes entries), never one already
 * recorded, and says which technique made it.  -ENOSPC when no new genome
 * could be found (the space is exhausted).
 */
int search_propose(struct search *search, int64_t *values, enum search_technique *ret_technique);

/*
 * Records the outcome of a genome: ok with its latency, or a failure kind
 * (such as "ub_overflow" or "wrong_answer").  Returns true when it is a
 * new best.
 */
bool search_record(struct search *search, const int64_t *values, enum search_technique technique,
                   bool ok, double latency_us, const char *failure_kind);

/* The best genome so far (NULL before any success) and its latency. */
const int64_t *search_best(const struct search *search, double *ret_latency_us);

/*
 * Which way gene g overflows the UB, as learnt from the genomes that did:
 * +1 when they mostly held it above the first genome that worked (a
 * bigger tile overflows), -1 when below (fewer UB parts overflow), 0 when
 * there is no such evidence or it is mixed.  Unordered genes give 0.
 */
int search_overflow_direction(const struct search *search, size_t g);

/* Serialises the whole state: population, RNG, credits, failure memory. */
json_t *search_to_json(const struct search *search);
/* Restores a state written by search_to_json for the same genes. */
int search_from_json(struct search *search, const json_t *state);

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
        const char *status; /* the result's status */
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

/* ------------------------------------------------------------ experience */

/*
 * The experience bank: entries of <title, description, bottleneck, diff>
 * with the motif that produced them, kept in the store's experience family
 * under the SHA-256 of motif and diff (the same rewrite found twice is one
 * entry).  Retrieval ranks entries for a bottleneck signature with BM25
 * over the entry's signature tokens, title and description.
 */
#define EXPERIENCE_MAX_ENTRIES 100000

/*
 * Adds or updates an entry in batch.  entry is an object with at least
 * "title", "description", "bottleneck" and "diff" (strings); "motif",
 * "operator", "origin" ("rewind" or "episode"), "slowdown" and an
 * "embedding" array are kept when present.  *ret_id (may be NULL) gets its
 * id.  -EINVAL when a required field is missing.
 */
int experience_put(struct store_batch *batch, const json_t *entry, char ret_id[SHA256_HEX_SIZE]);

/* Every entry, in id order (a new array); -errno on a store error. */
int experience_list(struct store *store, json_t **ret_entries);

/*
 * The k entries whose text best matches query (usually a bottleneck
 * signature), best first, each with a "score"; ties keep id order.
 * Entries with no overlapping term are left out.
 */
int experience_retrieve(struct store *store, const char *query, size_t k, json_t **ret_entries);

/*
 * Adds every entry of a bank file ({"entries": [...]}, as 'ascendopt
 * experience export' writes) in one batch: all or nothing.  *ret_added
 * (may be NULL) gets the count.  -EINVAL for a malformed file or entry,
 * -E2BIG beyond EXPERIENCE_MAX_ENTRIES, -errno when it cannot be read;
 * the message in err names the file and the entry.
 */
int experience_import_file(struct store *store, const char *path, size_t *ret_added, char *err,
                           size_t err_size);

/* The text an entry is embedded from: its title, description and bottleneck (new string). */
char *experience_embedding_text(const json_t *entry);

/*
 * Stores n embeddings (dim floats each, row i for entry ids[i]) made by
 * model, in one synced batch.  -ENOENT when an id is not in the bank.
 */
int experience_set_embeddings(struct store *store, const char *const *ids, const float *vectors,
                              size_t n, size_t dim, const char *model);

/*
 * Dense retrieval: the k entries whose embedding by model is most similar
 * to query (dim floats) by cosine, best first, each with that "score" and
 * without its "embedding".  Entries not embedded by model are left out.
 */
int experience_retrieve_dense(struct store *store, const float *query, size_t dim,
                              const char *model, size_t k, json_t **ret_entries);

/* Counts a use of an entry and, when won, a win (a measured improvement). */
int experience_credit(struct store *store, const char *id, bool won);

/*
 * A unified diff from a to b, with three lines of context, headed
 * "--- a_name" and "+++ b_name"; "" when the texts are equal.  A new string.
 */
char *text_unified_diff(const char *a_name, const char *a, const char *b_name, const char *b);

/* ------------------------------------------------------------ motifs */

/*
 * A motif is a known kernel rewrite that works without an LLM: a detector
 * that says where it applies, a forward transform that optimizes and an
 * inverse transform that de-optimizes (rewind walks experts backwards with
 * it).  Both directions work on tokens and produce byte edits, so comments,
 * whitespace and macros of the rest of the source stay as they were.
 *
 * A motif works on a set of files of one operator, named relative to the
 * operator directory: the kernel (op_kernel/...) and, where a rewrite
 * must keep the tiling consistent, op_host/... files; ascendopt.json may
 * be passed too (auto_sync: false makes barrier removal more careful).
 * The caller passes the texts it has (Stage II: the candidate's current
 * op_kernel and op_host texts) and gets back only the files that changed,
 * in the shape of npu_override, applied together or not at all.
 */
enum motif_direction {
        MOTIF_FORWARD, /* optimize */
        MOTIF_INVERSE, /* de-optimize */
};

/* One file of an operator: path relative to the operator directory. */
struct motif_file {
        const char *path;
        const char *text; /* NUL-terminated */
};

/* Where a motif applies: the file, the 1-based line, and what would change. */
struct motif_site {
        char file[128];
        unsigned line;
        char what[192];
};

struct motif_scan;

struct motif {
        const char *name;        /* stable id, e.g. "double_buffer" */
        const char *title;       /* one line */
        const char *description; /* what it does, when it helps, what it needs */
        /* tokens of npu_signature_vocabulary this motif addresses, space separated */
        const char *bottleneck;
        /* scanners: find the sites of one direction and the edits of each */
        int (*forward)(struct motif_scan *scan);
        int (*inverse)(struct motif_scan *scan);
};

/* The motif table: motif_at(i) for i < motif_count(); NULL past the end. */
size_t motif_count(void);
const struct motif *motif_at(size_t i);
/* The motif named name, or NULL. */
const struct motif *motif_find(const char *name);

/*
 * Detects where motif applies in direction: *ret_sites (malloc'd, free()
 * it; NULL when none) in a deterministic order, so that a site index
 * stays valid for motif_apply on the same files.  The set must hold one
 * op_kernel/ file.  -EINVAL when there is none or a file cannot be
 * tokenized; 0 sites is not an error.
 */
int motif_detect(const struct motif *motif, enum motif_direction direction,
                 const struct motif_file *files, size_t n_files, struct motif_site **ret_sites,
                 size_t *ret_n);

#define MOTIF_ALL_SITES ((size_t)-1)

/*
 * Applies motif in direction at site (an index from motif_detect), or at
 * every site with MOTIF_ALL_SITES (one at a time, detecting again after
 * each, until none is left).  *ret_changed holds the files whose text
 * changed (paths and texts are new strings; free with motif_files_free).
 * -ENOENT when the site does not exist (or, for MOTIF_ALL_SITES, there is
 * none), -EINVAL as for motif_detect.
 */
int motif_apply(const struct motif *motif, enum motif_direction direction,
                const struct motif_file *files, size_t n_files, size_t site,
                struct motif_file **ret_changed, size_t *ret_n_changed);
void motif_files_free(struct motif_file *files, size_t n);

/* Shorthands for a lone kernel text (named op_kernel/kernel.cpp). */
int motif_detect_text(const struct motif *motif, enum motif_direction direction, const char *text,
                      struct motif_site **ret_sites, size_t *ret_n);
/* *ret_text is the new kernel text (a new string), even when unchanged. */
int motif_apply_text(const struct motif *motif, enum motif_direction direction, const char *text,
                     size_t site, char **ret_text);

/* ------------------------------------------------------------ tiling moves */

/*
 * Stage I's structural tiling moves: rewrites of the host tiling function
 * that no gene value can express, such as a fixed core count replaced by
 * the platform's, blockDim capped by the problem size, or the tile derived
 * from the UB capacity over the kernel's live buffers.  A move works like
 * a forward-only motif on an operator's op_host/ and op_kernel/ texts (the
 * kernel is read, never changed): the detector lists its sites (variants
 * of one rewrite count as sites), the transform gives the changed host
 * files.  Applying a move where it applied removes what it detects, so a
 * move applies once.
 */
struct motif_scan;

struct tiling_move {
        const char *name;        /* stable id, the trajectory's "technique" */
        const char *description; /* one line */
        int (*scan)(struct motif_scan *scan);
};

/* The move table: tiling_move_at(i) for i < tiling_move_count(); NULL past the end. */
size_t tiling_move_count(void);
const struct tiling_move *tiling_move_at(size_t i);
/* The move named name, or NULL. */
const struct tiling_move *tiling_move_find(const char *name);

/*
 * Where move applies to files (as motif_detect: one op_kernel/ file
 * required, -EINVAL otherwise or when a file cannot be tokenized).
 * *ret_sites is malloc'd, NULL when none; the order is deterministic.
 */
int tiling_move_detect(const struct tiling_move *move, const struct motif_file *files,
                       size_t n_files, struct motif_site **ret_sites, size_t *ret_n);

/*
 * Applies move at site (an index from tiling_move_detect on the same
 * files); *ret_changed holds the changed files (free with
 * motif_files_free).  -ENOENT for a site that does not exist, -EINVAL as
 * for tiling_move_detect or for MOTIF_ALL_SITES (variants exclude each other).
 */
int tiling_move_apply(const struct tiling_move *move, const struct motif_file *files,
                      size_t n_files, size_t site, struct motif_file **ret_changed,
                      size_t *ret_n_changed);

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
