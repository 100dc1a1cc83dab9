/* SPDX-License-Identifier: MIT */
/*
 * The OpenAI-compatible client: libcurl's multi-socket API driven by the
 * caller's libevent loop (the shape of curl's hiperfifo example), with a
 * FIFO of calls behind a concurrency limit, retries on libevent timers,
 * a deadline per call, token budgets, and results delivered only from the
 * loop.  Nothing here blocks, sleeps or logs.
 */
#include "llm/llm-internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <event2/event.h>

#define DEFAULT_CONNECT_TIMEOUT_S 10.0
#define DEFAULT_TIMEOUT_S         120.0
#define DEFAULT_MAX_TOKENS        4096
#define DEFAULT_MAX_CONCURRENCY   2
#define DEFAULT_MAX_QUEUE         256
#define DEFAULT_MAX_ATTEMPTS      4
#define DEFAULT_BACKOFF_INITIAL_S 0.5
#define DEFAULT_BACKOFF_MAX_S     30.0
#define DEFAULT_RETRY_AFTER_MAX_S 60.0
#define MAX_KEY_BYTES             4096
#define ERROR_SNIPPET_BYTES       200
/* Retry-After waits get up to this fraction added, so that clients told the
 * same wait do not all come back in the same millisecond. */
#define RETRY_AFTER_JITTER 0.1

enum call_kind {
        CALL_CHAT,
        CALL_EMBED,
};

enum call_state {
        CALL_QUEUED,  /* waiting for a slot */
        CALL_RUNNING, /* a request is in the multi handle */
        CALL_WAITING, /* between attempts, on call->timer */
        CALL_DONE,    /* the callback is due on call->timer */
};

/* One socket libcurl asked us to watch. */
struct sock {
        struct llm_client *client;
        struct sock *prev, *next;
        curl_socket_t fd;
        struct event *event;
};

struct response {
        char *data;
        size_t len, cap;
        bool oversize;
};

struct llm_client {
        struct event_base *base;
        CURLM *multi;
        struct event *curl_timer;
        struct sock *socks;
        struct curl_slist *headers;
        char *chat_url, *embed_url;
        char *shown_endpoint; /* for messages: no user info, query or fragment */
        char *model, *embedding_model;
        char *key; /* kept only to star out echoes of it; NULL when none */
        bool loopback;
        bool curl_initialized;

        double connect_timeout_s, timeout_s;
        int max_tokens;
        double temperature;
        int max_concurrency;
        size_t max_queue;
        int max_attempts;
        double backoff_initial_s, backoff_max_s, retry_after_max_s;
        uint64_t rng;

        struct llm_call *calls; /* every call whose callback has not returned */
        struct llm_call *queue_head, *queue_tail;
        size_t n_calls, n_queued;
        int running; /* calls holding a slot */
        bool dispatching;
};

struct llm_call {
        struct llm_client *client;
        struct llm_call *prev, *next; /* client->calls */
        struct llm_call *queue_next;
        enum call_kind kind;
        enum call_state state;
        bool holds_slot, in_multi, started;
        char *body;
        size_t body_len;
        size_t n_inputs;
        CURL *easy;
        struct response response;
        char curl_error[CURL_ERROR_SIZE];
        struct event *timer;    /* backoff waits, then the delivery of the result */
        struct event *deadline; /* timeout_s after the call left the queue */
        struct timespec start;
        double next_backoff_s;
        struct llm_budget *budget;
        llm_done_fn done;
        void *userdata;

        struct llm_result result;
        char *content;
        char *finish_reason;
        float *vectors;
        char error[512];
};

static void start_attempt(struct llm_call *call);
static void dispatch_queue(struct llm_client *c);

const char *llm_outcome_name(enum llm_outcome outcome)
{
        switch (outcome) {
        case LLM_OK:
                return "ok";
        case LLM_HTTP_ERROR:
                return "http_error";
        case LLM_TIMEOUT:
                return "timeout";
        case LLM_TRUNCATED:
                return "truncated";
        case LLM_MALFORMED:
                return "malformed";
        case LLM_BUDGET_EXHAUSTED:
                return "budget_exhausted";
        case LLM_CANCELLED:
                return "cancelled";
        case LLM_UNREACHABLE:
                return "unreachable";
        }
        return "unknown";
}

/* ------------------------------------------------------------ helpers */

static double monotonic_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double call_elapsed_s(const struct llm_call *call)
{
        double start;

        if (!call->started)
                return 0;
        start = (double)call->start.tv_sec + (double)call->start.tv_nsec / 1e9;
        return monotonic_s() - start;
}

static struct timeval timeval_from_s(double s)
{
        struct timeval tv;

        if (s < 0)
                s = 0;
        tv.tv_sec = (time_t)s;
        tv.tv_usec = (suseconds_t)((s - (double)tv.tv_sec) * 1e6);
        return tv;
}

