/* SPDX-License-Identifier: MIT */
/*
 * Growable strings (struct strbuf) and format_error(): the small text
 * helpers every folder used to write for itself.
 */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strbuf_grow(struct strbuf *sb, size_t extra)
{
        size_t cap;
        char *p;

        if (sb->oom || sb->len + extra + 1 <= sb->cap)
                return;
        if (extra > SIZE_MAX / 2 - sb->len - 1) {
                sb->oom = true;
                return;
        }
        cap = sb->cap ? sb->cap : 256;
        while (cap < sb->len + extra + 1)
                cap *= 2;
        p = realloc(sb->buf, cap);
        if (!p) {
                sb->oom = true;
                return;
        }
        sb->buf = p;
        sb->cap = cap;
}

void strbuf_putn(struct strbuf *sb, const char *s, size_t n)
{
        strbuf_grow(sb, n);
        if (sb->oom)
                return;
        if (n)
                memcpy(sb->buf + sb->len, s, n);
        sb->len += n;
        sb->buf[sb->len] = '\0';
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
        strbuf_putn(sb, s, strlen(s));
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                sb->oom = true;
                return;
        }
        strbuf_grow(sb, (size_t)n);
        if (sb->oom)
                return;
        va_start(ap, fmt);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb->len += (size_t)n;
}

char *strbuf_detach(struct strbuf *sb)
{
        char *s;

        if (!sb->oom && !sb->buf)
                strbuf_putn(sb, "", 0);
        if (sb->oom) {
                strbuf_release(sb);
                return NULL;
        }
        s = sb->buf;
        *sb = (struct strbuf){ 0 };
        return s;
}

void strbuf_release(struct strbuf *sb)
{
        if (!sb)
                return;
        free(sb->buf);
        *sb = (struct strbuf){ 0 };
}

int format_error(char *err, size_t size, int r, const char *fmt, ...)
{
        va_list ap;

        if (!err || !size)
                return r;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
        return r;
}
