/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the motif files and the tiling moves (which
 * run as forward-only motifs), on top of cxx/'s statement view of C++:
 * the scan of an operator's files, AscendC's declarations and vector
 * APIs, and the site builder through which a scanner records where it
 * applies and the byte edits that apply it.
 */
#ifndef ASCENDOPT_MOTIFS_INTERNAL_H
#define ASCENDOPT_MOTIFS_INTERNAL_H

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

/* ---- statements (cxx/cxx.h has the rest of the view) */
typedef int (*motif_stmt_fn)(struct motif_scan *scan, struct cxx_file *f,
                             const struct cxx_func *funcs, const struct cxx_stmt *stmt,
                             void *userdata);
/* cxx_walk_statements with the scan at hand, for a scanner that edits f. */
int walk_statements(struct motif_scan *scan, struct cxx_file *f, motif_stmt_fn fn, void *userdata);
/* Whether the token at name is one of AscendC's vector instructions (Add, Muls, ...). */
bool is_vector_api(const struct cxx_file *f, size_t name);

/* ---- AscendC declarations */
/*
 * Finds the declaration of name as "Kind<...> ... name" (Kind one of
 * GlobalTensor, LocalTensor, TQue, TQueBind, TBuf) within [a, b].
 * *ret_kind is the Kind token, *ret_lt its '<', *ret_decl the name token;
 * *ret_first and *ret_last bound the declaration statement.  false when
 * not found.
 */
struct motif_decl {
        size_t kind, lt, gt, name, first, last;
        size_t n_declarators;
};
bool decl_find(const struct cxx_file *f, size_t a, size_t b, const char *name, size_t name_len,
               struct motif_decl *ret);
/* Like decl_find over the token at i's name, function first, then file. */
bool decl_of(const struct cxx_file *f, const struct cxx_func *func, size_t ident,
             struct motif_decl *ret);
bool decl_is(const struct cxx_file *f, const struct motif_decl *d, const char *kind);

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

char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the motifs' scanners */
int motif_double_buffer_forward(struct motif_scan *scan);
int motif_double_buffer_inverse(struct motif_scan *scan);
int motif_barriers_forward(struct motif_scan *scan);
int motif_barriers_inverse(struct motif_scan *scan);
int motif_aiv_only_forward(struct motif_scan *scan);
int motif_aiv_only_inverse(struct motif_scan *scan);
int motif_l2_bypass_forward(struct motif_scan *scan);
int motif_l2_bypass_inverse(struct motif_scan *scan);
int motif_bank_pad_forward(struct motif_scan *scan);
int motif_bank_pad_inverse(struct motif_scan *scan);
int motif_tbuf_forward(struct motif_scan *scan);
int motif_tbuf_inverse(struct motif_scan *scan);
int motif_pad_copy_forward(struct motif_scan *scan);
int motif_pad_copy_inverse(struct motif_scan *scan);
int motif_strided_copy_forward(struct motif_scan *scan);
int motif_strided_copy_inverse(struct motif_scan *scan);
int motif_balance_forward(struct motif_scan *scan);
int motif_balance_inverse(struct motif_scan *scan);
int motif_vectorize_forward(struct motif_scan *scan);
int motif_vectorize_inverse(struct motif_scan *scan);
int motif_hoist_forward(struct motif_scan *scan);
int motif_hoist_inverse(struct motif_scan *scan);
int motif_axpy_forward(struct motif_scan *scan);
int motif_axpy_inverse(struct motif_scan *scan);
int motif_inplace_forward(struct motif_scan *scan);
int motif_inplace_inverse(struct motif_scan *scan);

#endif
