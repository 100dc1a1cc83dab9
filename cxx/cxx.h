/* SPDX-License-Identifier: MIT */
/*
 * C++ source as the project reads it: the one parser of operator code.
 * The optimizer's motifs, tiling moves and genes rewrite kernels and
 * tiling functions with it, and 'ascendopt init' (draft/) reads op_kernel,
 * op_host and examples' main.cpp with it.  Rewrites work on tokens, never
 * regular expressions over raw text, so they survive comments, whitespace
 * and macros.  From the bottom up:
 *   - tokens (tokenize(), cxx/tokens.c);
 *   - a file (struct cxx_file): a text and its tokens, read a token
 *     (cxx_tok_*) or a run of them (cxx_range_*) at a time (cxx/file.c);
 *   - its structure: function bodies, statements and the walk over them,
 *     calls and their arguments (cxx/statements.c);
 *   - an expression as a tree of operators and operands (cxx/expressions.c);
 *   - byte edits on a text, applied at once (struct text_edits).
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

/* ------------------------------------------------------------ a file */

/*
 * What every function below reads: a text and its tokens.  Token indexes
 * are size_t; CXX_NONE is none (before the first token, not found).  The
 * walks skip comments, so a comment never splits or ends a statement.
 */
#define CXX_NONE ((size_t)-1)

struct cxx_file {
        const char *path; /* as the caller names it; borrowed */
        const char *text; /* borrowed: the tokens point into it */
        size_t len;
        struct token_list tokens;
};

/* Tokenizes text into f (path and text stay the caller's); tokenize()'s errors. */
int cxx_file_parse(struct cxx_file *f, const char *path, const char *text, size_t len,
                   unsigned *ret_line);
/* Frees f's tokens; the text is the caller's. */
void cxx_file_release(struct cxx_file *f);

/* ---- one token (the predicates take any index: one past the end is no token) */
const char *cxx_tok_text(const struct cxx_file *f, size_t i);
size_t cxx_tok_len(const struct cxx_file *f, size_t i);
/* End offset of token i. */
size_t cxx_tok_end(const struct cxx_file *f, size_t i);
/* The token's text into buf (truncated to size); buf. */
char *cxx_tok_copy(const struct cxx_file *f, size_t i, char *buf, size_t size);
/* Whether token i is the identifier or punctuation spelled s. */
bool cxx_tok_eq(const struct cxx_file *f, size_t i, const char *s);
bool cxx_tok_is_kind(const struct cxx_file *f, size_t i, enum token_kind kind);
bool cxx_tok_is_ident(const struct cxx_file *f, size_t i);
/* Whether token i is a number; with value, that number ("1" matches 1u and 1L). */
bool cxx_tok_is_number(const struct cxx_file *f, size_t i, const char *value);
/* The next non-comment token, or f->tokens.n at the end (and after CXX_NONE). */
size_t cxx_tok_next(const struct cxx_file *f, size_t i);
/* The previous non-comment token, or CXX_NONE. */
size_t cxx_tok_prev(const struct cxx_file *f, size_t i);

/* ---- runs of tokens [a, b], both inclusive */
/* The bytes from the start of token a to the end of token b, as a new string. */
char *cxx_range_dup(const struct cxx_file *f, size_t a, size_t b);
/* Whether two token ranges spell the same tokens (comments ignored). */
bool cxx_range_same(const struct cxx_file *f, size_t a1, size_t b1, size_t a2, size_t b2);
/* Whether identifier name occurs in [a, b]. */
bool cxx_range_mentions(const struct cxx_file *f, size_t a, size_t b, const char *name,
                        size_t name_len);
/* An identifier based on base that the file does not use yet (into buf): base, base2, ... */
void cxx_fresh_name(const struct cxx_file *f, const char *base, char *buf, size_t size);

/* ---- brackets (token_match finds the one closing '(', '[' or '{') */
/* The '>' closing the template '<' at i, or CXX_NONE. */
size_t cxx_angle_match(const struct cxx_file *f, size_t i);
/* The '(' / '[' / '{' opening the bracket that closes at i, or CXX_NONE. */
size_t cxx_bracket_open(const struct cxx_file *f, size_t i);

/* ---- the layout of the text, for edits that keep it */
/* The offset where the line holding pos starts. */
size_t cxx_line_start(const struct cxx_file *f, size_t pos);
/* The indentation of the line holding pos, as a new string. */
char *cxx_indent_at(const struct cxx_file *f, size_t pos);
/* Whether bytes [from, to) are spaces and tabs only. */
bool cxx_text_blank(const struct cxx_file *f, size_t from, size_t to);
/* One indentation step as the file writes it: a tab or four spaces. */
const char *cxx_indent_unit(const struct cxx_file *f);
/* last, or the comment that ends its line after it: what moves with a statement. */
size_t cxx_with_trailing_comment(const struct cxx_file *f, size_t last);

/* ------------------------------------------------------------ functions and statements */

/* A function body found at file level (including class member functions). */
struct cxx_func {
        size_t open, close; /* the braces */
        size_t name;        /* the token naming the function, or CXX_NONE */
        bool entry;         /* a __global__ kernel entry */
};

/* The function bodies of f in file order (*ret to free); 0 or -ENOMEM. */
int cxx_funcs_find(const struct cxx_file *f, struct cxx_func **ret, size_t *ret_n);
/* Whether token i is inside one of the n bodies. */
bool cxx_in_function(const struct cxx_func *funcs, size_t n, size_t i);