/* splitmix64: small, seedable, and good enough for jitter. */
static double random_unit(struct llm_client *c)
{
        uint64_t z = (c->rng += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return (double)(z >> 11) / 9007199254740992.0;
}

static void call_set_error(struct llm_call *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void call_set_error(struct llm_call *call, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(call->error, sizeof(call->error), fmt, ap);
        va_end(ap);
}

/* Stars out every copy of the key in s, whatever a server echoed back. */
static void redact(char *s, const char *key)
{
        size_t n;
        char *p;

        if (!s || !key || !*key)
                return;
        n = strlen(key);
        while ((p = strstr(s, key)))
                memset(p, '*', n);
}

static bool key_is_header_safe(const char *key)
{
        for (const char *p = key; *p; p++)
                if ((unsigned char)*p < 0x21 || (unsigned char)*p == 0x7f)
                        return false;
        return strlen(key) <= MAX_KEY_BYTES;
}

/* The length of the valid UTF-8 sequence at p (as jansson judges it), or 0. */
static size_t utf8_sequence(const unsigned char *p)
{
        uint32_t cp;
        size_t n;

        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf) {
                n = 2;
                cp = p[0] & 0x1f;
        } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
                n = 3;
                cp = p[0] & 0x0f;
        } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
                n = 4;
                cp = p[0] & 0x07;
        } else {
                return 0;
        }
        /* a NUL fails this test before anything past it is read */
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n;
}

/*
 * A JSON string of s, with every byte that is not valid UTF-8 replaced by
 * U+FFFD: sources with comments in a legacy encoding (GBK, Latin-1) still
 * make a valid request.  NULL when out of memory.
 */
static json_t *json_text(const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        json_t *j = json_string(s);
        size_t n, len = 0;
        char *clean;

        if (j)
                return j;
        clean = malloc(strlen(s) * 3 + 1);
        if (!clean)
                return NULL;
        while (*p) {
                n = utf8_sequence(p);
                if (n == 0) {
                        memcpy(clean + len, "\xEF\xBF\xBD", 3);
                        len += 3;
                        p++;
                        continue;
                }
                memcpy(clean + len, p, n);
                len += n;
                p += n;
        }
        clean[len] = '\0';
        j = json_string(clean);
        free(clean);
        return j;
}

static const char *call_path(const struct llm_call *call)
{
        return call->kind == CALL_CHAT ? "/chat/completions" : "/embeddings";
}

/* ------------------------------------------------ libcurl <-> libevent */

static void sock_free(struct llm_client *c, struct sock *s)
{
        if (!s)
                return;
        if (s->prev)
                s->prev->next = s->next;
        else
                c->socks = s->next;
        if (s->next)
                s->next->prev = s->prev;
        event_free(s->event);
        free(s);
}

static void process_finished(struct llm_client *c);

static void on_socket_event(evutil_socket_t fd, short what, void *arg)
{
        struct sock *s = arg;
        struct llm_client *c = s->client;
        int action = 0, still_running;

        if (what & EV_READ)
                action |= CURL_CSELECT_IN;
        if (what & EV_WRITE)
                action |= CURL_CSELECT_OUT;
        /* s may be freed by the socket callback inside this */
        curl_multi_socket_action(c->multi, fd, action, &still_running);
        process_finished(c);
}

static int on_curl_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
        struct llm_client *c = userp;
        struct sock *s = socketp;
        short kind;

        if (what == CURL_POLL_REMOVE) {
                sock_free(c, s);
                return 0;
        }
        kind = EV_PERSIST | ((what & CURL_POLL_IN) ? EV_READ : 0) |
               ((what & CURL_POLL_OUT) ? EV_WRITE : 0);
        if (!s) {
                s = calloc(1, sizeof(*s));
                if (!s)
                        return -1;
                s->client = c;
                s->fd = fd;
                s->event = event_new(c->base, fd, kind, on_socket_event, s);
                if (!s->event) {
                        free(s);
                        return -1;
                }
                s->next = c->socks;
                if (c->socks)
                        c->socks->prev = s;
                c->socks = s;
                curl_multi_assign(c->multi, fd, s);
        } else {
                event_del(s->event);
                event_assign(s->event, c->base, fd, kind, on_socket_event, s);
        }
        return event_add(s->event, NULL) == 0 ? 0 : -1;
}

static void on_curl_timeout(evutil_socket_t fd, short what, void *arg)
{
        struct llm_client *c = arg;
        int still_running;

        curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &still_running);
        process_finished(c);
}

/* libcurl asks for one timer; it must not call back into libcurl from here. */
static int on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
        struct llm_client *c = userp;
        struct timeval tv;

        if (timeout_ms < 0)
                return evtimer_del(c->curl_timer) == 0 ? 0 : -1;
        tv.tv_sec = timeout_ms / 1000;
        tv.tv_usec = (timeout_ms % 1000) * 1000;
        return evtimer_add(c->curl_timer, &tv) == 0 ? 0 : -1;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
        struct llm_call *call = userdata;
        struct response *r = &call->response;
        size_t n = size * nmemb, cap;
        char *p;

        if (r->len + n > LLM_MAX_RESPONSE_BYTES) {
                r->oversize = true;
                return 0;
        }
        if (r->len + n + 1 > r->cap) {
                cap = r->cap ? r->cap : 4096;
                while (cap < r->len + n + 1)
                        cap *= 2;
                p = realloc(r->data, cap);
                if (!p)
                        return 0;
                r->data = p;
                r->cap = cap;
        }
        memcpy(r->data + r->len, data, n);
        r->len += n;
        r->data[r->len] = '\0';
        return n;
}

/* ------------------------------------------------------ call lifecycle */

