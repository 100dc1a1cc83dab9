/* SPDX-License-Identifier: MIT */
/*
 * Kernel motifs (Stage II's rewrites, each with its inverse for rewind)
 * and the structural tiling moves of Stage I.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_MOTIF_H
#define ASCENDOPT_OPTIMIZER_MOTIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "genes.h"

struct event_base;
struct store;
struct store_batch;

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
        /* the scanner reads every file itself (a tiling move): run once, not once per kernel file */
        bool whole_operator;
};

/* The motif table: motif_at(i) for i < motif_count(); NULL past the end. */
size_t motif_count(void);
const struct motif *motif_at(size_t i);
/* The motif named name, or NULL. */
const struct motif *motif_find(const char *name);

/*
 * Detects where motif applies in direction: *ret_sites (malloc'd, free()
 * it; NULL when none) in a deterministic order, so that a site index
 * stays valid for motif_apply on the same files.  Every op_kernel/
 * source of the set is scanned, the first file's sites first; the set
 * must hold at least one.  -EINVAL when there is none or a file cannot be
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

#endif
