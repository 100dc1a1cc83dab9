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

/* Serialises the whole state: population, RNG, credits, failure memory; NULL: out of memory. */
json_t *search_to_json(const struct search *search);
/* Restores a state written by search_to_json for the same genes. */
int search_from_json(struct search *search, const json_t *state);

#endif
