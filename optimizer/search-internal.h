/* SPDX-License-Identifier: MIT */
/*
 * Private to Stage I's search (search.c, search-constraints.c): learning
 * the constraints of one gene from the genomes that passed and the
 * failures blamed on it.
 */
#ifndef ASCENDOPT_SEARCH_INTERNAL_H
#define ASCENDOPT_SEARCH_INTERNAL_H

#include "optimizer.h"

/*
 * A failing genome as one gene sees it: that gene's value, how it failed,
 * and whether a genome that differs from it in that gene alone passed.
 */
struct constraint_failure {
        int64_t value;
        const char *kind;
        bool blamed;
};

/*
 * The constraints of gene (index g) that explain failures, given the
 * distinct values the gene had in passing genomes (the baseline's value
 * counts as one), as search.h describes; at most room of them into out.
 * Returns how many.  Genes of an unknown scale learn nothing.
 */
size_t constraints_learn(const struct gene *gene, size_t g, const int64_t *passing,
                         size_t n_passing, const struct constraint_failure *failures,
                         size_t n_failures, const int64_t *facts, size_t n_facts,
                         struct search_constraint *out, size_t room);

#endif
