/* SPDX-License-Identifier: MIT */
/*
 * Stage I's search over genes: proposals, the record of what was tried,
 * and the best so far.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_SEARCH_H
#define ASCENDOPT_OPTIMIZER_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "genes.h"

struct event_base;
struct store;
struct store_batch;

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
        /*
         * the first population: the baseline with a few genes drawn at
         * random (one, a second with a chance of one in four, and so on), so that on a
         * program of many genes a seed breaks few things and a failure is
         * blamed on the gene it changed; not an arm of the bandit
         */
        TECHNIQUE_SCATTER,
        TECHNIQUE_COUNT,
};

const char *search_technique_name(enum search_technique t);

struct search;

#define SEARCH_FACTS_MAX 64

struct search_options {
        uint64_t seed;
        size_t population; /* 0: 16, the first half of it scattered around the baseline */
        bool random_only;  /* Best-of-N: every proposal is TECHNIQUE_RANDOM */
        /*
         * Quantities of the problem a gene may have to divide: the case
         * shapes' dimensions, row counts and element counts
         * (episode_shape_facts).  None: constraints are learnt from the
         * values alone (alignment and bounds).
         */
        int64_t facts[SEARCH_FACTS_MAX];
        size_t n_facts;
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
 * A gene that changes no text while a move takes a site: a move that
 * reads the core count from the platform leaves the hard-coded count it
 * replaced nothing to do.  A proposal holds such a gene at its value as
 * written, so the search neither measures the same candidate under other
 * names nor takes those for passes of the gene's other values (which
 * would drop what its failures taught).
 */
struct search_inert {
        size_t move; /* the move's gene */
        int64_t site;
        size_t gene;
};

/* inert is borrowed (n entries) and read at each proposal; NULL: none. */
void search_set_inert(struct search *search, const struct search_inert *inert, size_t n);

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

/*
 * Whether the next genome proposed (and the one proposed last, until it is
 * recorded) is a draw of the first population, which is seeded around the
 * baseline before the ensemble of moves takes over.
 */
bool search_drawing_first_population(const struct search *search);

/* The best genome so far (NULL before any success) and its latency. */
const int64_t *search_best(const struct search *search, double *ret_latency_us);

/*
 * Which way gene g overflows the UB, as learnt from the genomes that did:
 * +1 when they mostly held it above the first genome that worked (a
 * bigger tile overflows), -1 when below (fewer UB parts overflow), 0 when
 * there is no such evidence or it is mixed.  Unordered genes give 0.
 */
int search_overflow_direction(const struct search *search, size_t g);

/*
 * What the search learnt from genomes that failed (answered wrong,
 * crashed, read past a tensor, failed their tiling, overflowed the UB: any
 * failure but a timeout, a slow run or an infrastructure error).  A failing genome is blamed on gene g when a genome differing
 * from it in g alone passed.  The hypotheses about an ordered gene are
 *   divides N      N one of the facts (a dimension, a row or element count)
 *   multiple_of N  N a power of two (an alignment)
 *   max N, min N   the largest (smallest) value on the gene's scale short
 *                  of the failures above (below) every passing value
 * and those that explain every failure blamed on the gene, and that no
 * passing genome (nor the baseline) breaks, are kept, less any whose
 * values another one's include: the constraint is that a value keeps one
 * of them, so nothing is ruled out that a hypothesis still standing allows
 * ("TILE_LEN must divide 2048 or be a multiple of 256" narrows to "must
 * divide 1024" as 384, 768 and 2048 fail).  An unordered gene's (a move's)
 * constraint is "not N" for a value N.  A constraint needs two blamed
 * failures, or one that a fact's divisibility alone explains (no bound,
 * alignment or other fact does).  A gene that no value but the one as
 * written ever passed, and whose blamed failures no other hypothesis
 * explains (they lie on both sides of it, off every grid), learns "only N"
 * after two: a quantity of fixed meaning the freezing did not recognise
 * (a core count the kernel's indexing assumes, a per-core row count).  search_propose never proposes a genome that breaks a
 * constraint; a passing genome that breaks one (an outside proposal)
 * drops it.
 */
enum search_constraint_kind {
        CONSTRAINT_DIVIDES,
        CONSTRAINT_MULTIPLE_OF,
        CONSTRAINT_MAX,
        CONSTRAINT_MIN,
        CONSTRAINT_NOT,
        CONSTRAINT_ONLY, /* stays at N, the value as written */
};

#define SEARCH_CONSTRAINTS_MAX   64
#define SEARCH_CONSTRAINT_VALUES 6
#define SEARCH_CONSTRAINT_ANY    4 /* more hypotheses standing than this: nothing learnt yet */

struct search_constraint_rule {
        enum search_constraint_kind kind;
        int64_t n;
};

struct search_constraint {
        size_t gene;
        /*
         * coupled: the rules bound gene's value times gene `with`'s (a
         * tile count times a core count that a copy's alignment limits),
         * learnt where the gene's blamed failures had no rule of its own
         */
        bool coupled;
        size_t with;
        struct search_constraint_rule any[SEARCH_CONSTRAINT_ANY]; /* a value keeps one */
        size_t n_any;
        size_t failures; /* blamed failing genomes it explains */
        /* the distinct failing values it explains, the first few */
        int64_t values[SEARCH_CONSTRAINT_VALUES];
        size_t n_values;
        char kinds[64]; /* the failures' kinds, comma-separated */
};

const char *search_constraint_kind_name(enum search_constraint_kind kind);

/* The constraints learnt so far (borrowed until the next search_record). */
size_t search_constraints(const struct search *search, const struct search_constraint **ret);

/* Whether value v of gene c->gene (times gene c->with's, when coupled) keeps constraint c. */
bool search_constraint_allows(const struct search_constraint *c, int64_t v);

/* Whether a genome keeps every learnt constraint. */
bool search_allows(const struct search *search, const int64_t *values);

/* "TILE_LEN must divide 2048 (3 failures, wrong_answer: 384, 640, 768)" into buf. */
void search_constraint_describe(const struct search *search, const struct search_constraint *c,
                                char *buf, size_t size);

/*
 * The constraints as JSON: [{gene, name, kind, n, or: [{kind, n}] (the
 * other hypotheses, when there are), failures, values, kinds, text}];
 * NULL when out of memory.
 */
json_t *search_constraints_json(const struct search *search);

/* How many proposals a learnt constraint turned away. */
uint64_t search_constraint_rejections(const struct search *search);

/* Serialises the whole state: population, RNG, credits, failure memory; NULL: out of memory. */
json_t *search_to_json(const struct search *search);
/* Restores a state written by search_to_json for the same genes. */
int search_from_json(struct search *search, const json_t *state);

#endif