static void detach_from_multi(struct llm_call *call)
{
        if (call->in_multi) {
                curl_multi_remove_handle(call->client->multi, call->easy);
                call->in_multi = false;
        }
}

static void queue_remove(struct llm_client *c, struct llm_call *call)
{
        struct llm_call **pp;

        for (pp = &c->queue_head; *pp; pp = &(*pp)->queue_next) {
                if (*pp != call)
                        continue;
                *pp = call->queue_next;
                if (c->queue_tail == call) {
                        c->queue_tail = NULL;
                        for (struct llm_call *q = c->queue_head; q; q = q->queue_next)
                                c->queue_tail = q;
                }
                call->queue_next = NULL;
                c->n_queued--;
                return;
        }
}

/* Frees a call without calling back; the caller has unlinked nothing. */
static void call_destroy(struct llm_call *call)
{
        struct llm_client *c = call->client;

        detach_from_multi(call);
        if (call->state == CALL_QUEUED)
                queue_remove(c, call);
        if (call->holds_slot)
                c->running--;
        if (call->prev)
                call->prev->next = call->next;
        else
                c->calls = call->next;
        if (call->next)
                call->next->prev = call->prev;
        c->n_calls--;
        if (call->easy)
                curl_easy_cleanup(call->easy);
        if (call->timer)
                event_free(call->timer);
        if (call->deadline)
                event_free(call->deadline);
        llm_budget_free(call->budget);
        free(call->body);
        free(call->response.data);
        free(call->content);
        free(call->finish_reason);
        free(call->vectors);
        free(call);
}

/*
 * Ends a call with an outcome: stops its request and timers, gives back its
 * slot, and schedules the callback on the loop.  Never calls back itself.
 */
static void finish(struct llm_call *call, enum llm_outcome outcome)
{
        struct llm_client *c = call->client;
        struct llm_result *r = &call->result;

        detach_from_multi(call);
        evtimer_del(call->timer);
        evtimer_del(call->deadline);
        call->state = CALL_DONE;

        r->outcome = outcome;
        if (outcome == LLM_OK)
                call->error[0] = '\0';
        else if (r->attempts > 1) {
                size_t len = strlen(call->error);

                snprintf(call->error + len, sizeof(call->error) - len, " (after %d attempts)",
                         r->attempts);
        }
        if (outcome != LLM_OK && outcome != LLM_TRUNCATED) {
                free(call->content);
                call->content = NULL;
        }
        redact(call->error, c->key);
        redact(call->content, c->key);
        redact(call->finish_reason, c->key);
        r->error = call->error;
        r->content = call->content;
        r->finish_reason = call->finish_reason;
        r->vectors = outcome == LLM_OK ? call->vectors : NULL;
        if (!r->vectors)
                r->n_vectors = r->dim = 0;
        r->latency_s = call_elapsed_s(call);
        event_active(call->timer, EV_TIMEOUT, 1);

        if (call->holds_slot) {
                call->holds_slot = false;
                c->running--;
                dispatch_queue(c);
        }
}

static void on_call_timer(evutil_socket_t fd, short what, void *arg)
{
        struct llm_call *call = arg;

        if (call->state == CALL_WAITING) {
                start_attempt(call);
                return;
        }
        if (call->state != CALL_DONE)
                return;
        call->done(call, &call->result, call->userdata);
        call_destroy(call);
}

static void on_call_deadline(evutil_socket_t fd, short what, void *arg)
{
        struct llm_call *call = arg;

        if (call->state != CALL_RUNNING && call->state != CALL_WAITING)
                return;
        call_set_error(call, "%s%s: no answer within %.1f s", call->client->shown_endpoint,
                       call_path(call), call->client->timeout_s);
        finish(call, LLM_TIMEOUT);
}

static void budget_refused(struct llm_call *call)
{
        call_set_error(call, "the token budget is spent: %lld of %lld tokens used",
                       (long long)llm_budget_used(call->budget),
                       (long long)llm_budget_limit(call->budget));
        finish(call, LLM_BUDGET_EXHAUSTED);
}

/* A call leaves the queue: it takes a slot, its deadline starts, it is sent. */
static void start_call(struct llm_call *call)
{
        struct llm_client *c = call->client;
        struct timeval tv = timeval_from_s(c->timeout_s);

        if (llm_budget_exhausted(call->budget)) {
                budget_refused(call);
                return;
        }
        call->holds_slot = true;
        c->running++;
        call->started = true;
        clock_gettime(CLOCK_MONOTONIC, &call->start);
        call->next_backoff_s = c->backoff_initial_s;
        if (evtimer_add(call->deadline, &tv) < 0) {
                call_set_error(call, "cannot arm the call's timer");
                finish(call, LLM_UNREACHABLE);
                return;
        }
        start_attempt(call);
}

static void dispatch_queue(struct llm_client *c)
{
        struct llm_call *call;

        /* start_call() may finish a call, which comes back here */
        if (c->dispatching)
                return;
        c->dispatching = true;
        while (c->running < c->max_concurrency && c->queue_head) {
                call = c->queue_head;
                c->queue_head = call->queue_next;
                if (!c->queue_head)
                        c->queue_tail = NULL;
                call->queue_next = NULL;
                c->n_queued--;
                call->state = CALL_RUNNING;
                start_call(call);
        }
        c->dispatching = false;
}

