/* SPDX-License-Identifier: MIT */
/*
 * C++ source as the project reads it: tokens, and byte edits made on a
 * text.  The one parser of operator code: the optimizer's motifs, tiling
 * moves and genes rewrite kernels and tiling functions with it, and
 * 'ascendopt init' (draft/) reads op_kernel, op_host and examples' main.cpp
 * with it.  Rewrites work on tokens, never regular expressions over raw
 * text, so they survive comments, whitespace and macros.
 */
#ifndef ASCENDOPT_CXX_H
#define ASCENDOPT_CXX_H

#include <stdbool.h>
#include <stddef.h>

/* ------------------------------------------------------------ tokens */

enum token_kind {
        TOKEN_IDENTIFIER, /* also keywords */
        TOKEN_NUMBER,     /* integer or floating literal, with suffixes */
        TOKEN_STRING,     /* "..." including prefixes and raw strings */
        TOKEN_CHAR,       /* '...' */
        TOKEN_PUNCT,      /* operators and punctuation, longest match */
        TOKEN_COMMENT,    /* // and block comments, kept so rewrites preserve them */
        TOKEN_DIRECTIVE,  /* the '#' starting a preprocessor line */
};

struct token {
        enum token_kind kind;
        size_t start; /* byte offset into the text */
        size_t len;
        unsigned line;     /* 1-based */
        bool in_directive; /* part of a preprocessor line such as #define */
};

struct token_list {
        const char *text; /* borrowed: the tokens point into it */
        size_t text_len;
        struct token *tokens;
        size_t n;
};

#define TOKENS_MAX 1000000

/*
 * Splits C++ source into tokens.  Whitespace is dropped; comments are kept.
 * Line continuations inside directives are followed.  -EINVAL for an
 * unterminated comment, string or character literal (*ret_line says where),
 * -E2BIG past TOKENS_MAX tokens.
 */
int tokenize(const char *text, size_t len, struct token_list *ret, unsigned *ret_line);
void token_list_release(struct token_list *list);

/* Whether token i is the identifier or punctuation spelled s. */
bool token_is(const struct token_list *list, size_t i, const char *s);

/* Index of the next token after i that is not a comment, or list->n. */
size_t token_next(const struct token_list *list, size_t i);
/* Index of the previous token before i that is not a comment, or (size_t)-1. */
size_t token_prev(const struct token_list *list, size_t i);

/*
 * Index of the bracket that closes the one at i ('(', '[', '{' or '<' when
 * used as a template bracket is not handled: only the first three), or
 * list->n when unbalanced.
 */
size_t token_match(const struct token_list *list, size_t i);

/* ------------------------------------------------------------ edits */

/*
 * A set of replacements of byte ranges of one text, applied at once.
 * Ranges must not overlap; they may be added in any order.
 */
struct text_edit {
        size_t start, len;
        char *replacement;
};

struct text_edits {
        struct text_edit *edits;
        size_t n, cap;
};

int text_edits_add(struct text_edits *edits, size_t start, size_t len, const char *replacement);
/* Applies the edits to text; *ret is a new NUL-terminated string.  -EINVAL on overlap. */
int text_edits_apply(const struct text_edits *edits, const char *text, size_t len, char **ret);
void text_edits_release(struct text_edits *edits);

#endif
