/* SPDX-License-Identifier: MIT */
/*
 * A scripted OpenAI-compatible HTTP server for the tests of llm/: it listens
 * on 127.0.0.1, prints its port as the first line of stdout, answers each
 * request with the next canned response of the first rule that matches it,
 * and records every request (path, headers, body, requests in flight) as
 * one JSON line, so that tests can assert on what the client sent.
 *
 * usage: llm-peer --script FILE [--log FILE] [--port N] [--timeout SECONDS]
 *
 * The script is {"rules": [RULE...]}, RULE being
 *   {"path": "/v1/chat/completions", "body_contains": "optional substring",
 *    "responses": [{"status": 200, "headers": {"Retry-After": "1"},
 *                   "json": {...} or "body": "raw text", "delay_ms": 0}, ...]}
 * The nth request matching a rule gets its nth response; the last repeats.
 * A request no rule matches gets a 404.  The peer exits on SIGTERM or SIGINT,
 * when its parent dies, and after --timeout seconds (60) whatever happens.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

struct peer {
        struct event_base *base;
        json_t *rules;
        size_t *hits; /* per rule */
        FILE *log;
        unsigned long seq;
        int in_flight;
        double t0;
        struct pending *pending; /* delayed answers, to free on exit */
        json_t *not_found;       /* the answer when no rule matches */
};

struct pending {
        struct peer *peer;
        struct pending *prev, *next;
        struct evhttp_request *req;
        struct event *timer;
        const json_t *response; /* borrowed from the script */
};

static double now_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reply(struct peer *peer, struct evhttp_request *req, const json_t *response)
{
        struct evkeyvalq *out = evhttp_request_get_output_headers(req);
        const json_t *status = json_object_get(response, "status");
        const json_t *headers = json_object_get(response, "headers");
        const json_t *json = json_object_get(response, "json");
        const json_t *body = json_object_get(response, "body");
        const json_t *value;
        struct evbuffer *buf = evbuffer_new();
        const char *name;
        char *text = NULL;
        int code = json_is_integer(status) ? (int)json_integer_value(status) : 200;

        if (json)
                text = json_dumps(json, JSON_COMPACT | JSON_ENCODE_ANY);
        else if (json_is_string(body))
                text = strdup(json_string_value(body));
        if (!json_object_get(headers, "Content-Type"))
                evhttp_add_header(out, "Content-Type", "application/json");
        json_object_foreach((json_t *)headers, name, value)
        {
                if (json_is_string(value))
                        evhttp_add_header(out, name, json_string_value(value));
        }
        if (buf && text)
                evbuffer_add(buf, text, strlen(text));
        evhttp_send_reply(req, code, code < 300 ? "OK" : "Scripted", buf);
        if (buf)
                evbuffer_free(buf);
        free(text);
        peer->in_flight--;
}

static void on_delay(evutil_socket_t fd, short what, void *arg)
{
        struct pending *p = arg;
        struct peer *peer = p->peer;

        reply(peer, p->req, p->response);
        if (p->prev)
                p->prev->next = p->next;
        else
                peer->pending = p->next;
        if (p->next)
                p->next->prev = p->prev;
        event_free(p->timer);
        free(p);
}

static void record(struct peer *peer, struct evhttp_request *req, const char *path,
                   const char *body)
{
        struct evkeyvalq *in = evhttp_request_get_input_headers(req);
        struct evkeyval *h;
        json_t *headers = json_object(), *line;

        TAILQ_FOREACH(h, in, next)
        {
                json_object_set_new(headers, h->key, json_string(h->value));
        }
        line = json_pack(
            "{s:i, s:f, s:s, s:s, s:o, s:s, s:i}", "seq", (int)peer->seq, "t", now_s() - peer->t0,
            "method", evhttp_request_get_command(req) == EVHTTP_REQ_POST ? "POST" : "OTHER", "path",
            path, "headers", headers, "body", body, "in_flight", peer->in_flight);
        if (!line) {
                fprintf(stderr, "llm-peer: out of memory: request %d is not logged\n",
                        (int)peer->seq);
        } else if (peer->log) {
                json_dumpf(line, peer->log, JSON_COMPACT);
                fputc('\n', peer->log);
                fflush(peer->log);
        }
        json_decref(line);
}

static const json_t *match(struct peer *peer, const char *path, const char *body)
{
        const json_t *rule, *responses, *want_path, *contains;
        size_t i, n, k;

        json_array_foreach(peer->rules, i, rule)
        {
                want_path = json_object_get(rule, "path");
                contains = json_object_get(rule, "body_contains");
                responses = json_object_get(rule, "responses");
                if (json_is_string(want_path) && strcmp(json_string_value(want_path), path) != 0)
                        continue;
                if (json_is_string(contains) && !strstr(body, json_string_value(contains)))
                        continue;
                n = json_array_size(responses);
                if (n == 0)
                        continue;
                k = peer->hits[i]++;
                return json_array_get(responses, k < n ? k : n - 1);
        }
        return NULL;
}

