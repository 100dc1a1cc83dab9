/* SPDX-License-Identifier: MIT */
/*
 * The device pool: slots leased one measurement at a time, each lease
 * backed by a non-blocking flock so that other processes on the machine
 * respect it, plus quarantine for devices that failed a health probe.
 */
#include "queue.h"

#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct device {
        int id;
        int lock_fd; /* >= 0 while leased */
        bool quarantined;
        char *reason;
        char lock_path[PATH_MAX];
};

struct device_pool {
        struct device devices[DEVICE_POOL_MAX];
        size_t n;
};

static int pick_lock_dir(char *buf, size_t size)
{
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        const char *env = getenv("ASCENDOPT_LOCK_DIR");

        /* tests and side-by-side installs choose who they share devices with */
        if (env && *env) {
                int r = format_path(buf, size, "%s", env);
                return r < 0 ? r : mkdir_p(buf);
        }
        if (mkdir_p("/run/lock/ascendopt") == 0 && access("/run/lock/ascendopt", W_OK) == 0)
                return format_path(buf, size, "/run/lock/ascendopt");
        if (xdg && *xdg && format_path(buf, size, "%s/ascendopt/locks", xdg) == 0 &&
            mkdir_p(buf) == 0)
                return 0;
        if (format_path(buf, size, "/tmp/ascendopt-locks-%u", (unsigned)getuid()) < 0)
                return -ENAMETOOLONG;
        return mkdir_p(buf);
}

int device_pool_new(const char *backend, const int *ids, size_t n, const char *lock_dir,
                    struct device_pool **ret_pool)
{
        struct device_pool *pool;
        char dir[PATH_MAX];
        int r;

        if (!backend || !ids || n == 0 || n > DEVICE_POOL_MAX)
                return -EINVAL;
        if (lock_dir) {
                r = format_path(dir, sizeof(dir), "%s", lock_dir);
                if (r == 0)
                        r = mkdir_p(dir);
        } else {
                r = pick_lock_dir(dir, sizeof(dir));
        }
        if (r < 0)
                return r;
        pool = calloc(1, sizeof(*pool));
        if (!pool)
                return -ENOMEM;
        pool->n = n;
        for (size_t i = 0; i < n; i++) {
                pool->devices[i].id = ids[i];
                pool->devices[i].lock_fd = -1;
                r = format_path(pool->devices[i].lock_path, sizeof(pool->devices[i].lock_path),
                                "%s/%s-device-%d.lock", dir, backend, ids[i]);
                if (r < 0) {
                        free(pool);
                        return r;
                }
        }
        *ret_pool = pool;
        return 0;
}

struct device_pool *device_pool_free(struct device_pool *pool)
{
        if (!pool)
                return NULL;
        for (size_t i = 0; i < pool->n; i++) {
                device_pool_release(pool, i);
                free(pool->devices[i].reason);
        }
        free(pool);
        return NULL;
}

/* Takes the cross-process lock of a device; -EBUSY when someone holds it. */
static int lock_device(struct device *d)
{
        int fd = open(d->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int r = errno == EWOULDBLOCK ? -EBUSY : -errno;
                close(fd);
                return r;
        }
        d->lock_fd = fd;
        return 0;
}

int device_pool_acquire(struct device_pool *pool, size_t *ret_slot)
{
        bool held_elsewhere = false;

        for (size_t i = 0; i < pool->n; i++) {
                struct device *d = &pool->devices[i];
                int r;
                if (d->lock_fd >= 0 || d->quarantined)
                        continue;
                r = lock_device(d);
                if (r == 0) {
                        *ret_slot = i;
                        return 0;
                }
                held_elsewhere |= r == -EBUSY;
        }
        return held_elsewhere ? -EAGAIN : -EBUSY;
}

void device_pool_release(struct device_pool *pool, size_t slot)
{
        if (slot >= pool->n || pool->devices[slot].lock_fd < 0)
                return;
        /* closing drops the flock */
        close(pool->devices[slot].lock_fd);
        pool->devices[slot].lock_fd = -1;
}

void device_pool_quarantine(struct device_pool *pool, size_t slot, const char *reason)
{
        if (slot >= pool->n)
                return;
        pool->devices[slot].quarantined = true;
        free(pool->devices[slot].reason);
        pool->devices[slot].reason = reason ? strdup(reason) : NULL;
}

void device_pool_reinstate(struct device_pool *pool, size_t slot)
{
        if (slot >= pool->n)
                return;
        pool->devices[slot].quarantined = false;
        free(pool->devices[slot].reason);
        pool->devices[slot].reason = NULL;
}

size_t device_pool_size(const struct device_pool *pool)
{
        return pool ? pool->n : 0;
}

int device_pool_id(const struct device_pool *pool, size_t slot)
{
        return slot < pool->n ? pool->devices[slot].id : -1;
}

/* Whether another process holds a device we do not lease: probe its lock. */
static bool held_elsewhere(const struct device *d)
{
        int fd = open(d->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        bool held = false;

        if (fd < 0)
                return false;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                held = errno == EWOULDBLOCK;
        else
                flock(fd, LOCK_UN);
        close(fd);
        return held;
}

json_t *device_pool_status(const struct device_pool *pool)
{
        json_t *list = json_array();

        for (size_t i = 0; list && i < pool->n; i++) {
                const struct device *d = &pool->devices[i];
                const char *state = d->quarantined      ? "quarantined"
                                    : d->lock_fd >= 0   ? "leased"
                                    : held_elsewhere(d) ? "held_elsewhere"
                                                        : "free";
                if (json_array_append_new(list, json_pack("{s:i, s:s, s:s?}", "id", d->id, "state",
                                                          state, "reason", d->reason)) < 0) {
                        json_decref(list);
                        return NULL;
                }
        }
        return list;
}
