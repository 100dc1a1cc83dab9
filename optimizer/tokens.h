/* SPDX-License-Identifier: MIT */
/*
 * C++ source as tokens, and edits made on them: what every rewrite of the
 * optimizer works on, never regular expressions over raw text, so rewrites
 * survive comments, whitespace and macros.
 * Part of optimizer/optimizer.h, which includes every one of these.
 */
#ifndef ASCENDOPT_OPTIMIZER_TOKENS_H
#define ASCENDOPT_OPTIMIZER_TOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct event_base;
struct store;
struct store_batch;

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
