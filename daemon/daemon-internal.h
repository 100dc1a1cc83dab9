/* SPDX-License-Identifier: MIT */
/* The daemon's state, shared by its lifecycle (daemon.c) and its control API (control.c). */
#ifndef ASCENDOPT_DAEMON_INTERNAL_H
#define ASCENDOPT_DAEMON_INTERNAL_H

#include "daemon.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

struct event_base;
struct event;
struct store;
struct queue;
struct device_pool;
struct watcher;
struct control;

struct daemon {
        struct event_base *base;
        struct config *config;
        char *config_path;
        struct event *sigterm, *sigint, *sighup;
        struct store *store;
        struct queue *queue;
        struct device_pool *devices;
        struct watcher *watcher;
        struct control *control;
        bool paused;
        time_t started;
        uint64_t commits_seen;
};

/* Reloads the config from d->config_path; on failure keeps the old one and fills err. */
int daemon_reload(struct daemon *d, char *err, size_t err_size);

/* The status object of 'ascendopt status'. */
json_t *daemon_status(struct daemon *d);

/*
 * Starts the control API: HTTP+JSON on the unix socket of the config,
 * mode 0660.  Mutating requests are accepted only from the daemon's own
 * user, root, or members of the daemon's group (SO_PEERCRED).
 */
int control_start(struct daemon *d, struct control **ret_control, char *err, size_t err_size);
struct control *control_stop(struct control *control);

#endif