static int setup_easy(struct llm_call *call)
{
        struct llm_client *c = call->client;
        CURL *e = curl_easy_init();
        CURLcode rc = CURLE_OK;

        if (!e)
                return -ENOMEM;
#define SET(opt, val)                                       \
        do {                                                \
                if (rc == CURLE_OK)                         \
                        rc = curl_easy_setopt(e, opt, val); \
        } while (0)
        SET(CURLOPT_URL, call->kind == CALL_CHAT ? c->chat_url : c->embed_url);
        SET(CURLOPT_POST, 1L);
        SET(CURLOPT_POSTFIELDS, call->body);
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)call->body_len);
        SET(CURLOPT_HTTPHEADER, c->headers);
        SET(CURLOPT_WRITEFUNCTION, on_body);
        SET(CURLOPT_WRITEDATA, call);
        SET(CURLOPT_ERRORBUFFER, call->curl_error);
        SET(CURLOPT_PRIVATE, call);
        SET(CURLOPT_NOSIGNAL, 1L);
        SET(CURLOPT_CONNECTTIMEOUT_MS, (long)(c->connect_timeout_s * 1000));
        SET(CURLOPT_USERAGENT, "ascendopt/" ASCENDOPT_VERSION);
        SET(CURLOPT_ACCEPT_ENCODING, "");
        SET(CURLOPT_TCP_KEEPALIVE, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
        SET(CURLOPT_PROTOCOLS_STR, "http,https");
#endif
        /* a loopback endpoint is allowed code that must not leave the machine,
         * so it must not go through a proxy from the environment */
        if (c->loopback)
                SET(CURLOPT_NOPROXY, "*");
#undef SET
        if (rc != CURLE_OK) {
                curl_easy_cleanup(e);
                return -EIO;
        }
        call->easy = e;
        return 0;
}

static void start_attempt(struct llm_call *call)
{
        struct llm_client *c = call->client;
        CURLMcode rc;

        if (!call->easy && setup_easy(call) < 0) {
                call_set_error(call, "cannot set up a request to %s%s", c->shown_endpoint,
                               call_path(call));
                finish(call, LLM_UNREACHABLE);
                return;
        }
        free(call->response.data);
        memset(&call->response, 0, sizeof(call->response));
        call->curl_error[0] = '\0';
        call->result.attempts++;
        call->state = CALL_RUNNING;
        rc = curl_multi_add_handle(c->multi, call->easy);
        if (rc != CURLM_OK) {
                call_set_error(call, "cannot start a request to %s%s: %s", c->shown_endpoint,
                               call_path(call), curl_multi_strerror(rc));
                finish(call, LLM_UNREACHABLE);
                return;
        }
        call->in_multi = true;
}

/* ---------------------------------------------------------- responses */

static void charge(struct llm_call *call, const json_t *root)
{
        const json_t *usage = json_object_get(root, "usage");
        const json_t *pt = json_object_get(usage, "prompt_tokens");
        const json_t *ct = json_object_get(usage, "completion_tokens");
        const json_t *tt = json_object_get(usage, "total_tokens");
        struct llm_result *r = &call->result;

        if (json_is_integer(pt) || json_is_integer(tt)) {
                r->prompt_tokens = json_is_integer(pt) ? json_integer_value(pt) : 0;
                r->completion_tokens = json_is_integer(ct) ? json_integer_value(ct) : 0;
                r->total_tokens = json_is_integer(tt) ? json_integer_value(tt)
                                                      : r->prompt_tokens + r->completion_tokens;
                r->usage_estimated = false;
        } else {
                r->prompt_tokens = (int64_t)(call->body_len / 4);
                r->completion_tokens = (int64_t)(call->response.len / 4);
                r->total_tokens = r->prompt_tokens + r->completion_tokens;
                r->usage_estimated = true;
        }
        r->tokens_charged = r->total_tokens > 0 ? r->total_tokens : 0;
        llm_budget_charge(call->budget, r->tokens_charged);
}

static enum llm_outcome parse_chat(struct llm_call *call, const json_t *root)
{
        const json_t *choices = json_object_get(root, "choices");
        const json_t *first = json_array_get(choices, 0);
        const json_t *content = json_object_get(json_object_get(first, "message"), "content");
        const json_t *reason = json_object_get(first, "finish_reason");

        if (!json_is_array(choices) || !json_is_object(first)) {
                call_set_error(call, "the response from %s%s has no choices",
                               call->client->shown_endpoint, call_path(call));
                return LLM_MALFORMED;
        }
        if (!json_is_string(content)) {
                call_set_error(call,
                               "the response from %s%s has no string choices[0].message.content",
                               call->client->shown_endpoint, call_path(call));
                return LLM_MALFORMED;
        }
        call->content = strdup(json_string_value(content));
        if (json_is_string(reason))
                call->finish_reason = strdup(json_string_value(reason));
        if (!call->content || (json_is_string(reason) && !call->finish_reason)) {
                call_set_error(call, "out of memory");
                return LLM_MALFORMED;
        }
        if (call->finish_reason && strcmp(call->finish_reason, "length") == 0) {
                call_set_error(call, "the answer was cut at max_tokens (finish_reason \"length\")");
                return LLM_TRUNCATED;
        }
        return LLM_OK;
}

