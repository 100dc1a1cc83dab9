/* SPDX-License-Identifier: MIT */
/*
 * The scan of an operator's files and the site builder, private to
 * optimizer/: how a motif's scanner (motif-*.c) or a tiling move
 * (tiling-moves.c, run as a forward-only motif) reads the files through
 * cxx/'s statement view and records each place it applies with the byte
 * edits that apply it.  Implemented in motif.c, whose motif_detect() and
 * motif_apply() run the scanners.
 */
#ifndef ASCENDOPT_SITES_INTERNAL_H
#define ASCENDOPT_SITES_INTERNAL_H

#include "optimizer.h"
#include "cxx/cxx.h"

#include <stdarg.h>

/* ---- the scan: the operator's files, and the sites found on them */

struct motif_edit {
        size_t file;
        size_t start, len;
        char *text;
};

struct motif_found {
        struct motif_site site;
        struct motif_edit *edits;
        size_t n_edits;
};

struct motif_scan {
        struct cxx_file *files; /* each C++ source tokenized; other files text only */
        size_t n_files;
        size_t kernel;  /* index of the op_kernel file */
        bool auto_sync; /* from ascendopt.json when it is in the set; true otherwise */
        struct motif_found *found;
        size_t n_found, cap;
        /* the site being built */
        bool open;
        bool failed;
        struct motif_found cur;
        size_t cur_cap;
};

/* Whether a file of the scan is C++ source under op_kernel/ (op_host/). */
bool scan_is_kernel(const struct cxx_file *f);
bool scan_is_host(const struct cxx_file *f);

/* ---- statements with the scan at hand (cxx/cxx.h has the rest of the view) */
typedef int (*motif_stmt_fn)(struct motif_scan *scan, struct cxx_file *f,
                             const struct cxx_func *funcs, const struct cxx_stmt *stmt,
                             void *userdata);
/* cxx_walk_statements with the scan at hand, for a scanner that edits f. */
int walk_statements(struct motif_scan *scan, struct cxx_file *f, motif_stmt_fn fn, void *userdata);

/* ---- sites: where a scanner applies, and the byte edits that apply it */
void site_begin(struct motif_scan *scan, struct cxx_file *f, size_t tok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void site_edit(struct motif_scan *scan, struct cxx_file *f, size_t start, size_t len,
               const char *text);
void site_editf(struct motif_scan *scan, struct cxx_file *f, size_t start, size_t len,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Replaces tokens [a, b] with text. */
void site_replace(struct motif_scan *scan, struct cxx_file *f, size_t a, size_t b,
                  const char *text);
/* Removes statement [first, last], with its line when nothing else is on it. */
void site_delete_stmt(struct motif_scan *scan, struct cxx_file *f, size_t first, size_t last);
/* Inserts a line holding text before the statement starting at first, indented like it. */
void site_insert_before(struct motif_scan *scan, struct cxx_file *f, size_t first,
                        const char *text);
/* Inserts a line holding text after the statement [first, last], indented like it. */
void site_insert_after(struct motif_scan *scan, struct cxx_file *f, size_t first, size_t last,
                       const char *text);
void site_fail(struct motif_scan *scan);
int site_end(struct motif_scan *scan);
/* Whether a site already holds an edit starting at pos in file f. */
bool site_exists_at(const struct motif_scan *scan, const struct cxx_file *f, size_t pos);

/* A new string, formatted; NULL when out of memory (site_edit() then fails the site). */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the host's tiling function (tiling-moves.c), for scanners that edit it too */
struct tiling_fn {
        size_t open, close; /* the body's braces */
        char context[64];   /* the gert::TilingContext parameter's name */
};
/*
 * The first tiling function of a host file whose body opens after token
 * after (CXX_NONE: any): a function whose body calls SetBlockDim and whose
 * parameter is a TilingContext pointer.
 */
bool tiling_function_after(const struct cxx_file *f, size_t after, struct tiling_fn *ret);
/* Adds #include of header after the file's last #include when it has none of it. */
void ensure_include(struct motif_scan *scan, struct cxx_file *f, const char *header);
#define PLATFORM_HEADER "tiling/platform/platform_ascendc.h"

#endif
