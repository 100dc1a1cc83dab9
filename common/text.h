/* SPDX-License-Identifier: MIT */
/*
 * Text: a growable string that remembers a failed allocation instead of
 * making every append check one, and the one way to put an error message
 * into a caller's buffer and return its code.  Part of common/common.h,
 * which includes it.
 */
#ifndef ASCENDOPT_COMMON_TEXT_H
#define ASCENDOPT_COMMON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* A growable NUL-terminated string; { 0 } is an empty one. */
struct strbuf {
        char *buf; /* NULL until something is written */
        size_t len, cap;
        bool oom; /* an allocation failed: later appends do nothing */
};

void strbuf_putn(struct strbuf *sb, const char *s, size_t n);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Hands the string over and empties sb: "" when nothing was written, NULL
 * (and nothing to free) when an allocation failed.
 */
char *strbuf_detach(struct strbuf *sb);
/* Frees the string and empties sb; accepts NULL. */
void strbuf_release(struct strbuf *sb);

/*
 * Formats a message into err (size bytes; nothing when err is NULL or size
 * 0) and returns r, so that "return format_error(err, size, -EINVAL, ...)"
 * reports and fails in one statement.
 */
int format_error(char *err, size_t size, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