static enum llm_outcome parse_embeddings(struct llm_call *call, const json_t *root)
{
        const json_t *data = json_object_get(root, "data"), *item, *vec, *index, *x;
        const char *where = call->client->shown_endpoint;
        size_t n = call->n_inputs, dim, i, j, at;
        bool *seen = NULL;
        enum llm_outcome outcome = LLM_MALFORMED;

        if (!json_is_array(data) || json_array_size(data) != n) {
                call_set_error(call,
                               "the response from %s/embeddings has %zu vectors for %zu inputs",
                               where, json_is_array(data) ? json_array_size(data) : 0, n);
                return LLM_MALFORMED;
        }
        dim = json_array_size(json_object_get(json_array_get(data, 0), "embedding"));
        if (dim == 0 || dim > LLM_MAX_EMBED_DIM) {
                call_set_error(call, "the response from %s/embeddings has vectors of %zu numbers",
                               where, dim);
                return LLM_MALFORMED;
        }
        seen = calloc(n, sizeof(*seen));
        call->vectors = calloc(n * dim, sizeof(*call->vectors));
        if (!seen || !call->vectors) {
                call_set_error(call, "out of memory");
                goto out;
        }
        json_array_foreach(data, i, item)
        {
                vec = json_object_get(item, "embedding");
                index = json_object_get(item, "index");
                at = json_is_integer(index) ? (size_t)json_integer_value(index) : i;
                if (!json_is_array(vec) || json_array_size(vec) != dim || at >= n || seen[at]) {
                        call_set_error(call,
                                       "the response from %s/embeddings: data[%zu] is not a "
                                       "vector of %zu numbers with a new index below %zu",
                                       where, i, dim, n);
                        goto out;
                }
                seen[at] = true;
                json_array_foreach(vec, j, x)
                {
                        if (!json_is_number(x)) {
                                call_set_error(call,
                                               "the response from %s/embeddings: "
                                               "data[%zu].embedding[%zu] is not a number",
                                               where, i, j);
                                goto out;
                        }
                        call->vectors[at * dim + j] = (float)json_number_value(x);
                }
        }
        call->result.n_vectors = n;
        call->result.dim = dim;
        outcome = LLM_OK;
out:
        free(seen);
        return outcome;
}

static void handle_success(struct llm_call *call)
{
        json_error_t jerr;
        json_t *root;
        enum llm_outcome outcome;

        root = json_loadb(call->response.data ? call->response.data : "", call->response.len, 0,
                          &jerr);
        charge(call, root);
        if (!json_is_object(root)) {
                call_set_error(call, "the response from %s%s is not a JSON object: %s",
                               call->client->shown_endpoint, call_path(call),
                               root ? "another JSON value" : jerr.text);
                json_decref(root);
                finish(call, LLM_MALFORMED);
                return;
        }
        outcome = call->kind == CALL_CHAT ? parse_chat(call, root) : parse_embeddings(call, root);
        json_decref(root);
        finish(call, outcome);
}

/* "HTTP 503 from URL: message", the message taken from an OpenAI-style error body. */
static void describe_http_error(struct llm_call *call, long status)
{
        const char *data = call->response.data ? call->response.data : "";
        char snippet[ERROR_SNIPPET_BYTES + 1];
        const json_t *error, *message;
        json_t *root;
        size_t i;

        root = json_loadb(data, call->response.len, 0, NULL);
        error = json_object_get(root, "error");
        message = json_is_object(error) ? json_object_get(error, "message") : error;
        if (json_is_string(message))
                data = json_string_value(message);
        for (i = 0; i < ERROR_SNIPPET_BYTES && data[i]; i++)
                snippet[i] = (data[i] >= 0x20 && data[i] != 0x7f) ? data[i] : ' ';
        snippet[i] = '\0';
        call_set_error(call, "HTTP %ld from %s%s%s%s", status, call->client->shown_endpoint,
                       call_path(call), i ? ": " : "", snippet);
        json_decref(root);
}

/* A failed attempt: wait and try again, or end with the failure. */
static void retry_or_finish(struct llm_call *call, enum llm_outcome failure, double retry_after)
{
        struct llm_client *c = call->client;
        struct timeval tv;
        double wait, step;

        if (call->result.attempts >= c->max_attempts) {
                finish(call, failure);
                return;
        }
        if (retry_after >= 0) {
                wait = fmin(retry_after, c->retry_after_max_s);
                wait += wait * RETRY_AFTER_JITTER * random_unit(c);
        } else {
                /* equal jitter: never less than half the exponential step */
                step = call->next_backoff_s;
                call->next_backoff_s = fmin(step * 2, c->backoff_max_s);
                wait = step / 2 + step / 2 * random_unit(c);
        }
        if (call_elapsed_s(call) + wait >= c->timeout_s) {
                size_t len = strlen(call->error);

                snprintf(call->error + len, sizeof(call->error) - len,
                         "; no time left to retry after %.1f s", wait);
                finish(call, failure);
                return;
        }
        call->state = CALL_WAITING;
        tv = timeval_from_s(wait);
        if (evtimer_add(call->timer, &tv) < 0)
                finish(call, failure);
}

