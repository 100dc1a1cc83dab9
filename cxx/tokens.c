/* SPDX-License-Identifier: MIT */
/*
 * A small C++ tokenizer for rewriting operator sources, and byte-range edit
 * sets to apply rewrites.  It knows enough of the lexical grammar for the
 * code real AscendC operators contain: comments, string and character
 * literals (with prefixes and raw strings), numbers with digit separators
 * and suffixes, preprocessor lines with continuations, and longest-match
 * punctuation.
 */
#include "cxx.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Punctuators, longest first so that the first match is the longest. */
static const char *const punctuators[] = {
        "<<=", ">>=", "...", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
        "!=",  "&&",  "||",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##",
};

struct lexer {
        const char *text;
        size_t len, pos;
        unsigned line;
        bool line_start; /* only whitespace since the last newline */
        bool in_directive;
        struct token_list *out;
        size_t cap;
};

static int emit(struct lexer *lx, enum token_kind kind, size_t start, unsigned line)
{
        struct token_list *out = lx->out;

        if (out->n == TOKENS_MAX)
                return -E2BIG;
        if (out->n == lx->cap) {
                size_t cap = lx->cap ? 2 * lx->cap : 256;
                struct token *grown = realloc(out->tokens, cap * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                out->tokens = grown;
                lx->cap = cap;
        }
        out->tokens[out->n++] = (struct token){ .kind = kind,
                                                .start = start,
                                                .len = lx->pos - start,
                                                .line = line,
                                                .in_directive = lx->in_directive };
        return 0;
}

static char peek(const struct lexer *lx, size_t ahead)
{
        return lx->pos + ahead < lx->len ? lx->text[lx->pos + ahead] : '\0';
}

/* Skips whitespace and escaped newlines; ends a directive at a real newline. */
static void skip_space(struct lexer *lx)
{
        while (lx->pos < lx->len) {
                char c = lx->text[lx->pos];
                if (c == '\\' &&
                    (peek(lx, 1) == '\n' || (peek(lx, 1) == '\r' && peek(lx, 2) == '\n'))) {
                        lx->pos += peek(lx, 1) == '\n' ? 2 : 3;
                        lx->line++;
                } else if (c == '\n') {
                        lx->pos++;
                        lx->line++;
                        lx->line_start = true;
                        lx->in_directive = false;
                } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                        lx->pos++;
                } else {
                        break;
                }
        }
}

static int lex_comment(struct lexer *lx, unsigned *ret_line)
{
        size_t start = lx->pos;
        unsigned line = lx->line;

        if (peek(lx, 1) == '/') {
                /* a // comment ends at the newline, which a backslash can escape */
                while (lx->pos < lx->len && lx->text[lx->pos] != '\n') {
                        if (lx->text[lx->pos] == '\\' && peek(lx, 1) == '\n') {
                                lx->pos++;
                                lx->line++;
                        }
                        lx->pos++;
                }
                return emit(lx, TOKEN_COMMENT, start, line);
        }
        lx->pos += 2;
        while (lx->pos + 1 < lx->len &&
               !(lx->text[lx->pos] == '*' && lx->text[lx->pos + 1] == '/')) {
                if (lx->text[lx->pos] == '\n')
                        lx->line++;
                lx->pos++;
        }
        if (lx->pos + 1 >= lx->len) {
                *ret_line = line;
                return -EINVAL;
        }
        lx->pos += 2;
        return emit(lx, TOKEN_COMMENT, start, line);
}

/* A raw string R"delim( ... )delim"; pos is at the opening quote. */
static int lex_raw_string(struct lexer *lx, size_t start, unsigned line, unsigned *ret_line)
{
        char delimiter[20];
        size_t d = 0;

        lx->pos++;
        while (lx->pos < lx->len && lx->text[lx->pos] != '(' && d < sizeof(delimiter) - 1)
                delimiter[d++] = lx->text[lx->pos++];
        delimiter[d] = '\0';
        if (lx->pos >= lx->len || lx->text[lx->pos] != '(') {
                *ret_line = line;
                return -EINVAL;
        }
        lx->pos++;
        for (; lx->pos < lx->len; lx->pos++) {
                if (lx->text[lx->pos] == '\n')
                        lx->line++;
                if (lx->text[lx->pos] == ')' && lx->pos + 1 + d < lx->len &&
                    strncmp(lx->text + lx->pos + 1, delimiter, d) == 0 &&
                    lx->text[lx->pos + 1 + d] == '"') {
                        lx->pos += d + 2;
                        return emit(lx, TOKEN_STRING, start, line);
                }
        }
        *ret_line = line;
        return -EINVAL;
}

