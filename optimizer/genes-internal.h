/* SPDX-License-Identifier: MIT */
/*
 * Private to the gene finder (optimizer/genes.c, the whole operator in
 * optimizer/genes-scan.c) and its judge of fixed meanings
 * (optimizer/genes-fixed.c): what an operator's files say about
 * how its constants are used, and the decision, for a literal about to
 * become a gene, that it names something fixed (a tiling key, a dtype's
 * byte width, an enum-like selector) and must stay as written.
 */
#ifndef ASCENDOPT_OPTIMIZER_GENES_INTERNAL_H
#define ASCENDOPT_OPTIMIZER_GENES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxx/cxx.h"

#include "genes.h"

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

#endif
