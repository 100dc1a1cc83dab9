/* SPDX-License-Identifier: MIT */
/*
 * What the gene finders share, private to optimizer/: genes.c finds the
 * plain literals (initialisers, #define values, SetBlockDim arguments,
 * @tune markers) and calls genes-hidden.c for the choices real tiling
 * programs hide in expressions and setter calls.
 */
#ifndef ASCENDOPT_GENES_INTERNAL_H
#define ASCENDOPT_GENES_INTERNAL_H

#include "optimizer.h"
#include "cxx/cxx.h"

/* Parses an integer literal token (decimal or hex, separators, u/l suffixes). */
bool gene_parse_literal(const char *s, size_t len, int64_t *ret);

/*
 * The range genes.c gives an unmarked literal of g->value: a sixteenth to
 * sixteen times, at powers of two, multiples of 32 or every integer
 * (count: the literal counts something, so it is never searched as a size).
 */
void gene_infer_range(struct gene *g, bool count);

/*
 * Whether a name says it holds a core count (aivNum, coreNum, usedCoreNum,
 * BLOCK_DIM) rather than a per-core amount (rowsPerCore, singleCoreM):
 * such a literal is the cores_from_platform move's site.
 */
bool gene_name_is_core_count(const char *name, size_t len);

/*
 * Appends to *genes the genes the tiling program in f (the file named
 * file) hides in expressions and setter calls (genes-hidden.c).  The genes
 * from first_new on are this file's, found already: a literal they hold is
 * not found twice, and a rows-per-tile constant among them gets the range
 * of one.  -E2BIG past GENES_MAX (err says so), -ENOMEM.
 */
int genes_find_hidden(const char *file, const struct cxx_file *f, struct gene **genes, size_t *n,
                      size_t first_new, char *err, size_t err_size);

#endif
