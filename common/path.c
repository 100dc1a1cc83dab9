/* SPDX-License-Identifier: MIT */
/* Small filesystem helpers for building paths and scratch directories. */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int format_path(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int mkdir_p(const char *path)
{
        char buf[PATH_MAX];

        if (format_path(buf, sizeof(buf), "%s", path) < 0)
                return -ENAMETOOLONG;
        for (char *p = buf + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* Removes the entries of the directory open as dirfd, then nothing else. */
static int remove_entries(int dirfd)
{
        DIR *d = fdopendir(dirfd);
        struct dirent *e;
        int r = 0;

        if (!d) {
                close(dirfd);
                return -errno;
        }
        while ((e = readdir(d))) {
                struct stat st;
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        int child = openat(dirfd, e->d_name,
                                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (child >= 0)
                                remove_entries(child);
                        if (unlinkat(dirfd, e->d_name, AT_REMOVEDIR) < 0 && r == 0)
                                r = -errno;
                } else if (unlinkat(dirfd, e->d_name, 0) < 0 && r == 0) {
                        r = -errno;
                }
        }
        closedir(d);
        return r;
}

int rm_rf(const char *path)
{
        struct stat st;
        int fd;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISDIR(st.st_mode))
                return unlink(path) < 0 ? -errno : 0;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        remove_entries(fd);
        return rmdir(path) < 0 ? -errno : 0;
}

int program_relative_path(char *buf, size_t size, const char *rel)
{
        char exe[PATH_MAX], *slash;
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

        if (n <= 0)
                return n < 0 ? -errno : -ENOENT;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (!slash)
                return -ENOENT;
        *slash = '\0';
        return format_path(buf, size, "%s/%s", exe, rel);
}

void json_counter_add(json_t *object, const char *key, json_int_t n)
{
        json_object_set_new(object, key,
                            json_integer(json_integer_value(json_object_get(object, key)) + n));
}

int read_text_file(const char *path, size_t max_bytes, char **ret_text, size_t *ret_len)
{
        FILE *f = fopen(path, "re");
        struct stat st;
        char *text;
        size_t got;

        if (!f)
                return -errno;
        if (fstat(fileno(f), &st) < 0 || (uint64_t)st.st_size > max_bytes) {
                fclose(f);
                return -EFBIG;
        }
        text = malloc((size_t)st.st_size + 1);
        if (!text) {
                fclose(f);
                return -ENOMEM;
        }
        got = fread(text, 1, (size_t)st.st_size, f);
        fclose(f);
        text[got] = '\0';
        *ret_text = text;
        *ret_len = got;
        return 0;
}
