/* SPDX-License-Identifier: MIT */
/*
 * A C++ file as text and tokens (struct cxx_file): reading one token or a
 * run of them, skipping comments, and the layout of the text (lines and
 * indentation) that edits keep.
 */
#include "cxx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ a file */

int cxx_file_parse(struct cxx_file *f, const char *path, const char *text, size_t len,
                   unsigned *ret_line)
{
        f->path = path;
        f->text = text;
        f->len = len;
        return tokenize(text, len, &f->tokens, ret_line);
}

void cxx_file_release(struct cxx_file *f)
{
        token_list_release(&f->tokens);
}

/* ================================================================ tokens */

const char *cxx_tok_text(const struct cxx_file *f, size_t i)
{
        return f->text + f->tokens.tokens[i].start;
}

size_t cxx_tok_len(const struct cxx_file *f, size_t i)
{
        return f->tokens.tokens[i].len;
}

size_t cxx_tok_end(const struct cxx_file *f, size_t i)
{
        return f->tokens.tokens[i].start + f->tokens.tokens[i].len;
}

char *cxx_tok_copy(const struct cxx_file *f, size_t i, char *buf, size_t size)
{
        snprintf(buf, size, "%.*s", (int)cxx_tok_len(f, i), cxx_tok_text(f, i));
        return buf;
}

bool cxx_tok_eq(const struct cxx_file *f, size_t i, const char *s)
{
        return i < f->tokens.n && token_is(&f->tokens, i, s);
}

bool cxx_tok_is_kind(const struct cxx_file *f, size_t i, enum token_kind kind)
{
        return i < f->tokens.n && f->tokens.tokens[i].kind == kind;
}

bool cxx_tok_is_ident(const struct cxx_file *f, size_t i)
{
        return cxx_tok_is_kind(f, i, TOKEN_IDENTIFIER);
}

bool cxx_tok_is_number(const struct cxx_file *f, size_t i, const char *value)
{
        size_t n;

        if (i >= f->tokens.n || f->tokens.tokens[i].kind != TOKEN_NUMBER)
                return false;
        if (!value)
                return true;
        n = strlen(value);
        /* "1", "1u", "1U" all spell one */
        return cxx_tok_len(f, i) >= n && memcmp(cxx_tok_text(f, i), value, n) == 0 &&
               strspn(cxx_tok_text(f, i) + n, "uUlL") == cxx_tok_len(f, i) - n;
}

size_t cxx_tok_next(const struct cxx_file *f, size_t i)
{
        if (i == CXX_NONE)
                return f->tokens.n;
        return token_next(&f->tokens, i);
}

size_t cxx_tok_prev(const struct cxx_file *f, size_t i)
{
        if (i == CXX_NONE || i == 0)
                return CXX_NONE;
        return token_prev(&f->tokens, i);
}

/* ================================================================ runs of tokens */

char *cxx_range_dup(const struct cxx_file *f, size_t a, size_t b)
{
        size_t s = f->tokens.tokens[a].start, e = cxx_tok_end(f, b);

        return strndup(f->text + s, e > s ? e - s : 0);
}

bool cxx_range_same(const struct cxx_file *f, size_t a1, size_t b1, size_t a2, size_t b2)
{
        size_t i = a1, j = a2;

        while (i <= b1 && j <= b2) {
                if (cxx_tok_len(f, i) != cxx_tok_len(f, j) ||
                    memcmp(cxx_tok_text(f, i), cxx_tok_text(f, j), cxx_tok_len(f, i)) != 0)
                        return false;
                i = cxx_tok_next(f, i);
                j = cxx_tok_next(f, j);
        }
        return i > b1 && j > b2;
}

bool cxx_range_mentions(const struct cxx_file *f, size_t a, size_t b, const char *name,
                        size_t name_len)
{
        for (size_t i = a; i <= b && i < f->tokens.n; i++)
                if (cxx_tok_is_ident(f, i) && cxx_tok_len(f, i) == name_len &&
                    memcmp(cxx_tok_text(f, i), name, name_len) == 0)
                        return true;
        return false;
}

void cxx_fresh_name(const struct cxx_file *f, const char *base, char *buf, size_t size)
{
        for (int k = 1;; k++) {
                if (k == 1)
                        snprintf(buf, size, "%s", base);
                else
                        snprintf(buf, size, "%s%d", base, k);
                if (!cxx_range_mentions(f, 0, f->tokens.n ? f->tokens.n - 1 : 0, buf, strlen(buf)))
                        return;
        }
}

/* ================================================================ the layout */

size_t cxx_line_start(const struct cxx_file *f, size_t pos)
{
        while (pos > 0 && f->text[pos - 1] != '\n')
                pos--;
        return pos;
}

char *cxx_indent_at(const struct cxx_file *f, size_t pos)
{
        size_t s = cxx_line_start(f, pos), e = s;

        while (e < f->len && (f->text[e] == ' ' || f->text[e] == '\t'))
                e++;
        return strndup(f->text + s, e - s);
}

const char *cxx_indent_unit(const struct cxx_file *f)
{
        for (size_t i = 0; i + 1 < f->len; i++)
                if (f->text[i] == '\n' && (f->text[i + 1] == '\t' || f->text[i + 1] == ' '))
                        return f->text[i + 1] == '\t' ? "\t" : "    ";
        return "\t";
}

bool cxx_text_blank(const struct cxx_file *f, size_t from, size_t to)
{
        for (size_t i = from; i < to; i++)
                if (f->text[i] != ' ' && f->text[i] != '\t')
                        return false;
        return true;
}

size_t cxx_with_trailing_comment(const struct cxx_file *f, size_t last)
{
        size_t nx = last + 1;

        while (nx < f->tokens.n && f->tokens.tokens[nx].kind == TOKEN_COMMENT &&
               f->tokens.tokens[nx].line == f->tokens.tokens[last].line &&
               !memchr(f->text + f->tokens.tokens[nx].start, '\n', f->tokens.tokens[nx].len))
                last = nx++;
        return last;
}