static void attempt_done(struct llm_call *call, CURLcode code)
{
        struct llm_client *c = call->client;
        curl_off_t retry_after = -1;
        long status = 0;

        curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE, &status);
        call->result.http_status = status;
        if (code == CURLE_WRITE_ERROR && call->response.oversize) {
                call_set_error(call, "the response from %s%s is over %u bytes", c->shown_endpoint,
                               call_path(call), LLM_MAX_RESPONSE_BYTES);
                finish(call, LLM_MALFORMED);
                return;
        }
        if (code != CURLE_OK) {
                call_set_error(call, "cannot reach %s%s: %s", c->shown_endpoint, call_path(call),
                               call->curl_error[0] ? call->curl_error : curl_easy_strerror(code));
                retry_or_finish(call, LLM_UNREACHABLE, -1);
                return;
        }
        if (status >= 200 && status < 300) {
                handle_success(call);
                return;
        }
        describe_http_error(call, status);
        if (status == 408 || status == 429 || status >= 500) {
                /* 0 means no header (or "retry now"): back off as usual */
                if (curl_easy_getinfo(call->easy, CURLINFO_RETRY_AFTER, &retry_after) != CURLE_OK)
                        retry_after = 0;
                retry_or_finish(call, LLM_HTTP_ERROR, retry_after > 0 ? (double)retry_after : -1);
                return;
        }
        finish(call, LLM_HTTP_ERROR);
}

/* Hands every finished transfer to its call; callbacks run later from the loop. */
static void process_finished(struct llm_client *c)
{
        struct llm_call *call;
        CURLMsg *msg;
        CURLcode code;
        CURL *easy;
        char *priv;
        int left;

        while ((msg = curl_multi_info_read(c->multi, &left))) {
                if (msg->msg != CURLMSG_DONE)
                        continue;
                easy = msg->easy_handle;
                code = msg->data.result;
                priv = NULL;
                curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
                call = (struct llm_call *)(void *)priv;
                if (!call || !call->in_multi)
                        continue;
                curl_multi_remove_handle(c->multi, easy);
                call->in_multi = false;
                attempt_done(call, code);
        }
}

/* ---------------------------------------------------------- the client */