/* A statement as the walk sees it. */
struct cxx_stmt {
        size_t first, last; /* inclusive, non-comment tokens */
        size_t block;       /* the '{' of the enclosing block, or CXX_NONE when a braceless body */
        size_t loop;        /* first token of the innermost enclosing loop, or CXX_NONE */
        size_t func;        /* index into the function list */
        bool in_branch;     /* somewhere below an if/else/switch */
};

/* First token of the statement holding i: after the last ';', '{', '}' or directive before it. */
size_t cxx_stmt_first(const struct cxx_file *f, size_t i);
/*
 * Last token of the statement starting at i: its ';', a block's '}', all
 * of an if/else, loop or directive, or the token before an unmatched
 * closing bracket.
 */
size_t cxx_stmt_last(const struct cxx_file *f, size_t i);
/* The statement after the one ending at last inside the same block, or CXX_NONE. */
size_t cxx_stmt_after(const struct cxx_file *f, size_t last, size_t block);
/* The statement before the one starting at first inside the same block, or CXX_NONE. */
size_t cxx_stmt_before(const struct cxx_file *f, size_t first, size_t block);

/* Called for each statement; a negative return stops the walk and is returned. */
typedef int (*cxx_stmt_fn)(const struct cxx_file *f, const struct cxx_func *funcs,
                           const struct cxx_stmt *stmt, void *userdata);
/*
 * Visits every statement of every function body, outer before inner: a
 * block, then its statements; a loop or if, then its body (and else).
 */
int cxx_walk_statements(const struct cxx_file *f, cxx_stmt_fn fn, void *userdata);

/* ------------------------------------------------------------ calls */

/* One argument: its first and last tokens, both CXX_NONE for an empty one ("f(a, , b)"). */
struct cxx_arg {
        size_t first, last;
};

#define CXX_MAX_ARGS 12

struct cxx_call {
        size_t name;  /* the function name token */
        size_t obj;   /* first token of "obj." or CXX_NONE */
        size_t open;  /* '(' */
        size_t close; /* ')' */
        size_t n_args;
        struct cxx_arg args[CXX_MAX_ARGS];
};

/*
 * Splits what the bracket opened at open holds at its top-level commas
 * (call arguments, a brace list's items) into at most max args; how many
 * it stored, 0 when the bracket does not close.  A trailing comma adds no
 * argument.
 */
size_t cxx_args_split(const struct cxx_file *f, size_t open, struct cxx_arg *args, size_t max);
/* Whether statement [first, last] is one call "[obj.]name[<...>](...);". */
bool cxx_stmt_call(const struct cxx_file *f, size_t first, size_t last, struct cxx_call *ret);
/* Whether the call is to name. */
bool cxx_call_is(const struct cxx_file *f, const struct cxx_call *c, const char *name);
/* An argument that is one identifier: its token, else CXX_NONE. */
size_t cxx_arg_ident(const struct cxx_file *f, const struct cxx_arg *a);
/* The identifier an argument indexes or names ("x" of "x[i]" or "x"), else CXX_NONE. */
size_t cxx_arg_base(const struct cxx_file *f, const struct cxx_arg *a);

/* ------------------------------------------------------------ expressions */

/*
 * One expression as a tree (cxx/expressions.c): an initialiser, the
 * right-hand side of an assignment, a call's argument.  Parentheses leave
 * no node of their own: the node they hold is marked grouped and its
 * tokens include them.
 */
enum cxx_expr_kind {
        CXX_EXPR_NUMBER, /* a literal number: tok */
        CXX_EXPR_NAME, /* tok is the name's last identifier ("x" of a.b->x, ns::x); a: the object */
        CXX_EXPR_CALL, /* tok names the function (also sizeof); a: the object, b: the first argument */
        CXX_EXPR_CAST,    /* (T)a or static_cast<T>(a) */
        CXX_EXPR_INDEX,   /* a[b]; tok is the '[' */
        CXX_EXPR_UNARY,   /* tok a, or a tok for ++ and -- after it */
        CXX_EXPR_BINARY,  /* a tok b */
        CXX_EXPR_TERNARY, /* a ? b : c; tok is the '?' */
        CXX_EXPR_OTHER,   /* a string or character literal */
};

struct cxx_expr {
        enum cxx_expr_kind kind;
        size_t first, last; /* its tokens */
        size_t tok;
        int a, b, c; /* children (indexes into the tree's nodes), -1 for none */
        int next;    /* the next argument of the call this one is an argument of, or -1 */
        bool grouped;
};

struct cxx_expr_tree {
        struct cxx_expr *nodes;
        size_t n, cap;
        int root;
};

/*
 * Parses tokens [first, last] as one expression into *ret (released with
 * cxx_expr_tree_release).  -EINVAL when they are not one expression this
 * parser knows (assignments, lambdas, braced lists among them), -ENOMEM.
 */
int cxx_expr_parse(const struct cxx_file *f, size_t first, size_t last, struct cxx_expr_tree *ret);
void cxx_expr_tree_release(struct cxx_expr_tree *t);
/* Node i of the tree, or NULL for -1 (no child). */
const struct cxx_expr *cxx_expr_at(const struct cxx_expr_tree *t, int i);
/* Whether e is of kind and, unless tok is NULL, its token is spelled tok. */
bool cxx_expr_is(const struct cxx_file *f, const struct cxx_expr *e, enum cxx_expr_kind kind,
                 const char *tok);

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