static void on_request(struct evhttp_request *req, void *arg)
{
        struct peer *peer = arg;
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
        size_t len = evbuffer_get_length(in);
        char *body = calloc(1, len + 1);
        const json_t *response, *delay;
        struct pending *p;
        struct timeval tv;

        if (!path)
                path = "";
        if (body && len)
                evbuffer_copyout(in, body, len);
        peer->seq++;
        peer->in_flight++;
        record(peer, req, path, body ? body : "");
        response = match(peer, path, body ? body : "");
        free(body);
        if (!response) {
                response = peer->not_found;
        }
        delay = json_object_get(response, "delay_ms");
        if (!json_is_integer(delay) || json_integer_value(delay) <= 0) {
                reply(peer, req, response);
                return;
        }
        p = calloc(1, sizeof(*p));
        if (!p) {
                reply(peer, req, response);
                return;
        }
        p->peer = peer;
        p->req = req;
        p->response = response;
        p->timer = evtimer_new(peer->base, on_delay, p);
        p->next = peer->pending;
        if (peer->pending)
                peer->pending->prev = p;
        peer->pending = p;
        tv.tv_sec = json_integer_value(delay) / 1000;
        tv.tv_usec = (json_integer_value(delay) % 1000) * 1000;
        evtimer_add(p->timer, &tv);
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
        event_base_loopexit(arg, NULL);
}

static int usage(void)
{
        fprintf(stderr,
                "usage: llm-peer --script FILE [--log FILE] [--port N] [--timeout SECONDS]\n");
        return 64;
}

int main(int argc, char **argv)
{
        const char *script = NULL, *log_path = NULL;
        struct peer peer = { 0 };
        struct evhttp *http = NULL;
        struct evhttp_bound_socket *bound;
        struct event *sigterm = NULL, *sigint = NULL, *deadline = NULL;
        struct sockaddr_in addr = { 0 };
        socklen_t addr_len = sizeof(addr);
        struct timeval tv = { 0 };
        json_error_t jerr;
        json_t *doc = NULL;
        double timeout_s = 60;
        int port = 0, r = 1;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--script") == 0 && i + 1 < argc)
                        script = argv[++i];
                else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
                        log_path = argv[++i];
                else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
                        port = atoi(argv[++i]);
                else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
                        timeout_s = atof(argv[++i]);
                else
                        return usage();
        }
        if (!script || timeout_s <= 0)
                return usage();
        /* never outlive the test that started us */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1)
                return 1;
        signal(SIGPIPE, SIG_IGN);

        doc = json_load_file(script, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc) {
                fprintf(stderr, "llm-peer: %s:%d: %s\n", script, jerr.line, jerr.text);
                return 65;
        }
        peer.rules = json_object_get(doc, "rules");
        if (!json_is_array(peer.rules)) {
                fprintf(stderr, "llm-peer: %s: expected {\"rules\": [...]}\n", script);
                r = 65;
                goto out;
        }
        peer.not_found = json_pack("{s:i, s:{s:{s:s}}}", "status", 404, "json", "error", "message",
                                   "no rule matches this request");
        peer.hits = calloc(json_array_size(peer.rules) + 1, sizeof(*peer.hits));
        if (log_path) {
                peer.log = fopen(log_path, "we");
                if (!peer.log) {
                        fprintf(stderr, "llm-peer: %s: %s\n", log_path, strerror(errno));
                        goto out;
                }
        }
        peer.t0 = now_s();
        peer.base = event_base_new();
        http = peer.base ? evhttp_new(peer.base) : NULL;
        if (!http || !peer.hits || !peer.not_found)
                goto out;
        evhttp_set_gencb(http, on_request, &peer);
        bound = evhttp_bind_socket_with_handle(http, "127.0.0.1", (ev_uint16_t)port);
        if (!bound ||
            getsockname(evhttp_bound_socket_get_fd(bound), (struct sockaddr *)&addr, &addr_len)) {
                fprintf(stderr, "llm-peer: cannot listen on 127.0.0.1:%d\n", port);
                goto out;
        }
        sigterm = evsignal_new(peer.base, SIGTERM, on_stop, peer.base);
        sigint = evsignal_new(peer.base, SIGINT, on_stop, peer.base);
        deadline = evtimer_new(peer.base, on_stop, peer.base);
        if (!sigterm || !sigint || !deadline)
                goto out;
        evsignal_add(sigterm, NULL);
        evsignal_add(sigint, NULL);
        tv.tv_sec = (time_t)timeout_s;
        tv.tv_usec = (suseconds_t)((timeout_s - (double)tv.tv_sec) * 1e6);
        evtimer_add(deadline, &tv);

        printf("%d\n", ntohs(addr.sin_port));
        fflush(stdout);
        event_base_dispatch(peer.base);
        r = 0;
out:
        while (peer.pending) {
                struct pending *p = peer.pending;

                peer.pending = p->next;
                /* answering frees the request, even one whose client is gone */
                evhttp_send_reply(p->req, 503, "Stopping", NULL);
                event_free(p->timer);
                free(p);
        }
        if (http)
                evhttp_free(http);
        if (sigterm)
                event_free(sigterm);
        if (sigint)
                event_free(sigint);
        if (deadline)
                event_free(deadline);
        if (peer.base)
                event_base_free(peer.base);
        if (peer.log)
                fclose(peer.log);
        free(peer.hits);
        json_decref(peer.not_found);
        json_decref(doc);
        return r;
}