/* Checks the endpoint and makes the form shown in messages. */
static int parse_endpoint(struct llm_client *c, const char *endpoint, char *err, size_t size)
{
        CURLU *url = curl_url();
        char *scheme = NULL, *shown = NULL;
        int r = 0;

        if (!url)
                return -ENOMEM;
        if (curl_url_set(url, CURLUPART_URL, endpoint, 0) != CURLUE_OK ||
            curl_url_get(url, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
            (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) ||
            strpbrk(endpoint, "?#")) {
                r = format_error(err, size, -EINVAL,
                                 "llm.endpoint: \"%s\" is not a base URL such as "
                                 "\"http://127.0.0.1:8000/v1\" (http or https, no query)",
                                 endpoint);
                goto out;
        }
        curl_url_set(url, CURLUPART_USER, NULL, 0);
        curl_url_set(url, CURLUPART_PASSWORD, NULL, 0);
        if (curl_url_get(url, CURLUPART_URL, &shown, 0) != CURLUE_OK) {
                r = -ENOMEM;
                goto out;
        }
        c->shown_endpoint = strdup(shown);
        if (!c->shown_endpoint) {
                r = -ENOMEM;
                goto out;
        }
        /* the base without a trailing slash, so that "/chat/completions" joins cleanly */
        for (size_t len = strlen(c->shown_endpoint); len > 0 && c->shown_endpoint[len - 1] == '/';
             len--)
                c->shown_endpoint[len - 1] = '\0';
        c->loopback = llm_endpoint_is_loopback(endpoint);
        if (strcmp(scheme, "http") == 0 && !c->loopback) {
                r = format_error(err, size, -EINVAL,
                                 "llm.endpoint: \"%s\" is plain http to another machine: the API "
                                 "key and the operators' source would travel in clear; use "
                                 "https://, or http only to a loopback address",
                                 c->shown_endpoint);
                goto out;
        }
out:
        curl_free(scheme);
        curl_free(shown);
        curl_url_cleanup(url);
        return r;
}

static char *join_url(const char *base, const char *path)
{
        size_t len = strlen(base);
        char *s = NULL;

        while (len > 0 && base[len - 1] == '/')
                len--;
        if (asprintf(&s, "%.*s%s", (int)len, base, path) < 0)
                return NULL;
        return s;
}

static int build_headers(struct llm_client *c)
{
        static const char *const fixed[] = { "Content-Type: application/json",
                                             "Accept: application/json",
                                             /* no 100-continue round trip for large prompts */
                                             "Expect:", NULL };
        struct curl_slist *list = NULL, *next;
        char *auth = NULL;
        size_t auth_len;
        int r = 0;

        for (size_t i = 0; fixed[i]; i++) {
                next = curl_slist_append(list, fixed[i]);
                if (!next) {
                        r = -ENOMEM;
                        goto out;
                }
                list = next;
        }
        if (c->key) {
                auth_len = strlen(c->key) + sizeof("Authorization: Bearer ");
                auth = malloc(auth_len);
                if (!auth) {
                        r = -ENOMEM;
                        goto out;
                }
                snprintf(auth, auth_len, "Authorization: Bearer %s", c->key);
                next = curl_slist_append(list, auth);
                explicit_bzero(auth, auth_len);
                free(auth);
                if (!next) {
                        r = -ENOMEM;
                        goto out;
                }
                list = next;
        }
        c->headers = list;
        list = NULL;
out:
        curl_slist_free_all(list);
        return r;
}

static char *strdup_or_null(const char *s, int *r)
{
        char *copy;

        if (!s)
                return NULL;
        copy = strdup(s);
        if (!copy)
                *r = -ENOMEM;
        return copy;
}

static int copy_options(struct llm_client *c, const struct llm_options *o, char *err, size_t size)
{
        int r = 0;

        if (o->connect_timeout_s < 0 || o->timeout_s < 0 || o->max_tokens < 0 ||
            o->max_concurrency < 0 || o->max_attempts < 0 || o->backoff_initial_s < 0 ||
            o->backoff_max_s < 0 || o->retry_after_max_s < 0 || !isfinite(o->temperature) ||
            o->temperature < 0)
                return format_error(err, size, -EINVAL,
                                    "llm: timeouts, limits and temperature must not be negative");
        c->connect_timeout_s =
            o->connect_timeout_s ? o->connect_timeout_s : DEFAULT_CONNECT_TIMEOUT_S;
        c->timeout_s = o->timeout_s ? o->timeout_s : DEFAULT_TIMEOUT_S;
        c->max_tokens = o->max_tokens ? o->max_tokens : DEFAULT_MAX_TOKENS;
        c->temperature = o->temperature;
        c->max_concurrency = o->max_concurrency ? o->max_concurrency : DEFAULT_MAX_CONCURRENCY;
        c->max_queue = o->max_queue ? o->max_queue : DEFAULT_MAX_QUEUE;
        c->max_attempts = o->max_attempts ? o->max_attempts : DEFAULT_MAX_ATTEMPTS;
        c->backoff_initial_s =
            o->backoff_initial_s ? o->backoff_initial_s : DEFAULT_BACKOFF_INITIAL_S;
        c->backoff_max_s = o->backoff_max_s ? o->backoff_max_s : DEFAULT_BACKOFF_MAX_S;
        c->retry_after_max_s =
            o->retry_after_max_s ? o->retry_after_max_s : DEFAULT_RETRY_AFTER_MAX_S;
        c->rng = o->jitter_seed ? o->jitter_seed
                                : (uint64_t)(monotonic_s() * 1e9) ^ ((uint64_t)getpid() << 32);
        c->model = strdup_or_null(o->model, &r);
        c->embedding_model = strdup_or_null(o->embedding_model, &r);
        if (o->api_key && *o->api_key) {
                if (!key_is_header_safe(o->api_key))
                        return format_error(err, size, -EINVAL,
                                            "llm: the API key holds spaces or control characters "
                                            "or is over %d bytes",
                                            MAX_KEY_BYTES);
                c->key = strdup_or_null(o->api_key, &r);
        }
        return r;
}

int llm_client_new(struct event_base *base, const struct llm_options *options,
                   struct llm_client **ret_client, char *err, size_t err_size)
{
        struct llm_client *c = NULL;
        int r;

        if (!base || !options || !ret_client)
                return format_error(err, err_size, -EINVAL, "llm: no event base or options");
        if (!options->endpoint || !*options->endpoint)
                return format_error(err, err_size, -EINVAL, "llm.endpoint: not set");
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->base = base;
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
                r = format_error(err, err_size, -EIO, "llm: libcurl cannot be initialised");
                goto out;
        }
        c->curl_initialized = true;
        r = copy_options(c, options, err, err_size);
        if (r < 0)
                goto out;
        r = parse_endpoint(c, options->endpoint, err, err_size);
        if (r < 0)
                goto out;
        c->chat_url = join_url(options->endpoint, "/chat/completions");
        c->embed_url = join_url(options->endpoint, "/embeddings");
        if (!c->chat_url || !c->embed_url) {
                r = -ENOMEM;
                goto out;
        }
        r = build_headers(c);
        if (r < 0)
                goto out;
        c->curl_timer = evtimer_new(base, on_curl_timeout, c);
        c->multi = curl_multi_init();
        if (!c->curl_timer || !c->multi) {
                r = format_error(err, err_size, -EIO, "llm: cannot set up libcurl on the loop");
                goto out;
        }
        curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
        curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
        curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
        curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
        *ret_client = c;
        c = NULL;
out:
        llm_client_free(c);
        return r;
}

struct llm_client *llm_client_free(struct llm_client *client)
{
        struct curl_slist *h;

        if (!client)
                return NULL;
        while (client->calls)
                call_destroy(client->calls);
        if (client->multi)
                curl_multi_cleanup(client->multi);
        while (client->socks)
                sock_free(client, client->socks);
        if (client->curl_timer)
                event_free(client->curl_timer);
        for (h = client->headers; h; h = h->next)
                explicit_bzero(h->data, strlen(h->data));
        curl_slist_free_all(client->headers);
        free(client->chat_url);
        free(client->embed_url);
        free(client->shown_endpoint);
        free(client->model);
        free(client->embedding_model);
        llm_secret_free(client->key);
        if (client->curl_initialized)
                curl_global_cleanup();
        free(client);
        return NULL;
}

