/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the motif files: a statement-level view of
 * tokenized C++ (function bodies, blocks, loops, calls and their
 * arguments, declarations) and the site builder through which a motif's
 * scanner records where it applies and the byte edits that apply it.
 */
#ifndef ASCENDOPT_MOTIFS_INTERNAL_H
#define ASCENDOPT_MOTIFS_INTERNAL_H

#include "optimizer.h"
#include "cxx/cxx.h"

#include <stdarg.h>

#define NONE ((size_t)-1)

/* One file of the set, tokenized. */
struct motif_src {
        const char *path;
        const char *text;
        size_t len;
        struct token_list tokens;
        bool is_kernel; /* under op_kernel/ */
        bool is_host;   /* under op_host/ */
};

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
        struct motif_src *files;
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

/* A function body found at file level (including class member functions). */
struct motif_func {
        size_t open, close; /* the braces */
        size_t name;        /* the token naming the function, or NONE */
        bool entry;         /* a __global__ kernel entry */
};

/* A statement as the walker sees it. */
struct motif_stmt {
        size_t first, last; /* inclusive, non-comment tokens */
        size_t block;       /* the '{' of the enclosing block, or NONE when a braceless body */
        size_t loop;        /* first token of the innermost enclosing loop, or NONE */
        size_t func;        /* index into the function list */
        bool in_branch;     /* somewhere below an if/else/switch */
};

/* ---- tokens */
const char *tok_text(const struct motif_src *f, size_t i);
size_t tok_len(const struct motif_src *f, size_t i);
bool tok_eq(const struct motif_src *f, size_t i, const char *s);
bool tok_is_ident(const struct motif_src *f, size_t i);
bool tok_is_number(const struct motif_src *f, size_t i, const char *value);
size_t tok_next(const struct motif_src *f, size_t i);
size_t tok_prev(const struct motif_src *f, size_t i);
/* End offset of token i. */
size_t tok_end(const struct motif_src *f, size_t i);
/* The bytes from the start of token a to the end of token b, as a new string. */
char *range_dup(const struct motif_src *f, size_t a, size_t b);
/* Whether two token ranges spell the same tokens (comments ignored). */
bool range_same(const struct motif_src *f, size_t a1, size_t b1, size_t a2, size_t b2);
/* Whether identifier name occurs in [a, b]. */
bool range_mentions(const struct motif_src *f, size_t a, size_t b, const char *name,
                    size_t name_len);
/* The '>' closing the template '<' at i, or NONE. */
size_t angle_match(const struct motif_src *f, size_t i);
/* The '(' / '[' / '{' opening the bracket that closes at i, or NONE. */
size_t bracket_open(const struct motif_src *f, size_t i);

/* ---- structure */
int funcs_find(const struct motif_src *f, struct motif_func **ret, size_t *ret_n);
/* Last token of the statement starting at i. */
size_t stmt_last(const struct motif_src *f, size_t i);
typedef int (*motif_stmt_fn)(struct motif_scan *scan, struct motif_src *f,
                             const struct motif_func *funcs, const struct motif_stmt *stmt,
                             void *userdata);
/* Visits every statement of every function body, outer before inner. */
int walk_statements(struct motif_scan *scan, struct motif_src *f, motif_stmt_fn fn, void *userdata);
/* The statement after the one ending at last inside the same block, or NONE. */
size_t stmt_after(const struct motif_src *f, size_t last, size_t block);
/* The statement before the one starting at first inside the same block, or NONE. */
size_t stmt_before(const struct motif_src *f, size_t first, size_t block);

/* ---- calls */
struct motif_arg {
        size_t first, last;
};

#define MOTIF_MAX_ARGS 12

struct motif_call {
        size_t name;  /* the function name token */
        size_t obj;   /* first token of "obj." or NONE */
        size_t open;  /* '(' */
        size_t close; /* ')' */
        size_t n_args;
        struct motif_arg args[MOTIF_MAX_ARGS];
};

/* Splits the arguments of the bracket opened at open. */
size_t args_split(const struct motif_src *f, size_t open, struct motif_arg *args, size_t max);
/* Whether statement [first, last] is one call "[obj.]name[<...>](...);". */
bool stmt_call(const struct motif_src *f, size_t first, size_t last, struct motif_call *ret);
/* Whether the call is to name. */
bool call_is(const struct motif_src *f, const struct motif_call *c, const char *name);
/* An argument that is one identifier: its token, else NONE. */
size_t arg_ident(const struct motif_src *f, const struct motif_arg *a);
/* The identifier an argument indexes or names ("x" of "x[i]" or "x"), else NONE. */
size_t arg_base(const struct motif_src *f, const struct motif_arg *a);
bool is_vector_api(const struct motif_src *f, size_t name);

/* ---- declarations */
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
bool decl_find(const struct motif_src *f, size_t a, size_t b, const char *name, size_t name_len,
               struct motif_decl *ret);
/* Like decl_find over the token at i's name, function first, then file. */
bool decl_of(const struct motif_src *f, const struct motif_func *func, size_t ident,
             struct motif_decl *ret);
bool decl_is(const struct motif_src *f, const struct motif_decl *d, const char *kind);
/* Whether the declaration is inside a function body. */
bool in_function(const struct motif_func *funcs, size_t n, size_t i);

/* ---- edits and sites */
size_t line_start(const struct motif_src *f, size_t pos);
/* The indentation of the line holding pos, as a new string. */
char *indent_at(const struct motif_src *f, size_t pos);
/* Whether bytes [from, to) are spaces and tabs only. */
bool text_blank(const struct motif_src *f, size_t from, size_t to);
/* One indentation step as the file writes it: a tab or four spaces. */
const char *indent_unit(const struct motif_src *f);

void site_begin(struct motif_scan *scan, struct motif_src *f, size_t tok, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void site_edit(struct motif_scan *scan, struct motif_src *f, size_t start, size_t len,
               const char *text);
void site_editf(struct motif_scan *scan, struct motif_src *f, size_t start, size_t len,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Replaces tokens [a, b] with text. */
void site_replace(struct motif_scan *scan, struct motif_src *f, size_t a, size_t b,
                  const char *text);
/* Removes statement [first, last], with its line when nothing else is on it. */
void site_delete_stmt(struct motif_scan *scan, struct motif_src *f, size_t first, size_t last);
/* Inserts a line holding text before the statement starting at first, indented like it. */
void site_insert_before(struct motif_scan *scan, struct motif_src *f, size_t first,
                        const char *text);
/* Inserts a line holding text after the statement [first, last], indented like it. */
void site_insert_after(struct motif_scan *scan, struct motif_src *f, size_t first, size_t last,
                       const char *text);
/* last, or the comment that ends its line after it: what moves with a statement. */
size_t with_trailing_comment(const struct motif_src *f, size_t last);
void site_fail(struct motif_scan *scan);
int site_end(struct motif_scan *scan);
/* Whether a site already holds an edit starting at pos in file f. */
bool site_exists_at(const struct motif_scan *scan, const struct motif_src *f, size_t pos);

/* An identifier based on base that the file does not use yet (into buf). */
void fresh_name(const struct motif_src *f, const char *base, char *buf, size_t size);

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
