/* SPDX-License-Identifier: MIT */
/*
 * Text on both sides of a call: prompt templates with {{name}} fields
 * filled from a JSON object, the first fenced code block of an answer, and
 * the cosine similarity used to rank embedded experience entries.
 */
#include "llm/llm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PLACEHOLDER 128

/* ------------------------------------------------------------ buffers */

/* Appends, and says -ENOMEM once an allocation of the buffer has failed. */
static int text_append(struct strbuf *t, const char *s, size_t n)
{
        strbuf_putn(t, s, n);
        return t->oom ? -ENOMEM : 0;
}

/* ------------------------------------------------------- code blocks */

/* Languages one hint accepts: the C family is spelled many ways. */
static const char *language_family(const char *tag, size_t len)
{
        static const char *const c_family[] = { "c", "cpp", "c++", "cc",      "cxx",
                                                "h", "hpp", "hxx", "ascendc", NULL };

        for (size_t i = 0; c_family[i]; i++)
                if (strlen(c_family[i]) == len && strncasecmp(tag, c_family[i], len) == 0)
                        return "c";
        return NULL;
}

static bool language_matches(const char *hint, const char *tag, size_t tag_len)
{
        const char *a, *b;

        if (!hint || tag_len == 0)
                return true;
        a = language_family(hint, strlen(hint));
        b = language_family(tag, tag_len);
        if (a && b)
                return true;
        return strlen(hint) == tag_len && strncasecmp(hint, tag, tag_len) == 0;
}

/* The number of backticks opening a fence on this line (after up to 3 spaces), or 0. */
static size_t fence_length(const char *line, const char **ret_after)
{
        size_t indent = 0, n = 0;

        while (indent < 3 && line[indent] == ' ')
                indent++;
        while (line[indent + n] == '`')
                n++;
        if (n < 3)
                return 0;
        *ret_after = line + indent + n;
        return n;
}

static const char *line_end(const char *p)
{
        const char *nl = strchr(p, '\n');

        return nl ? nl : p + strlen(p);
}

/* Whether the line is a closing fence of at least n backticks. */
static bool closes_fence(const char *line, const char *end, size_t n)
{
        const char *after = NULL;
        size_t got = fence_length(line, &after);

        if (got < n || after > end)
                return false;
        for (; after < end; after++)
                if (!isspace((unsigned char)*after))
                        return false;
        return true;
}

int llm_extract_code_block(const char *content, const char *language_hint, char **ret_code)
{
        const char *p = content, *eol, *after = NULL, *tag, *body, *q;
        size_t n, tag_len;
        char *code;

        if (!content || !ret_code)
                return -EINVAL;
        while (*p) {
                eol = line_end(p);
                n = fence_length(p, &after);
                if (n == 0 || after > eol) {
                        p = *eol ? eol + 1 : eol;
                        continue;
                }
                /* the tag is the first word of the info string */
                tag = after;
                while (tag < eol && (*tag == ' ' || *tag == '\t'))
                        tag++;
                tag_len = 0;
                while (tag + tag_len < eol && !isspace((unsigned char)tag[tag_len]) &&
                       tag[tag_len] != '`' && tag[tag_len] != '{')
                        tag_len++;
                body = *eol ? eol + 1 : eol;
                for (q = body; *q; q = *line_end(q) ? line_end(q) + 1 : line_end(q))
                        if (closes_fence(q, line_end(q), n))
                                break;
                if (!*q)
                        return language_matches(language_hint, tag, tag_len) ? -EBADMSG : -ENOENT;
                if (language_matches(language_hint, tag, tag_len)) {
                        code = strndup(body, (size_t)(q - body));
                        if (!code)
                                return -ENOMEM;
                        *ret_code = code;
                        return 0;
                }
                p = *line_end(q) ? line_end(q) + 1 : line_end(q);
        }
        return -ENOENT;
}

/* ------------------------------------------------------------ prompts */

