/* SPDX-License-Identifier: MIT */
/*
 * The control socket's connections, counted and given a total deadline.
 * evhttp's own timeout restarts with every byte, so a client trickling a
 * request held its descriptor forever.  Here each connection evhttp
 * accepts gets its bufferevent from us (evhttp_set_bevcb): we keep a
 * reference to it and a timer, started at the connection and again at each
 * reply.  A connection still without a whole request when the timer fires
 * is shut down; one whose request is being
 * answered (a recreate waits for git) gets more time.  At max
 * connections the listener is paused, so further clients wait in the
 * kernel's backlog; it resumes as connections end.
 */
#include "control-internal.h"

#include "common/common.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

struct conn {
        struct control_conns *owner;
        struct bufferevent *bev; /* our reference: valid until we drop it */
        struct event *deadline;
        bool answering; /* a whole request is in and its reply not yet sent */
        struct conn *next;
};

struct control_conns {
        struct event_base *base;
        unsigned max, deadline_s, open;
        struct conn *list;
        bool full;
        control_conns_full_fn full_changed;
        void *userdata;
};

/* Whether evhttp still uses the bufferevent: it clears the callbacks when it frees it. */
static bool in_use(struct bufferevent *bev)
{
        bufferevent_data_cb readcb = NULL;

        bufferevent_getcb(bev, &readcb, NULL, NULL, NULL);
        return readcb != NULL;
}

static void update_full(struct control_conns *cs)
{
        bool full = cs->open >= cs->max;

        if (full == cs->full)
                return;
        cs->full = full;
        cs->full_changed(full, cs->userdata);
}

static void drop(struct control_conns *cs, struct conn *conn)
{
        for (struct conn **p = &cs->list; *p; p = &(*p)->next) {
                if (*p == conn) {
                        *p = conn->next;
                        break;
                }
        }
        event_free(conn->deadline);
        bufferevent_decref(conn->bev);
        free(conn);
        cs->open--;
}

/* Forgets connections evhttp has closed without telling us (no request ever came). */
static void prune(struct control_conns *cs)
{
        struct conn *next;

        for (struct conn *conn = cs->list; conn; conn = next) {
                next = conn->next;
                if (!in_use(conn->bev))
                        drop(cs, conn);
        }
}

static struct conn *find(struct control_conns *cs, struct bufferevent *bev)
{
        for (struct conn *conn = cs->list; conn; conn = conn->next)
                if (conn->bev == bev)
                        return conn;
        return NULL;
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
        struct conn *conn = arg;
        struct control_conns *cs = conn->owner;
        struct timeval tv = { cs->deadline_s, 0 };

        (void)fd;
        (void)what;
        if (conn->answering && in_use(conn->bev)) {
                evtimer_add(conn->deadline, &tv);
                return;
        }
        if (in_use(conn->bev)) {
                /* evhttp reads the end of the stream and frees the connection */
                log_msg(LOG_INFO, "control",
                        "a client sent no whole request within %u s; closing it", cs->deadline_s);
                shutdown(bufferevent_getfd(conn->bev), SHUT_RDWR);
        }
        drop(cs, conn);
        update_full(cs);
}

struct bufferevent *control_conns_open(struct event_base *base, void *arg)
{
        struct control_conns *cs = arg;
        struct timeval tv = { cs->deadline_s, 0 };
        struct conn *conn = calloc(1, sizeof(*conn));

        /*
         * No BEV_OPT_CLOSE_ON_FREE: evhttp then closes the descriptor itself
         * when it frees the connection, while our reference keeps only the
         * memory until we drop it.
         */
        prune(cs); /* before adding: evhttp sets the new one's callbacks after we return */
        if (!conn || !(conn->bev = bufferevent_socket_new(base, -1, 0)))
                goto fail;
        conn->deadline = evtimer_new(base, on_deadline, conn);
        if (!conn->deadline || evtimer_add(conn->deadline, &tv) < 0)
                goto fail;
        bufferevent_incref(conn->bev);
        conn->owner = cs;
        conn->next = cs->list;
        cs->list = conn;
        cs->open++;
        update_full(cs);
        return conn->bev;
fail:
        /* evhttp makes a bufferevent of its own: served, just not counted */
        if (conn && conn->deadline)
                event_free(conn->deadline);
        if (conn && conn->bev)
                bufferevent_free(conn->bev);
        free(conn);
        return NULL;
}

static void on_close(struct evhttp_connection *evcon, void *arg)
{
        struct control_conns *cs = arg;
        struct conn *conn = find(cs, evhttp_connection_get_bufferevent(evcon));

        if (conn) {
                drop(cs, conn);
                update_full(cs);
        }
}

static struct conn *conn_of(struct control_conns *cs, struct evhttp_request *req)
{
        struct evhttp_connection *evcon = evhttp_request_get_connection(req);

        return cs && evcon ? find(cs, evhttp_connection_get_bufferevent(evcon)) : NULL;
}

void control_conns_request(struct control_conns *cs, struct evhttp_request *req)
{
        struct conn *conn = conn_of(cs, req);

        if (!conn)
                return;
        conn->answering = true;
        evhttp_connection_set_closecb(evhttp_request_get_connection(req), on_close, cs);
}

/* A kept-alive connection gets the whole deadline again for its next request. */
void control_conns_replied(struct control_conns *cs, struct evhttp_request *req)
{
        struct conn *conn = conn_of(cs, req);
        struct timeval tv = { cs ? cs->deadline_s : 0, 0 };

        if (!conn)
                return;
        conn->answering = false;
        evtimer_add(conn->deadline, &tv);
}

int control_conns_new(struct event_base *base, unsigned max, unsigned deadline_s,
                      control_conns_full_fn full_changed, void *userdata,
                      struct control_conns **ret)
{
        struct control_conns *cs;

        if (!base || max == 0 || deadline_s == 0 || !full_changed)
                return -EINVAL;
        cs = calloc(1, sizeof(*cs));
        if (!cs)
                return -ENOMEM;
        *cs = (struct control_conns){ .base = base,
                                      .max = max,
                                      .deadline_s = deadline_s,
                                      .full_changed = full_changed,
                                      .userdata = userdata };
        *ret = cs;
        return 0;
}

struct control_conns *control_conns_free(struct control_conns *cs)
{
        if (!cs)
                return NULL;
        while (cs->list)
                drop(cs, cs->list);
        free(cs);
        return NULL;
}
