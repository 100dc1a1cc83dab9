/* SPDX-License-Identifier: MIT */
/*
 * Logging: one line per event with an sd-daemon priority prefix, so that
 * journald keeps priorities when the daemon runs under systemd, and a plain
 * "error: " style word when a person reads a terminal.
 */
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int log_max_level = LOG_INFO;
static int log_fd = -1;

void log_set_max_level(int priority)
{
        if (priority < LOG_EMERG)
                priority = LOG_EMERG;
        if (priority > LOG_DEBUG)
                priority = LOG_DEBUG;
        log_max_level = priority;
}

int log_get_max_level(void)
{
        return log_max_level;
}

void log_set_fd(int fd)
{
        log_fd = fd;
}

static const char *const level_names[] = {
        "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

/* What a person at a terminal sees instead of "<N>". */
static const char *const level_words[] = {
        "emergency: ", "alert: ", "critical: ", "error: ", "warning: ", "", "", "debug: ",
};

int log_level_from_string(const char *s, int *ret_priority)
{
        if (!s || !*s)
                return -EINVAL;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0') {
                *ret_priority = s[0] - '0';
                return 0;
        }
        for (size_t i = 0; i < ARRAY_SIZE(level_names); i++) {
                if (strcasecmp(s, level_names[i]) == 0) {
                        *ret_priority = (int)i;
                        return 0;
                }
        }
        if (strcasecmp(s, "error") == 0) {
                *ret_priority = LOG_ERR;
                return 0;
        }
        return -EINVAL;
}

/* Appends src to buf at *pos, escaping control characters so a message
 * can never span lines or smuggle terminal escapes. */
static void append_escaped(char *buf, size_t size, size_t *pos, const char *src)
{
        for (const unsigned char *p = (const unsigned char *)src; *p && *pos + 5 < size; p++) {
                if (*p == '\n') {
                        buf[(*pos)++] = '\\';
                        buf[(*pos)++] = 'n';
                } else if (*p < 0x20 || *p == 0x7f) {
                        *pos += (size_t)snprintf(buf + *pos, size - *pos, "\\x%02x", *p);
                } else {
                        buf[(*pos)++] = (char)*p;
                }
        }
}

void log_msg(int priority, const char *context, const char *fmt, ...)
{
        char message[4096];
        char line[8192];
        size_t pos = 0;
        int saved_errno = errno;
        int fd = log_fd >= 0 ? log_fd : STDERR_FILENO;
        va_list ap;

        if (priority < LOG_EMERG)
                priority = LOG_EMERG;
        if (priority > LOG_DEBUG)
                priority = LOG_DEBUG;
        if (priority > log_max_level)
                goto out;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);

        if (isatty(fd))
                pos += (size_t)snprintf(line, sizeof(line), "%s", level_words[priority]);
        else
                pos += (size_t)snprintf(line, sizeof(line), "<%d>", priority);
        if (context && *context) {
                line[pos++] = '[';
                append_escaped(line, sizeof(line), &pos, context);
                line[pos++] = ']';
                line[pos++] = ' ';
        }
        append_escaped(line, sizeof(line), &pos, message);
        line[pos++] = '\n';

        /* One write per line keeps lines whole when several processes share stderr. */
        for (size_t done = 0; done < pos;) {
                ssize_t n = write(fd, line + done, pos - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                done += (size_t)n;
        }
out:
        errno = saved_errno;
}