int llm_prompt_load(const char *path, char **ret_text, char *err, size_t err_size)
{
        struct strbuf t = { 0 };
        char chunk[8192];
        ssize_t n;
        int fd, r = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return format_error(err, err_size, -errno, "%s: cannot open the prompt: %s", path,
                                    strerror(errno));
        for (;;) {
                n = read(fd, chunk, sizeof(chunk));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = format_error(err, err_size, -errno, "%s: cannot read the prompt: %s",
                                         path, strerror(errno));
                        goto out;
                }
                if (n == 0)
                        break;
                if (t.len + (size_t)n > LLM_MAX_PROMPT_BYTES) {
                        r = format_error(err, err_size, -EFBIG,
                                         "%s: the prompt is over %u bytes; shorten it", path,
                                         LLM_MAX_PROMPT_BYTES);
                        goto out;
                }
                r = text_append(&t, chunk, (size_t)n);
                if (r < 0)
                        goto out;
        }
        if (!t.buf) {
                r = text_append(&t, "", 0);
                if (r < 0)
                        goto out;
        }
        if (strlen(t.buf) != t.len) {
                r = format_error(err, err_size, -EINVAL, "%s: the prompt holds a NUL byte", path);
                goto out;
        }
        *ret_text = strbuf_detach(&t);
out:
        strbuf_release(&t);
        close(fd);
        return r;
}

static bool is_name_char(char c)
{
        return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Parses "{{ name }}" at p; returns its length and the name, or 0 when it is not one. */
static size_t placeholder_at(const char *p, const char **ret_name, size_t *ret_name_len)
{
        const char *q = p + 2, *name;

        if (p[0] != '{' || p[1] != '{')
                return 0;
        while (*q == ' ')
                q++;
        name = q;
        /* a name starts with a letter, so that C++ such as {{0}} stays text */
        if (!isalpha((unsigned char)*q) && *q != '_')
                return 0;
        while (is_name_char(*q))
                q++;
        if (q == name || (size_t)(q - name) > MAX_PLACEHOLDER)
                return 0;
        *ret_name_len = (size_t)(q - name);
        while (*q == ' ')
                q++;
        if (q[0] != '}' || q[1] != '}')
                return 0;
        *ret_name = name;
        return (size_t)(q + 2 - p);
}

static int append_value(struct strbuf *t, const json_t *value)
{
        char *dumped;
        int r;

        if (json_is_string(value))
                return text_append(t, json_string_value(value), json_string_length(value));
        if (json_is_null(value))
                return 0;
        dumped = json_dumps(value, JSON_ENCODE_ANY | JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                       JSON_REAL_PRECISION(10));
        if (!dumped)
                return -ENOMEM;
        r = text_append(t, dumped, strlen(dumped));
        free(dumped);
        return r;
}

int llm_prompt_render(const char *template_text, const json_t *vars, char **ret_text, char *err,
                      size_t err_size)
{
        struct strbuf t = { 0 };
        const char *p, *start, *name = NULL;
        char key[MAX_PLACEHOLDER + 1];
        const json_t *value;
        size_t len, name_len = 0;
        int r = 0;

        if (!template_text || !ret_text || (vars && !json_is_object(vars)))
                return format_error(err, err_size, -EINVAL, "prompt: vars must be a JSON object");
        r = text_append(&t, "", 0);
        if (r < 0)
                goto out;
        for (p = start = template_text; *p;) {
                len = placeholder_at(p, &name, &name_len);
                if (len == 0) {
                        p++;
                        continue;
                }
                r = text_append(&t, start, (size_t)(p - start));
                if (r < 0)
                        goto out;
                memcpy(key, name, name_len);
                key[name_len] = '\0';
                value = vars ? json_object_get(vars, key) : NULL;
                if (!value) {
                        r = format_error(err, err_size, -EINVAL,
                                         "prompt: no value for the placeholder {{%s}}", key);
                        goto out;
                }
                r = append_value(&t, value);
                if (r < 0)
                        goto out;
                p += len;
                start = p;
        }
        r = text_append(&t, start, (size_t)(p - start));
        if (r < 0)
                goto out;
        *ret_text = strbuf_detach(&t);
out:
        strbuf_release(&t);
        return r;
}

/* --------------------------------------------------------- similarity */

double llm_cosine_similarity(const float *a, const float *b, size_t dim)
{
        double dot = 0, na = 0, nb = 0;

        for (size_t i = 0; i < dim; i++) {
                dot += (double)a[i] * b[i];
                na += (double)a[i] * a[i];
                nb += (double)b[i] * b[i];
        }
        if (na == 0 || nb == 0)
                return 0;
        return dot / (sqrt(na) * sqrt(nb));
}
