/* SPDX-License-Identifier: MIT */
/*
 * Private to the gene finders: genes.c finds the plain literals
 * (initialisers, #define values, SetBlockDim arguments, @tune markers),
 * calls genes-hidden.c for the choices real tiling programs hide in
 * expressions and setter calls, and asks genes-fixed.c whether a literal
 * about to become a gene names something fixed (a tiling key, a dtype's
 * byte width, an enum-like selector) and must stay as written; genes-scan.c
 * reads the whole operator first, so what its files say about how its
 * constants are used is known to every file.
 */
#ifndef ASCENDOPT_OPTIMIZER_GENES_INTERNAL_H
#define ASCENDOPT_OPTIMIZER_GENES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxx/cxx.h"

#include "genes.h"

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

/*
 * The uses of names across an operator's files: the names a tiling key is
 * made of (SetTilingKey's arguments and, transitively, what is assigned to
 * them; the kernel's TILING_KEY_IS arguments), the names compared with ==,
 * != or used as case labels, the names passed as an input, output,
 * attribute or dimension index, and the kernel's TILING_KEY_IS numbers.
 */
struct gene_uses;

int gene_uses_new(struct gene_uses **ret);
struct gene_uses *gene_uses_free(struct gene_uses *uses);
/*
 * Reads one file's tokens (op_host, or op_kernel with kernel set) into
 * uses; 0 or -ENOMEM.  gene_uses_close() must follow the last file.
 */
int gene_uses_learn(struct gene_uses *uses, const struct token_list *list, bool kernel);
/* Follows assignments back from the tiling key's names to everything it is made of. */
int gene_uses_close(struct gene_uses *uses);

/*
 * Whether the literal at token i of list, about to become the gene name =
 * value, has a fixed meaning: the reason ("tiling key (SetTilingKey)",
 * "dtype byte width", "enum-like selector (compared with ==)" ...), a
 * static string, or NULL when it is a choice.  uses may be NULL (names
 * and the literal's own place decide alone).
 */
const char *gene_fixed_meaning(const struct gene_uses *uses, const struct token_list *list,
                               size_t i, const char *name, int64_t value);

/*
 * Scans one file's text for genes (appended to *genes), judging fixed
 * meanings with uses (NULL: from names and places alone), and notes every
 * literal looked at into literals (NULL: none).  optimizer/genes.c.
 */
int genes_scan_text(const char *file, const char *text, size_t len, const struct gene_uses *uses,
                    struct gene **genes, size_t *n, struct gene_literals *literals, char *err,
                    size_t err_size);

/*
 * Notes a literal looked at: a gene (taken), one with a fixed meaning or
 * in code no case runs (frozen), or neither, with why.  Past
 * GENE_LITERALS_MAX only counted; literals NULL: nothing.  0 or -ENOMEM.
 * optimizer/genes-scan.c.
 */
int gene_literal_note(struct gene_literals *literals, const char *file, const struct token *t,
                      const struct gene *g, const char *why, bool taken, bool frozen);

/*
 * Judges the genes from first on, found by another finder (genes-hidden.c)
 * in the file of list: one with a fixed meaning is dropped from genes and
 * noted frozen, the others are noted taken.  optimizer/genes-fixed.c.
 */
int genes_judge_found(const char *file, const struct token_list *list, const struct gene_uses *uses,
                      struct gene *genes, size_t *n, size_t first, struct gene_literals *literals);

#endif