size_t llm_client_pending(const struct llm_client *client)
{
        return client ? client->n_calls : 0;
}

size_t llm_client_queued(const struct llm_client *client)
{
        return client ? client->n_queued : 0;
}

/* ------------------------------------------------------------- calls */

static void prompt_hash(const json_t *prompt, char hex[SHA256_HEX_SIZE])
{
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;
        char *text = json_dumps(prompt, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

        sha256_init(&s);
        if (text)
                sha256_update(&s, text, strlen(text));
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
        free(text);
}

/* Takes ownership of request; accepts the call or fails with the callback never run. */
static int submit(struct llm_client *c, enum call_kind kind, json_t *request, const json_t *prompt,
                  size_t n_inputs, struct llm_budget *budget, llm_done_fn done, void *userdata,
                  struct llm_call **ret_call)
{
        bool slot_free = c->running < c->max_concurrency && !c->queue_head;
        struct llm_call *call = NULL;
        int r = 0;

        if (!slot_free && !llm_budget_exhausted(budget) && c->n_queued >= c->max_queue) {
                r = -EAGAIN;
                goto out;
        }
        call = calloc(1, sizeof(*call));
        if (!call) {
                r = -ENOMEM;
                goto out;
        }
        call->client = c;
        call->kind = kind;
        call->n_inputs = n_inputs;
        call->done = done;
        call->userdata = userdata;
        call->state = CALL_QUEUED;
        call->result.error = "";
        call->body = json_dumps(request, JSON_COMPACT | JSON_REAL_PRECISION(10));
        call->timer = evtimer_new(c->base, on_call_timer, call);
        call->deadline = evtimer_new(c->base, on_call_deadline, call);
        if (!call->body || !call->timer || !call->deadline) {
                r = -ENOMEM;
                goto out;
        }
        call->body_len = strlen(call->body);
        prompt_hash(prompt, call->result.prompt_sha256);
        call->budget = llm_budget_ref(budget);
        call->next = c->calls;
        if (c->calls)
                c->calls->prev = call;
        c->calls = call;
        c->n_calls++;

        if (llm_budget_exhausted(budget)) {
                budget_refused(call);
        } else if (slot_free) {
                call->state = CALL_RUNNING;
                start_call(call);
        } else {
                if (c->queue_tail)
                        c->queue_tail->queue_next = call;
                else
                        c->queue_head = call;
                c->queue_tail = call;
                c->n_queued++;
        }
        if (ret_call)
                *ret_call = call;
        call = NULL;
out:
        if (call) {
                if (call->timer)
                        event_free(call->timer);
                if (call->deadline)
                        event_free(call->deadline);
                free(call->body);
                free(call);
        }
        json_decref(request);
        return r;
}

int llm_chat(struct llm_client *client, const struct llm_message *messages, size_t n_messages,
             struct llm_budget *budget, llm_done_fn done, void *userdata,
             struct llm_call **ret_call)
{
        json_t *list = NULL, *request = NULL, *m;
        int r;

        if (!client || !messages || n_messages == 0 || !done || !client->model)
                return -EINVAL;
        list = json_array();
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < n_messages; i++) {
                if (!messages[i].role || !messages[i].content) {
                        r = -EINVAL;
                        goto out;
                }
                /* json_text is NULL only when out of memory */
                m = json_pack("{s:s, s:o}", "role", messages[i].role, "content",
                              json_text(messages[i].content));
                if (json_array_append_new(list, m) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        request = json_pack("{s:s, s:O, s:i, s:f, s:b}", "model", client->model, "messages", list,
                            "max_tokens", client->max_tokens, "temperature", client->temperature,
                            "stream", 0);
        if (!request) {
                r = -ENOMEM;
                goto out;
        }
        r = submit(client, CALL_CHAT, request, list, 0, budget, done, userdata, ret_call);
out:
        json_decref(list);
        return r;
}

int llm_embed(struct llm_client *client, const char *const *inputs, size_t n_inputs,
              struct llm_budget *budget, llm_done_fn done, void *userdata,
              struct llm_call **ret_call)
{
        json_t *list = NULL, *request = NULL, *s;
        int r;

        if (!client || !inputs || n_inputs == 0 || n_inputs > LLM_MAX_EMBED_INPUTS || !done)
                return -EINVAL;
        if (!client->embedding_model)
                return -EOPNOTSUPP;
        list = json_array();
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < n_inputs; i++) {
                s = inputs[i] ? json_text(inputs[i]) : NULL;
                if (!s || json_array_append_new(list, s) < 0) {
                        r = -EINVAL;
                        goto out;
                }
        }
        request = json_pack("{s:s, s:O}", "model", client->embedding_model, "input", list);
        if (!request) {
                r = -ENOMEM;
                goto out;
        }
        r = submit(client, CALL_EMBED, request, list, n_inputs, budget, done, userdata, ret_call);
out:
        json_decref(list);
        return r;
}

void llm_call_cancel(struct llm_call *call)
{
        if (!call || call->state == CALL_DONE)
                return;
        if (call->state == CALL_QUEUED)
                queue_remove(call->client, call);
        call_set_error(call, "cancelled");
        finish(call, LLM_CANCELLED);
}
