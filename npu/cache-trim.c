/* SPDX-License-Identifier: MIT */
/*
 * Keeps the object cache under a size: its least recently used objects
 * go first (a cache hit touches an object's mtime, npu/sim-compile.c).  Shared by
 * 'ascendopt gc' and the daemon (limits.cache_max_bytes).  The cache only
 * saves compile time, so nothing an evaluation needs is lost: an object
 * removed under a fetch is a miss.  A precompiled prelude is the one thing
 * compiles use in place, so one used within the last hour stays.
 */
#include "evaluator.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_OBJECTS      200000
#define PRELUDE_IN_USE_S 3600

struct object {
        char name[96];
        time_t used;
        uint64_t size;
        bool in_use;
};

static int by_age(const void *a, const void *b)
{
        const struct object *x = a, *y = b;

        return x->used < y->used ? -1 : x->used > y->used;
}

/* Reads one cache entry into o; false when it is not one to count. */
static bool read_entry(const char *dir, const char *name, time_t now, struct object *o)
{
        char path[PATH_MAX];
        size_t len = strlen(name);
        struct stat st;

        /* an object's recorded hash goes with it */
        if (name[0] == '.' || (len > 7 && strcmp(name + len - 7, ".sha256") == 0) ||
            len >= sizeof(o->name) || format_path(path, sizeof(path), "%s/%s", dir, name) < 0 ||
            lstat(path, &st) < 0)
                return false;
        memset(o, 0, sizeof(*o));
        if (S_ISDIR(st.st_mode) && strncmp(name, "pch-", 4) == 0) {
                /* precompiled preludes count as their headers, which a use touches */
                static const char *const gchs[] = { "host_prelude.h.gch", "kernel_std.h.gch" };
                off_t size = 0;
                time_t used = 0;
                for (size_t i = 0; i < sizeof(gchs) / sizeof(gchs[0]); i++) {
                        char gch[PATH_MAX];
                        struct stat g;
                        if (format_path(gch, sizeof(gch), "%s/ascendsim/%s", path, gchs[i]) == 0 &&
                            stat(gch, &g) == 0) {
                                size += g.st_size;
                                used = g.st_mtime > used ? g.st_mtime : used;
                        }
                }
                /* none there: a build interrupted, oldest first */
                st.st_size = size;
                st.st_mtime = used;
                o->in_use = used && difftime(now, used) < PRELUDE_IN_USE_S;
        } else if (!S_ISREG(st.st_mode)) {
                return false;
        }
        snprintf(o->name, sizeof(o->name), "%s", name);
        o->used = st.st_mtime;
        o->size = (uint64_t)st.st_size;
        return true;
}

int npu_cache_trim(const char *dir, uint64_t max_bytes, struct npu_cache_trim *ret)
{
        struct object *objects = calloc(MAX_OBJECTS, sizeof(*objects));
        time_t now = time(NULL);
        struct dirent *e;
        size_t n = 0;
        DIR *d;

        memset(ret, 0, sizeof(*ret));
        if (!objects)
                return -ENOMEM;
        d = opendir(dir);
        if (!d) {
                free(objects);
                return errno == ENOENT ? 0 : -errno;
        }
        while ((e = readdir(d)) && n < MAX_OBJECTS)
                if (read_entry(dir, e->d_name, now, &objects[n])) {
                        ret->bytes_before += objects[n].size;
                        n++;
                }
        closedir(d);
        qsort(objects, n, sizeof(*objects), by_age);
        ret->bytes_after = ret->bytes_before;
        for (size_t i = 0; i < n && ret->bytes_after > max_bytes; i++) {
                char path[PATH_MAX], sidecar[PATH_MAX + 8];
                if (objects[i].in_use ||
                    format_path(path, sizeof(path), "%s/%s", dir, objects[i].name) < 0 ||
                    rm_rf(path) < 0) /* an object, or a precompiled prelude's directory */
                        continue;
                snprintf(sidecar, sizeof(sidecar), "%s.sha256", path);
                unlink(sidecar);
                ret->bytes_after -= objects[i].size;
                ret->removed++;
        }
        free(objects);
        return 0;
}
