/* SPDX-License-Identifier: MIT */
/*
 * Validation of JSON documents against schemas written in C, with error
 * messages that name the document, the JSON path of the offending field and
 * what was expected: "ascendoptd.json: .repos[2].path: expected a string".
 */
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* JSON paths longer than this are cut; configs are never that deep. */
#define SCHEMA_PATH_MAX 512

struct validation {
        const char *source;
        char *err;
        size_t err_size;
        char path[SCHEMA_PATH_MAX];
};

static int fail(struct validation *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct validation *v, const char *fmt, ...)
{
        char detail[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
        if (v->err && v->err_size)
                snprintf(v->err, v->err_size, "%s: %s: %s", v->source,
                         v->path[0] ? v->path : "top level", detail);
        return -EINVAL;
}

static unsigned kind_of(const json_t *value)
{
        switch (json_typeof(value)) {
        case JSON_STRING:
                return SCHEMA_STRING;
        case JSON_INTEGER:
                return SCHEMA_INTEGER;
        case JSON_REAL:
                return SCHEMA_NUMBER;
        case JSON_TRUE:
        case JSON_FALSE:
                return SCHEMA_BOOL;
        case JSON_OBJECT:
                return SCHEMA_OBJECT;
        case JSON_ARRAY:
                return SCHEMA_ARRAY;
        case JSON_NULL:
                return SCHEMA_NULL;
        }
        return 0;
}

static void describe_kinds(unsigned kinds, char *buf, size_t size)
{
        static const struct {
                unsigned kind;
                const char *phrase;
        } phrases[] = {
                { SCHEMA_STRING, "a string" },  { SCHEMA_INTEGER, "an integer" },
                { SCHEMA_NUMBER, "a number" },  { SCHEMA_BOOL, "true or false" },
                { SCHEMA_OBJECT, "an object" }, { SCHEMA_ARRAY, "an array" },
                { SCHEMA_NULL, "null" },
        };
        size_t pos = 0, n = 0, total = 0;

        if (kinds & SCHEMA_NUMBER)
                kinds &= ~(unsigned)SCHEMA_INTEGER;
        for (size_t i = 0; i < ARRAY_SIZE(phrases); i++)
                total += (kinds & phrases[i].kind) != 0;
        buf[0] = '\0';
        for (size_t i = 0; i < ARRAY_SIZE(phrases) && pos < size; i++) {
                if (!(kinds & phrases[i].kind))
                        continue;
                n++;
                pos +=
                    (size_t)snprintf(buf + pos, size - pos, "%s%s",
                                     n == 1 ? "" : (n == total ? " or " : ", "), phrases[i].phrase);
        }
}

static int validate(struct validation *v, const json_t *value, const struct schema *s);

static int validate_object(struct validation *v, const json_t *value, const struct schema *s)
{
        size_t base = strlen(v->path);
        const char *key;
        json_t *member;
        int r = 0;

        if (s->max_items && json_object_size(value) > s->max_items)
                return fail(v, "expected at most %zu keys, got %zu", s->max_items,
                            json_object_size(value));
        /* Unknown keys first: a typo must not hide behind "missing field". */
        json_object_foreach((json_t *)value, key, member)
        {
                const struct schema_field *f = s->fields;
                while (f && f->name && strcmp(f->name, key) != 0)
                        f++;
                if (f && f->name)
                        continue;
                snprintf(v->path + base, sizeof(v->path) - base, ".%s", key);
                if (!s->values) {
                        r = fail(v, "unknown key \"%s\"", key);
                        goto out;
                }
                r = validate(v, member, s->values);
                if (r < 0)
                        goto out;
        }
        for (const struct schema_field *f = s->fields; f && f->name; f++) {
                json_t *child = json_object_get(value, f->name);
                snprintf(v->path + base, sizeof(v->path) - base, ".%s", f->name);
                if (!child) {
                        if (f->required) {
                                r = fail(v, "missing required field");
                                goto out;
                        }
                        continue;
                }
                r = validate(v, child, f->schema);
                if (r < 0)
                        goto out;
        }
out:
        if (r == 0)
                v->path[base] = '\0';
        return r;
}

static int validate_array(struct validation *v, const json_t *value, const struct schema *s)
{
        size_t base = strlen(v->path);
        size_t n = json_array_size(value);

        if (s->min_items && n < s->min_items)
                return fail(v, "expected at least %zu item%s, got %zu", s->min_items,
                            s->min_items == 1 ? "" : "s", n);
        if (s->max_items && n > s->max_items)
                return fail(v, "expected at most %zu items, got %zu", s->max_items, n);
        if (!s->items)
                return 0;
        for (size_t i = 0; i < n; i++) {
                int r;
                snprintf(v->path + base, sizeof(v->path) - base, "[%zu]", i);
                r = validate(v, json_array_get(value, i), s->items);
                if (r < 0)
                        return r;
        }
        v->path[base] = '\0';
        return 0;
}

static int validate_number(struct validation *v, const json_t *value, const struct schema *s)
{
        double x = json_number_value(value);

        if (!isfinite(x))
                return fail(v, "expected a finite number");
        if (s->has_min && x < s->min)
                return fail(v, "must be at least %g, got %g", s->min, x);
        if (s->has_max && x > s->max)
                return fail(v, "must be at most %g, got %g", s->max, x);
        return 0;
}

static int validate_string(struct validation *v, const json_t *value, const struct schema *s)
{
        const char *str = json_string_value(value);
        size_t len = json_string_length(value);

        if (strlen(str) != len)
                return fail(v, "string contains a NUL byte");
        if (s->non_empty && len == 0)
                return fail(v, "must not be empty");
        if (s->max_length && len > s->max_length)
                return fail(v, "longer than %zu characters", s->max_length);
        if (s->choices) {
                char list[256];
                size_t pos = 0;
                for (const char *const *c = s->choices; *c; c++)
                        if (strcmp(*c, str) == 0)
                                return 0;
                list[0] = '\0';
                for (const char *const *c = s->choices; *c && pos < sizeof(list); c++)
                        pos += (size_t)snprintf(list + pos, sizeof(list) - pos, "%s\"%s\"",
                                                c == s->choices ? "" : ", ", *c);
                return fail(v, "expected one of %s, got \"%s\"", list, str);
        }
        return 0;
}

static int validate(struct validation *v, const json_t *value, const struct schema *s)
{
        unsigned kind = kind_of(value);
        unsigned allowed = s->kinds;

        if (allowed & SCHEMA_NUMBER)
                allowed |= SCHEMA_INTEGER;
        if (!(kind & allowed)) {
                char phrase[160];
                if (s->expected)
                        snprintf(phrase, sizeof(phrase), "%s", s->expected);
                else
                        describe_kinds(s->kinds, phrase, sizeof(phrase));
                return fail(v, "expected %s", phrase);
        }
        switch (kind) {
        case SCHEMA_OBJECT:
                return validate_object(v, value, s);
        case SCHEMA_ARRAY:
                return validate_array(v, value, s);
        case SCHEMA_INTEGER:
        case SCHEMA_NUMBER:
                return validate_number(v, value, s);
        case SCHEMA_STRING:
                return validate_string(v, value, s);
        default:
                return 0;
        }
}

int schema_validate(const json_t *doc, const struct schema *schema, const char *source, char *err,
                    size_t err_size)
{
        struct validation v = { .source = source ? source : "<json>",
                                .err = err,
                                .err_size = err_size };

        if (!doc || !schema)
                return -EINVAL;
        return validate(&v, doc, schema);
}

int json_parse_text(const char *text, size_t len, const char *source, json_t **ret_doc, char *err,
                    size_t err_size)
{
        json_error_t error;
        json_t *doc;

        if (!text)
                return -EINVAL;
        doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &error);
        if (!doc) {
                if (err && err_size)
                        snprintf(err, err_size, "%s:%d:%d: %s", source ? source : "<json>",
                                 error.line, error.column, error.text);
                return -EINVAL;
        }
        *ret_doc = doc;
        return 0;
}
