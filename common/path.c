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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

int format_path(char *buf, size_t size, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < size)
                return 0;
        if (size)
                buf[0] = '\0';
        return -ENAMETOOLONG;
}

bool path_is_plain_relative(const char *path)
{
        const char *p = path;

        if (!path || !*path || *path == '/' || strlen(path) >= PATH_MAX)
                return false;
        while (*p) {
                size_t len = strcspn(p, "/");
                if (len == 0 || (len == 1 && p[0] == '.') ||
                    (len == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                for (size_t i = 0; i < len; i++)
                        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
                                return false;
                p += len;
                if (*p == '/' && !*++p)
                        return false; /* a trailing slash is an empty component */
        }
        return true;
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

struct usage {
        uint64_t bytes, entries, max_bytes, max_entries;
};

/* Adds the entries below the directory open as fd (closed here) to u, until past a max. */
static void add_usage(int fd, unsigned depth, struct usage *u)
{
        DIR *d = fdopendir(fd);
        struct dirent *e;

        if (!d) {
                close(fd);
                return;
        }
        while ((e = readdir(d)) && u->bytes <= u->max_bytes && u->entries <= u->max_entries) {
                struct stat st;
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                u->entries++;
                u->bytes += (uint64_t)st.st_blocks * 512;
                if (!S_ISDIR(st.st_mode))
                        continue;
                if (depth >= DIR_USAGE_MAX_DEPTH) {
                        u->entries = u->max_entries + 1;
                        break;
                }
                int child =
                    openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (child >= 0)
                        add_usage(child, depth + 1, u);
        }
        closedir(d);
}

int dir_usage(const char *path, uint64_t max_bytes, uint64_t max_entries, uint64_t *ret_bytes,
              uint64_t *ret_entries)
{
        struct usage u = { .max_bytes = max_bytes, .max_entries = max_entries };
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        add_usage(fd, 0, &u);
        *ret_bytes = u.bytes;
        *ret_entries = u.entries;
        return 0;
}

/* The bits of st that apply to uid and gids, as the kernel picks them; 0 uid passes rw. */
static int refused_bits(const struct stat *st, uid_t uid, const gid_t *gids, size_t n_gids,
                        int mode, struct path_access *a)
{
        int granted;

        a->owner = st->st_uid;
        a->group = st->st_gid;
        a->mode = st->st_mode & 07777;
        a->is_owner = st->st_uid == uid;
        a->in_group = false;
        for (size_t i = 0; i < n_gids && !a->is_owner; i++)
                a->in_group |= gids[i] == st->st_gid;
        if (uid == 0)
                granted = R_OK | W_OK | ((st->st_mode & 0111) ? X_OK : 0);
        else if (a->is_owner)
                granted = (st->st_mode >> 6) & 7;
        else if (a->in_group)
                granted = (st->st_mode >> 3) & 7;
        else
                granted = st->st_mode & 7;
        return mode & ~granted;
}

int path_user_access(const char *path, uid_t uid, const gid_t *gids, size_t n_gids, int mode,
                     struct path_access *ret)
{
        struct path_access scratch = { 0 };
        struct path_access *a = ret ? ret : &scratch;
        struct stat st;
        char *slash;

        if (ret)
                memset(ret, 0, sizeof(*ret));
        if (format_path(a->path, sizeof(a->path), "%s", path) < 0)
                return -ENAMETOOLONG;
        /* every directory on the way must be searchable, from the root down */
        for (slash = strchr(a->path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = '\0';
                if (stat(a->path, &st) < 0)
                        return -errno;
                a->missing =
                    S_ISDIR(st.st_mode) ? refused_bits(&st, uid, gids, n_gids, X_OK, a) : 0;
                if (a->missing)
                        return -EACCES;
                *slash = '/';
        }
        snprintf(a->path, sizeof(a->path), "%s", path);
        if (stat(path, &st) < 0)
                return -errno;
        a->missing = refused_bits(&st, uid, gids, n_gids, mode, a);
        return a->missing ? -EACCES : 0;
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

/* ------------------------------------------------------------ files a sandbox wrote */

/*
 * The component-by-component walk when openat2 is missing: every
 * directory on the way opened with O_NOFOLLOW, then the last component.
 */
static int open_walk_no_symlinks(const char *path, int flags, mode_t mode)
{
        char copy[PATH_MAX], *save = NULL, *part, *next;
        int dirfd, fd;

        if (format_path(copy, sizeof(copy), "%s", path) < 0)
                return -ENAMETOOLONG;
        dirfd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return -errno;
        part = strtok_r(copy, "/", &save);
        while (part) {
                next = strtok_r(NULL, "/", &save);
                if (strcmp(part, "..") == 0) {
                        close(dirfd);
                        return -ELOOP;
                }
                if (!next) {
                        fd = openat(dirfd, part, flags | O_NOFOLLOW | O_CLOEXEC, mode);
                        close(dirfd);
                        return fd < 0 ? -errno : fd;
                }
                fd = openat(dirfd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                close(dirfd);
                if (fd < 0)
                        return -errno;
                dirfd = fd;
                part = next;
        }
        close(dirfd);
        return -EISDIR;
}

int open_no_symlinks(const char *path, int flags, mode_t mode)
{
        struct open_how how = {
                .flags = (uint64_t)(flags | O_CLOEXEC),
                .mode = (flags & O_CREAT) ? mode : 0,
                .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

        if (fd >= 0)
                return (int)fd;
        if (errno != ENOSYS && errno != EPERM)
                return -errno;
        /* an older kernel, or a seccomp filter that does not know openat2 */
        return open_walk_no_symlinks(path, flags, mode);
}

int copy_file(const char *from, const char *to, mode_t mode, bool untrusted)
{
        char buf[65536];
        struct stat st;
        ssize_t n;
        int in, out, r = 0;

        in = untrusted ? open_no_symlinks(from, O_RDONLY | O_NONBLOCK, 0)
                       : open(from, O_RDONLY | O_CLOEXEC);
        if (in < 0)
                return untrusted ? in : -errno;
        if (fstat(in, &st) < 0)
                r = -errno;
        else if (!S_ISREG(st.st_mode))
                r = -EINVAL;
        if (r < 0) {
                close(in);
                return r;
        }
        out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
        if (out < 0) {
                r = -errno;
                close(in);
                return r;
        }
        while ((n = read(in, buf, sizeof(buf))) > 0) {
                char *p = buf;
                while (n > 0) {
                        ssize_t w = write(out, p, (size_t)n);
                        if (w < 0) {
                                r = -errno;
                                goto out;
                        }
                        p += w;
                        n -= w;
                }
        }
        if (n < 0)
                r = -errno;
out:
        close(in);
        if (close(out) < 0 && r == 0)
                r = -errno;
        return r;
}

int read_untrusted_file(const char *path, size_t max_bytes, char **ret_data, size_t *ret_len)
{
        struct stat st;
        size_t got = 0;
        char *data;
        int fd = open_no_symlinks(path, O_RDONLY | O_NONBLOCK, 0);

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL;
        }
        if ((uint64_t)st.st_size > max_bytes) {
                close(fd);
                return -EFBIG;
        }
        data = malloc((size_t)st.st_size + 1);
        if (!data) {
                close(fd);
                return -ENOMEM;
        }
        while (got < (size_t)st.st_size) {
                ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                got += (size_t)n;
        }
        close(fd);
        data[got] = '\0';
        *ret_data = data;
        *ret_len = got;
        return 0;
}

int map_untrusted_file(const char *path, size_t max_bytes, const void **ret_data, size_t *ret_len)
{
        struct stat st;
        void *data;
        int fd = open_no_symlinks(path, O_RDONLY | O_NONBLOCK, 0), r = 0;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                r = -EINVAL;
        else if ((uint64_t)st.st_size > max_bytes)
                r = -EFBIG;
        if (r == 0 && st.st_size == 0) {
                *ret_data = NULL;
                *ret_len = 0;
        } else if (r == 0) {
                data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
                if (data == MAP_FAILED) {
                        r = -errno;
                } else {
                        *ret_data = data;
                        *ret_len = (size_t)st.st_size;
                }
        }
        close(fd);
        return r;
}

void unmap_file(const void *data, size_t len)
{
        if (data && len)
                munmap((void *)data, len);
}

/* All of data to fd, through short writes and signals. */
static int write_all(int fd, const void *data, size_t len)
{
        size_t done = 0;

        while (done < len) {
                ssize_t n = write(fd, (const char *)data + done, len - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EIO;
                done += (size_t)n;
        }
        return 0;
}

int write_file_exclusive(const char *path, const void *data, size_t len, mode_t mode)
{
        int fd, r;

        /* whatever is there, a link a sandbox planted included, goes first */
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        fd = open_no_symlinks(path, O_WRONLY | O_CREAT | O_EXCL, mode);
        if (fd < 0)
                return fd;
        r = write_all(fd, data, len);
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
        char tmp[PATH_MAX];
        int fd, r;

        if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
                return -ENAMETOOLONG;
        if (unlink(tmp) < 0 && errno != ENOENT)
                return -errno;
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
                return -errno;
        r = write_all(fd, data, len);
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}