static int lex_quoted(struct lexer *lx, size_t start, char quote, unsigned *ret_line)
{
        unsigned line = lx->line;

        lx->pos++;
        while (lx->pos < lx->len && lx->text[lx->pos] != quote) {
                if (lx->text[lx->pos] == '\n') {
                        *ret_line = line;
                        return -EINVAL;
                }
                if (lx->text[lx->pos] == '\\' && lx->pos + 1 < lx->len) {
                        if (lx->text[lx->pos + 1] == '\n')
                                lx->line++;
                        lx->pos++;
                }
                lx->pos++;
        }
        if (lx->pos >= lx->len) {
                *ret_line = line;
                return -EINVAL;
        }
        lx->pos++;
        return emit(lx, quote == '"' ? TOKEN_STRING : TOKEN_CHAR, start, line);
}

static bool is_identifier_char(char c)
{
        return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static int lex_number(struct lexer *lx)
{
        size_t start = lx->pos;

        /* pp-number: digits, letters, '.', digit separators, and signed exponents */
        while (lx->pos < lx->len) {
                char c = lx->text[lx->pos];
                char prev = lx->pos > start ? lx->text[lx->pos - 1] : '\0';
                if ((c == '+' || c == '-') &&
                    (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P') &&
                    !(lx->pos - start >= 2 &&
                      (lx->text[start + 1] == 'x' || lx->text[start + 1] == 'X') &&
                      (prev == 'e' || prev == 'E'))) {
                        lx->pos++;
                } else if (is_identifier_char(c) || c == '.' ||
                           (c == '\'' && isalnum((unsigned char)peek(lx, 1)))) {
                        lx->pos++;
                } else {
                        break;
                }
        }
        return emit(lx, TOKEN_NUMBER, start, lx->line);
}

static int lex_punct(struct lexer *lx)
{
        size_t start = lx->pos;

        for (size_t i = 0; i < sizeof(punctuators) / sizeof(*punctuators); i++) {
                size_t n = strlen(punctuators[i]);
                if (lx->pos + n <= lx->len && strncmp(lx->text + lx->pos, punctuators[i], n) == 0) {
                        lx->pos += n;
                        return emit(lx, TOKEN_PUNCT, start, lx->line);
                }
        }
        lx->pos++;
        return emit(lx, TOKEN_PUNCT, start, lx->line);
}

/* String literal prefixes: u8, u, U, L, each optionally followed by R. */
static size_t string_prefix(const struct lexer *lx, bool *ret_raw)
{
        static const char *const prefixes[] = { "u8R", "uR", "UR", "LR", "R", "u8", "u", "U", "L" };

        for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++) {
                size_t n = strlen(prefixes[i]);
                if (lx->pos + n < lx->len && strncmp(lx->text + lx->pos, prefixes[i], n) == 0 &&
                    (lx->text[lx->pos + n] == '"' ||
                     (lx->text[lx->pos + n] == '\'' && !strchr(prefixes[i], 'R')))) {
                        *ret_raw = strchr(prefixes[i], 'R') != NULL;
                        return n;
                }
        }
        return 0;
}

int tokenize(const char *text, size_t len, struct token_list *ret, unsigned *ret_line)
{
        struct lexer lx = { .text = text, .len = len, .line = 1, .line_start = true, .out = ret };
        unsigned bad_line = 0;
        int r = 0;

        memset(ret, 0, sizeof(*ret));
        ret->text = text;
        ret->text_len = len;
        for (;;) {
                char c;
                size_t start;
                unsigned line;

                skip_space(&lx);
                if (lx.pos >= lx.len)
                        break;
                c = text[lx.pos];
                start = lx.pos;
                line = lx.line;
                if (c == '#' && lx.line_start) {
                        lx.in_directive = true;
                        lx.pos++;
                        r = emit(&lx, TOKEN_DIRECTIVE, start, line);
                } else if (c == '/' && (peek(&lx, 1) == '/' || peek(&lx, 1) == '*')) {
                        r = lex_comment(&lx, &bad_line);
                } else if (c == '"' || c == '\'') {
                        r = lex_quoted(&lx, start, c, &bad_line);
                } else if (isdigit((unsigned char)c) ||
                           (c == '.' && isdigit((unsigned char)peek(&lx, 1)))) {
                        r = lex_number(&lx);
                } else if (is_identifier_char(c)) {
                        bool raw = false;
                        size_t prefix = string_prefix(&lx, &raw);
                        if (prefix) {
                                lx.pos += prefix;
                                r = raw ? lex_raw_string(&lx, start, line, &bad_line)
                                        : lex_quoted(&lx, start, text[lx.pos], &bad_line);
                        } else {
                                while (lx.pos < lx.len && is_identifier_char(text[lx.pos]))
                                        lx.pos++;
                                r = emit(&lx, TOKEN_IDENTIFIER, start, line);
                        }
                } else {
                        r = lex_punct(&lx);
                }
                if (r < 0)
                        break;
                if (lx.out->tokens[lx.out->n - 1].kind != TOKEN_COMMENT)
                        lx.line_start = false;
        }
        if (r < 0) {
                if (ret_line)
                        *ret_line = bad_line ? bad_line : lx.line;
                token_list_release(ret);
        }
        return r;
}

void token_list_release(struct token_list *list)
{
        if (!list)
                return;
        free(list->tokens);
        list->tokens = NULL;
        list->n = 0;
}

bool token_is(const struct token_list *list, size_t i, const char *s)
{
        size_t n = strlen(s);

        return i < list->n && list->tokens[i].len == n &&
               memcmp(list->text + list->tokens[i].start, s, n) == 0 &&
               (list->tokens[i].kind == TOKEN_IDENTIFIER || list->tokens[i].kind == TOKEN_PUNCT);
}

size_t token_next(const struct token_list *list, size_t i)
{
        for (i++; i < list->n && list->tokens[i].kind == TOKEN_COMMENT; i++)
                ;
        return i < list->n ? i : list->n;
}

size_t token_prev(const struct token_list *list, size_t i)
{
        while (i > 0) {
                i--;
                if (list->tokens[i].kind != TOKEN_COMMENT)
                        return i;
        }
        return (size_t)-1;
}

size_t token_match(const struct token_list *list, size_t i)
{
        const char *open = "([{", *close = ")]}";
        const char *which;
        int depth = 0;
        char o, c;

        if (i >= list->n || list->tokens[i].kind != TOKEN_PUNCT || list->tokens[i].len != 1)
                return list->n;
        which = strchr(open, list->text[list->tokens[i].start]);
        if (!which || !*which)
                return list->n;
        o = *which;
        c = close[which - open];
        for (; i < list->n; i++) {
                const struct token *t = &list->tokens[i];
                if (t->kind != TOKEN_PUNCT || t->len != 1)
                        continue;
                if (list->text[t->start] == o)
                        depth++;
                else if (list->text[t->start] == c && --depth == 0)
                        return i;
        }
        return list->n;
}

int text_edits_add(struct text_edits *edits, size_t start, size_t len, const char *replacement)
{
        struct text_edit *slot;

        if (edits->n == edits->cap) {
                size_t cap = edits->cap ? 2 * edits->cap : 8;
                struct text_edit *grown = realloc(edits->edits, cap * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                edits->edits = grown;
                edits->cap = cap;
        }
        slot = &edits->edits[edits->n];
        slot->start = start;
        slot->len = len;
        slot->replacement = strdup(replacement ? replacement : "");
        if (!slot->replacement)
                return -ENOMEM;
        edits->n++;
        return 0;
}

static int compare_edits(const void *a, const void *b)
{
        const struct text_edit *x = a, *y = b;

        return x->start < y->start ? -1 : x->start > y->start;
}

int text_edits_apply(const struct text_edits *edits, const char *text, size_t len, char **ret)
{
        struct text_edit *sorted = NULL;
        size_t out_len = len, pos = 0, o = 0;
        char *out;

        if (edits->n) {
                sorted = malloc(edits->n * sizeof(*sorted));
                if (!sorted)
                        return -ENOMEM;
                memcpy(sorted, edits->edits, edits->n * sizeof(*sorted));
                qsort(sorted, edits->n, sizeof(*sorted), compare_edits);
        }
        for (size_t i = 0; i < edits->n; i++) {
                if (sorted[i].start + sorted[i].len > len ||
                    (i && sorted[i - 1].start + sorted[i - 1].len > sorted[i].start)) {
                        free(sorted);
                        return -EINVAL;
                }
                out_len = out_len - sorted[i].len + strlen(sorted[i].replacement);
        }
        out = malloc(out_len + 1);
        if (!out) {
                free(sorted);
                return -ENOMEM;
        }
        for (size_t i = 0; i < edits->n; i++) {
                size_t keep = sorted[i].start - pos, rl = strlen(sorted[i].replacement);
                memcpy(out + o, text + pos, keep);
                o += keep;
                memcpy(out + o, sorted[i].replacement, rl);
                o += rl;
                pos = sorted[i].start + sorted[i].len;
        }
        memcpy(out + o, text + pos, len - pos);
        o += len - pos;
        out[o] = '\0';
        free(sorted);
        *ret = out;
        return 0;
}

void text_edits_release(struct text_edits *edits)
{
        if (!edits)
                return;
        for (size_t i = 0; i < edits->n; i++)
                free(edits->edits[i].replacement);
        free(edits->edits);
        memset(edits, 0, sizeof(*edits));
}
