/* SPDX-License-Identifier: MIT */
/*
 * Private to the motif files (motif*.c): what their scanners share on top
 * of the scan and site builder (sites-internal.h) and cxx/'s statement
 * view: AscendC's vector instructions and tensor and queue declarations,
 * and the scanners themselves, which motif.c's table lists.
 */
#ifndef ASCENDOPT_MOTIFS_INTERNAL_H
#define ASCENDOPT_MOTIFS_INTERNAL_H

#include "sites-internal.h"

/* ---- AscendC's vector instructions */
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
/* The element type of the LocalTensor named by token i ("float"; a new string), or NULL. */
char *local_tensor_type(const struct cxx_file *f, const struct cxx_func *func, size_t i);
/*
 * Gives the declaration d the type text ("TQue<QuePosition::VECIN, 2>"):
 * in place when it declares d alone, else as a line of its own after the
 * list it leaves.
 */
void site_redeclare(struct motif_scan *scan, struct cxx_file *f, const struct motif_decl *d,
                    const char *type);
/* Whether token i assigns: =, a compound assignment, ++ or --. */
bool tok_assigns(const struct cxx_file *f, size_t i);
/* Whether tokens a and b are spelled alike (false when either is CXX_NONE). */
bool tok_same(const struct cxx_file *f, size_t a, size_t b);
/* How often the identifier spelled like token name occurs in [a, b]. */
size_t ident_count(const struct cxx_file *f, size_t a, size_t b, size_t name);
/* The innermost '{' enclosing token i, or CXX_NONE. */
size_t block_enclosing(const struct cxx_file *f, size_t i);

/* ---- queues */

/* The depth and InitBuffer tokens a site changed already: queues declared together share them. */
struct queue_edits {
        size_t tokens[16];
        size_t n;
};
/*
 * Makes queue q hold two tensors where it holds one: its TQue's depth and
 * its InitBuffer's count (a literal 1, a constant defined as 1, or a count
 * known at run time only) become 2 (motif-sync.c).
 */
void site_queue_two_buffers(struct motif_scan *scan, struct cxx_file *f, size_t q,
                            struct queue_edits *done);

/* ---- the motifs' scanners */
int motif_double_buffer_forward(struct motif_scan *scan);
int motif_double_buffer_inverse(struct motif_scan *scan);
int motif_prefetch_forward(struct motif_scan *scan);
int motif_prefetch_inverse(struct motif_scan *scan);
/* prefetch_tile's inline form (motif-prefetch.c), run by the two above */
int motif_prefetch_inline_forward(struct motif_scan *scan);
int motif_prefetch_inline_inverse(struct motif_scan *scan);
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
int motif_accumulate_forward(struct motif_scan *scan);
int motif_accumulate_inverse(struct motif_scan *scan);
int motif_queues_forward(struct motif_scan *scan);
int motif_queues_inverse(struct motif_scan *scan);
int motif_place_forward(struct motif_scan *scan);
int motif_place_inverse(struct motif_scan *scan);
int motif_spread_forward(struct motif_scan *scan);
int motif_spread_inverse(struct motif_scan *scan);

#endif
