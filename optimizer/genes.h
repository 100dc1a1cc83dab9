/* SPDX-License-Identifier: MIT */
/*
 * Stage I's genes: the numeric choices of a tiling program (tile sizes,
 * buffer counts, core counts) read from its source and written back.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_GENES_H
#define ASCENDOPT_OPTIMIZER_GENES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct event_base;
struct store;
struct store_batch;

/* ------------------------------------------------------------ genes */

/* How a gene's value may move. */
enum gene_scale {
        GENE_STEP,    /* any integer in [lo, hi] */
        GENE_POW2,    /* powers of two in [lo, hi] */
        GENE_ALIGN32, /* multiples of 32 in [lo, hi] */
        GENE_CHOICE,  /* one of the integers in [lo, hi], unordered (a move's site, 0 none) */
};

/*
 * A further literal that always holds its gene's value plus delta: the
 * second M of "x / M * M", the M - 1 of "(x + M - 1) / M * M".  Its bytes
 * start offset bytes after the gene's literal (before it when negative).
 */
struct gene_twin {
        long offset;
        size_t len;
        int64_t delta;
};

#define GENE_TWINS_MAX 4

/*
 * One tunable integer literal of the tiling program: where it is, what it
 * is called, and the range it may take.  Found in constexpr/const
 * initialisers, #define values, plain variable initialisers and
 * SetBlockDim(...) arguments, or marked explicitly with a comment
 * "@tune lo..hi [step|pow2|align32]" on its line; and where real programs
 * hide their choices (optimizer/genes-hidden.c): set_<field>(...)
 * arguments, the factors of a UB budget, the multiple a share or a tile is
 * rounded to, the rows per tile.
 */
struct gene {
        char file[128];    /* relative to the operator directory */
        size_t start, len; /* the literal's bytes in that file */
        unsigned line;
        char name[64]; /* the variable or macro it initialises */
        int64_t value; /* as written in the baseline */
        int64_t lo, hi;
        enum gene_scale scale;
        bool marked;                            /* from an @tune marker */
        struct gene_twin twins[GENE_TWINS_MAX]; /* literals written with this one */
        size_t n_twins;
};

#define GENES_MAX 256

/*
 * One integer literal in a knob's place (an initialiser, a #define value,
 * a SetBlockDim argument, an @tune line) and whether it became a gene:
 * why, or why not.  A frozen one has a fixed meaning (a tiling key, a
 * dtype's byte width, an enum-like selector; optimizer/genes-fixed.c) or
 * runs in no case of the manifest: no candidate may change it.
 */
struct gene_literal {
        char file[128]; /* relative to the operator directory */
        size_t start, len;
        unsigned line;
        char name[64];
        int64_t value;
        bool taken;
        bool frozen;
        char why[64]; /* "tile size or factor", "tiling key (SetTilingKey)", ... */
};

#define GENE_LITERALS_MAX 1024

/* The literals a scan looked at, in file order; past GENE_LITERALS_MAX only counted. */
struct gene_literals {
        struct gene_literal *items;
        size_t n;
        size_t more;
};

void gene_literals_release(struct gene_literals *literals);

/*
 * Finds the genes of the files in op_host/ of an operator directory.  When
 * any @tune marker exists, only marked literals are genes.  *ret_genes is
 * malloc'd; 0 genes is not an error.
 */
int genes_find(const char *opdir, struct gene **ret_genes, size_t *ret_n, char *err,
               size_t err_size);

/*
 * genes_find, and every literal looked at into *literals (released by the
 * caller, also on failure) with the reason it was or was not taken.  The
 * uses of names across op_host/ and the kernel's TILING_KEY_IS decide
 * which literals have a fixed meaning.
 */
int genes_scan(const char *opdir, struct gene **ret_genes, size_t *ret_n,
               struct gene_literals *literals, char *err, size_t err_size);

/*
 * Parses one file's text (named file in the result) for genes; appends to
 * *genes.  Fixed meanings are judged from this text alone.
 */
int genes_find_in_text(const char *file, const char *text, size_t len, struct gene **genes,
                       size_t *n, char *err, size_t err_size);

/* Clamps and snaps value to the gene's range and scale. */
int64_t gene_snap(const struct gene *gene, int64_t value);

/*
 * Whether a gene's name (its last part, case and underscores aside) says
 * it is the size of a tile: TILE_LENGTH, tileLen, TILE_BYTES, TileSize,
 * TILE_ELEMS.  A bigger tile takes more UB.
 */
bool gene_name_is_tile_size(const char *name);

/*
 * Rewrites the text of one file with the genes that belong to it (those
 * whose file equals file) set to values[i]; others are ignored.  *ret is a
 * new string.  -EINVAL if a gene's bytes no longer hold its literal.
 */
int genes_apply(const char *file, const char *text, size_t len, const struct gene *genes,
                const int64_t *values, size_t n, char **ret);

#endif
