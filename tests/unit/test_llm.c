/* SPDX-License-Identifier: MIT */
/*
 * Tests of the LLM client against a scripted OpenAI-compatible peer
 * (tests/helpers/llm-peer) on loopback, one peer process per test: request
 * bodies and headers, retries on 429 and 5xx, timeouts, truncated and
 * malformed answers, budgets, the concurrency limit, embeddings,
 * cancellation, an endpoint that is down, plus consent, keys, code blocks
 * and prompt templates.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "llm/llm.h"
#include "config/config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_BUILD "build-san"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_BUILD "build-san"
#endif
#endif
#ifndef DEFAULT_BUILD
#define DEFAULT_BUILD "build"
#endif

#define KEY "sk-test-0123456789-SECRET"
/* ends the lists of answers and rules given to rule() and script() */
#define END        ((json_t *)0)
#define CHAT_PATH  "/v1/chat/completions"
#define EMBED_PATH "/v1/embeddings"
/* libevent's default monotonic clock is the coarse one, which can fire a
 * timer a tick (4 ms at HZ=250) before a precise clock says it is due */
#define TIMER_SLACK_S 0.01

extern char **environ;

/* ------------------------------------------------------------ the peer */

struct peer {
        pid_t pid;
        int port;
        char dir[64];
        char log[128];
};

static double now_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts the peer with a script (stolen) and waits for the port it prints. */
static void peer_start(struct peer *p, json_t *script)
{
        const char *build = getenv("ASCENDOPT_BUILD") ? getenv("ASCENDOPT_BUILD") : DEFAULT_BUILD;
        char program[4096], script_path[128], line[32] = "";
        const char *argv[] = { program, "--script",  script_path, "--log",
                               p->log,  "--timeout", "30",        NULL };
        posix_spawn_file_actions_t actions;
        struct pollfd pfd;
        size_t len = 0;
        int fds[2];
        ssize_t n;

        memset(p, 0, sizeof(*p));
        snprintf(p->dir, sizeof(p->dir), "/tmp/ascendopt-llm-XXXXXX");
        assert_non_null(mkdtemp(p->dir));
        snprintf(script_path, sizeof(script_path), "%s/script.json", p->dir);
        snprintf(p->log, sizeof(p->log), "%s/requests.jsonl", p->dir);
        snprintf(program, sizeof(program), "%s/tests/helpers/llm-peer", build);
        assert_int_equal(json_dump_file(script, script_path, JSON_INDENT(2)), 0);
        json_decref(script);

        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        if (posix_spawn(&p->pid, program, &actions, NULL, (char *const *)argv, environ) != 0)
                fail_msg("cannot start %s (set ASCENDOPT_BUILD)", program);
        posix_spawn_file_actions_destroy(&actions);
        close(fds[1]);
        pfd.fd = fds[0];
        pfd.events = POLLIN;
        while (len < sizeof(line) - 1 && !strchr(line, '\n')) {
                if (poll(&pfd, 1, 10000) != 1)
                        fail_msg("the peer printed no port within 10 s");
                n = read(fds[0], line + len, sizeof(line) - 1 - len);
                if (n <= 0)
                        fail_msg("the peer exited before printing its port");
                len += (size_t)n;
                line[len] = '\0';
        }
        close(fds[0]);
        p->port = atoi(line);
        assert_true(p->port > 0);
}

static void peer_stop(struct peer *p)
{
        int status = 0;

        if (p->pid <= 0)
                return;
        kill(p->pid, SIGTERM);
        assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
        /* SIGTERM is a clean exit for the peer */
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        p->pid = 0;
        rm_rf(p->dir);
}

/* The requests the peer has recorded so far, as an array of objects. */
static json_t *peer_requests(const struct peer *p)
{
        json_t *all = json_array(), *line;
        char buf[1 << 16];
        FILE *f = fopen(p->log, "re");

        assert_non_null(f);
        while (fgets(buf, sizeof(buf), f)) {
                line = json_loads(buf, 0, NULL);
                assert_non_null(line);
                json_array_append_new(all, line);
        }
        fclose(f);
        return all;
}

/* The body of a recorded request, parsed. */
static json_t *request_body(const json_t *requests, size_t i)
{
        const char *body = json_string_value(json_object_get(json_array_get(requests, i), "body"));
        json_t *doc;

        assert_non_null(body);
        doc = json_loads(body, 0, NULL);
        assert_non_null(doc);
        return doc;
}

/* ----------------------------------------------------- script builders */

/* A json_pack's result, which must not have failed (a NULL would end an END list early). */
static json_t *packed(json_t *value)
{
        assert_non_null(value);
        return value;
}

static json_t *chat_answer(const char *content, const char *finish, int prompt, int completion)
{
        return packed(
            json_pack("{s:i, s:{s:s, s:s, s:[{s:i, s:{s:s, s:s}, s:s}], s:{s:i, s:i, s:i}}}",
                      "status", 200, "json", "id", "chatcmpl-1", "object", "chat.completion",
                      "choices", "index", 0, "message", "role", "assistant", "content", content,
                      "finish_reason", finish, "usage", "prompt_tokens", prompt,
                      "completion_tokens", completion, "total_tokens", prompt + completion));
}

static json_t *status_answer(int status, const char *retry_after, const char *message)
{
        json_t *a = packed(
            json_pack("{s:i, s:{s:{s:s}}}", "status", status, "json", "error", "message", message));

        if (retry_after)
                assert_int_equal(json_object_set_new(
                                     a, "headers", json_pack("{s:s}", "Retry-After", retry_after)),
                                 0);
        return a;
}

static json_t *delayed(json_t *answer, int delay_ms)
{
        json_object_set_new(answer, "delay_ms", json_integer(delay_ms));
        return answer;
}

/* A rule answering requests to path (whose body holds contains, when not
 * NULL) with the given answers in turn; takes the answers, ended by END. */
static json_t *rule(const char *path, const char *contains, ...)
{
        json_t *r = packed(json_pack("{s:s, s:[]}", "path", path, "responses")), *a;
        va_list ap;

        if (contains)
                json_object_set_new(r, "body_contains", json_string(contains));
        va_start(ap, contains);
        while ((a = va_arg(ap, json_t *)))
                json_array_append_new(json_object_get(r, "responses"), a);
        va_end(ap);
        return r;
}

/* A script of the given rules (taken), ended by END. */
static json_t *script(json_t *first, ...)
{
        json_t *s = packed(json_pack("{s:[]}", "rules")), *r = first;
        va_list ap;

        va_start(ap, first);
        for (; r; r = va_arg(ap, json_t *))
                json_array_append_new(json_object_get(s, "rules"), r);
        va_end(ap);
        return s;
}

/* ------------------------------------------------------------ fixture */

struct got {
        int count;
        enum llm_outcome outcome;
        char content[4096];
        bool has_content;
        char error[1024];
        char sha[SHA256_HEX_SIZE];
        int64_t prompt_tokens, completion_tokens, total_tokens, charged;
        bool usage_estimated;
        double latency_s;
        int attempts;
        long http_status;
        float vectors[64];
        size_t n_vectors, dim;
        double at; /* monotonic time of the callback */
        int order; /* completion rank among all calls of a test */
};

struct fixture {
        struct event_base *base;
        struct peer peer;
        struct llm_client *client;
        char endpoint[64];
        int completed;
};

static struct fixture *fx_of(void **state)
{
        return *state;
}

static int setup(void **state)
{
        struct fixture *fx = calloc(1, sizeof(*fx));

        assert_non_null(fx);
        fx->base = event_base_new();
        assert_non_null(fx->base);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;

        llm_client_free(fx->client);
        peer_stop(&fx->peer);
        event_base_free(fx->base);
        free(fx);
        return 0;
}

static int *completed_counter;

static void on_done(struct llm_call *call, const struct llm_result *r, void *userdata)
{
        struct got *g = userdata;

        g->count++;
        g->outcome = r->outcome;
        g->has_content = r->content != NULL;
        snprintf(g->content, sizeof(g->content), "%s", r->content ? r->content : "");
        snprintf(g->error, sizeof(g->error), "%s", r->error ? r->error : "(null)");
        memcpy(g->sha, r->prompt_sha256, sizeof(g->sha));
        g->prompt_tokens = r->prompt_tokens;
        g->completion_tokens = r->completion_tokens;
        g->total_tokens = r->total_tokens;
        g->charged = r->tokens_charged;
        g->usage_estimated = r->usage_estimated;
        g->latency_s = r->latency_s;
        g->attempts = r->attempts;
        g->http_status = r->http_status;
        g->n_vectors = r->n_vectors;
        g->dim = r->dim;
        if (r->vectors && r->n_vectors * r->dim <= 64)
                memcpy(g->vectors, r->vectors, r->n_vectors * r->dim * sizeof(float));
        g->at = now_s();
        if (completed_counter)
                g->order = ++*completed_counter;
}

static void on_guard(evutil_socket_t fd, short what, void *arg)
{
        *(bool *)arg = true;
}

/* Runs the loop until *count reaches want or limit_s passes; returns seconds taken. */
static double run_until(struct event_base *base, const int *count, int want, double limit_s)
{
        struct timeval tv = { .tv_sec = (time_t)limit_s,
                              .tv_usec = (suseconds_t)((limit_s - (double)(time_t)limit_s) * 1e6) };
        struct event *guard;
        bool expired = false;
        double start = now_s();

        guard = evtimer_new(base, on_guard, &expired);
        evtimer_add(guard, &tv);
        while (*count < want && !expired)
                event_base_loop(base, EVLOOP_ONCE);
        event_free(guard);
        assert_int_equal(*count, want);
        return now_s() - start;
}

/* Runs the loop for a while whatever happens. */
static void run_for(struct event_base *base, double s)
{
        struct timeval tv = { .tv_sec = (time_t)s,
                              .tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6) };
        struct event *guard;
        bool expired = false;

        guard = evtimer_new(base, on_guard, &expired);
        evtimer_add(guard, &tv);
        while (!expired)
                event_base_loop(base, EVLOOP_ONCE);
        event_free(guard);
}

static void default_options(struct fixture *fx, struct llm_options *o)
{
        snprintf(fx->endpoint, sizeof(fx->endpoint), "http://127.0.0.1:%d/v1", fx->peer.port);
        memset(o, 0, sizeof(*o));
        o->endpoint = fx->endpoint;
        o->model = "test-model";
        o->embedding_model = "test-embedder";
        o->api_key = KEY;
        o->timeout_s = 5;
        o->max_tokens = 256;
        o->temperature = 0.2;
        o->max_attempts = 3;
        o->backoff_initial_s = 0.05;
        o->jitter_seed = 42;
}

static void client_new(struct fixture *fx, const struct llm_options *o)
{
        char err[256] = "";

        if (llm_client_new(fx->base, o, &fx->client, err, sizeof(err)) < 0)
                fail_msg("llm_client_new: %s", err);
}

static void chat(struct fixture *fx, const char *user, struct llm_budget *budget, struct got *g)
{
        const struct llm_message m[] = {
                { "system", "You are a careful AscendC engineer." },
                { "user", user },
        };

        assert_int_equal(llm_chat(fx->client, m, 2, budget, on_done, g, NULL), 0);
}

static void assert_no_key(const struct got *g)
{
        assert_null(strstr(g->content, KEY));
        assert_null(strstr(g->error, KEY));
}

/* ------------------------------------------------------------- tests */

static void test_request_body_and_headers(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_budget *budget = llm_budget_new(1000);
        const json_t *req, *headers;
        json_t *requests, *body, *want;
        struct llm_options o;
        struct got g = { 0 };
        uint8_t digest[SHA256_DIGEST_SIZE];
        char hex[SHA256_HEX_SIZE], *text, *code = NULL;
        struct sha256 s;

        peer_start(&fx->peer,
                   script(rule(CHAT_PATH, NULL,
                               chat_answer("Here it is:\n```cpp\nint tile = 64;\n```\nDone.",
                                           "stop", 10, 5),
                               END),
                          END));
        default_options(fx, &o);
        client_new(fx, &o);
        chat(fx, "Make the tiling faster.", budget, &g);
        /* never called back from inside llm_chat() */
        assert_int_equal(g.count, 0);
        run_until(fx->base, &g.count, 1, 5);

        assert_int_equal(g.outcome, LLM_OK);
        assert_string_equal(llm_outcome_name(g.outcome), "ok");
        assert_string_equal(g.error, "");
        assert_int_equal(g.attempts, 1);
        assert_int_equal(g.http_status, 200);
        assert_int_equal(g.prompt_tokens, 10);
        assert_int_equal(g.completion_tokens, 5);
        assert_int_equal(g.total_tokens, 15);
        assert_false(g.usage_estimated);
        assert_int_equal(llm_budget_used(budget), 15);
        assert_true(g.latency_s > 0 && g.latency_s < 5);
        assert_int_equal(llm_extract_code_block(g.content, "cpp", &code), 0);
        assert_string_equal(code, "int tile = 64;\n");
        free(code);
        assert_no_key(&g);

        requests = peer_requests(&fx->peer);
        assert_int_equal(json_array_size(requests), 1);
        req = json_array_get(requests, 0);
        assert_string_equal(json_string_value(json_object_get(req, "path")), CHAT_PATH);
        assert_string_equal(json_string_value(json_object_get(req, "method")), "POST");
        headers = json_object_get(req, "headers");
        assert_string_equal(json_string_value(json_object_get(headers, "Authorization")),
                            "Bearer " KEY);
        assert_string_equal(json_string_value(json_object_get(headers, "Content-Type")),
                            "application/json");
        body = request_body(requests, 0);
        assert_string_equal(json_string_value(json_object_get(body, "model")), "test-model");
        assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 256);
        assert_true(fabs(json_number_value(json_object_get(body, "temperature")) - 0.2) < 1e-9);
        assert_true(json_is_false(json_object_get(body, "stream")));
        want = packed(json_pack("[{s:s, s:s}, {s:s, s:s}]", "role", "system", "content",
                                "You are a careful AscendC engineer.", "role", "user", "content",
                                "Make the tiling faster."));
        assert_true(json_equal(json_object_get(body, "messages"), want));

        /* the prompt hash is over the messages, compact with sorted keys */
        text = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        sha256_init(&s);
        sha256_update(&s, text, strlen(text));
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
        assert_string_equal(g.sha, hex);
        free(text);
        json_decref(want);
        json_decref(body);
        json_decref(requests);
        llm_budget_free(budget);
}

static void test_no_key_no_authorization_header(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };
        json_t *requests;

        peer_start(&fx->peer,
                   script(rule(CHAT_PATH, NULL, chat_answer("hi", "stop", 1, 1), END), END));
        default_options(fx, &o);
        o.api_key = NULL;
        client_new(fx, &o);
        chat(fx, "hello", NULL, &g);
        run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_OK);
        requests = peer_requests(&fx->peer);
        assert_null(json_object_get(json_object_get(json_array_get(requests, 0), "headers"),
                                    "Authorization"));
        json_decref(requests);
}

static void test_invalid_utf8_is_replaced(void **state)
{
        struct fixture *fx = fx_of(state);
        const struct llm_message m[] = { { "user", "/* caf\xe9 */ int x;\xff" } };
        struct llm_options o;
        struct got g = { 0 };
        json_t *requests, *body;

        peer_start(&fx->peer,
                   script(rule(CHAT_PATH, NULL, chat_answer("hi", "stop", 1, 1), END), END));
        default_options(fx, &o);
        client_new(fx, &o);
        /* a comment in a legacy encoding does not stop the request */
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g, NULL), 0);
        run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_OK);
        requests = peer_requests(&fx->peer);
        body = request_body(requests, 0);
        assert_string_equal(json_string_value(json_object_get(
                                json_array_get(json_object_get(body, "messages"), 0), "content")),
                            "/* caf\xef\xbf\xbd */ int x;\xef\xbf\xbd");
        json_decref(body);
        json_decref(requests);
}

static void test_key_echoed_by_server_is_starred_out(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };

        peer_start(&fx->peer, script(rule(CHAT_PATH, NULL,
                                          status_answer(401, NULL, "invalid api key " KEY), END),
                                     END));
        default_options(fx, &o);
        client_new(fx, &o);
        chat(fx, "hello", NULL, &g);
        run_until(fx->base, &g.count, 1, 5);
        /* a 4xx other than 408 and 429 is not retried */
        assert_int_equal(g.outcome, LLM_HTTP_ERROR);
        assert_int_equal(g.http_status, 401);
        assert_int_equal(g.attempts, 1);
        assert_non_null(strstr(g.error, "HTTP 401"));
        assert_non_null(strstr(g.error, "invalid api key ****"));
        assert_false(g.has_content);
        assert_no_key(&g);
}

static void test_429_waits_for_retry_after(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };
        double start, took, cpu;
        json_t *requests;
        double t0, t1;

        peer_start(&fx->peer, script(rule(CHAT_PATH, NULL, status_answer(429, "1", "slow down"),
                                          chat_answer("fine", "stop", 3, 2), END),
                                     END));
        default_options(fx, &o);
        client_new(fx, &o);
        cpu = cpu_s();
        start = now_s();
        chat(fx, "hello", NULL, &g);
        run_until(fx->base, &g.count, 1, 5);
        took = g.at - start;
        cpu = cpu_s() - cpu;
        assert_int_equal(g.outcome, LLM_OK);
        assert_int_equal(g.attempts, 2);
        assert_string_equal(g.content, "fine");
        /* the wait honours the header (plus at most 10% jitter) */
        assert_true(took >= 1.0 - TIMER_SLACK_S);
        assert_true(took < 2.0);
        assert_true(g.latency_s >= 1.0 - TIMER_SLACK_S);
        /* ... on a timer, not in a busy loop */
        assert_true(cpu < 0.3);

        requests = peer_requests(&fx->peer);
        assert_int_equal(json_array_size(requests), 2);
        t0 = json_number_value(json_object_get(json_array_get(requests, 0), "t"));
        t1 = json_number_value(json_object_get(json_array_get(requests, 1), "t"));
        assert_true(t1 - t0 >= 1.0 - TIMER_SLACK_S);
        json_decref(requests);
}

static void test_500_then_success(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };
        double took;

        peer_start(&fx->peer,
                   script(rule(CHAT_PATH, NULL, status_answer(500, NULL, "internal error"),
                               status_answer(503, NULL, "overloaded"),
                               chat_answer("third time lucky", "stop", 3, 2), END),
                          END));
        default_options(fx, &o);
        client_new(fx, &o);
        chat(fx, "hello", NULL, &g);
        took = run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_OK);
        assert_int_equal(g.attempts, 3);
        assert_string_equal(g.content, "third time lucky");
        /* backoff of 0.05 s then 0.1 s, each at least half of that */
        assert_true(took >= 0.075);
        assert_true(took < 1.5);
}

static void test_5xx_until_attempts_run_out(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };

        peer_start(
            &fx->peer,
            script(rule(CHAT_PATH, NULL, status_answer(502, NULL, "bad gateway"), END), END));
        default_options(fx, &o);
        client_new(fx, &o);
        chat(fx, "hello", NULL, &g);
        run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_HTTP_ERROR);
        assert_int_equal(g.attempts, 3);
        assert_int_equal(g.http_status, 502);
        assert_non_null(strstr(g.error, "bad gateway"));
        assert_non_null(strstr(g.error, "after 3 attempts"));
}

static void test_timeout_in_bounded_time(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };
        double start, took;

        peer_start(&fx->peer, script(rule(CHAT_PATH, NULL,
                                          delayed(chat_answer("late", "stop", 1, 1), 4000), END),
                                     END));
        default_options(fx, &o);
        o.timeout_s = 0.5;
        client_new(fx, &o);
        start = now_s();
        chat(fx, "hello", NULL, &g);
        run_until(fx->base, &g.count, 1, 3);
        took = g.at - start;
        assert_int_equal(g.outcome, LLM_TIMEOUT);
        assert_int_equal(g.attempts, 1);
        assert_true(took >= 0.5 - TIMER_SLACK_S);
        assert_true(g.latency_s >= 0.5 - TIMER_SLACK_S);
        assert_true(took < 1.5);
        assert_non_null(strstr(g.error, "no answer within 0.5 s"));
        assert_false(g.has_content);
}

static void test_truncated_answer(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_budget *budget = llm_budget_new(1000);
        struct llm_options o;
        struct got g = { 0 };
        char *code = NULL;

        peer_start(&fx->peer,
                   script(rule(CHAT_PATH, NULL,
                               chat_answer("```cpp\nfor (int i = 0; i <", "length", 20, 256), END),
                          END));
        default_options(fx, &o);
        client_new(fx, &o);
        chat(fx, "hello", budget, &g);
        run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_TRUNCATED);
        assert_string_equal(llm_outcome_name(g.outcome), "truncated");
        /* the partial answer is there, and it is charged */
        assert_true(g.has_content);
        assert_int_equal(llm_extract_code_block(g.content, "cpp", &code), -EBADMSG);
        assert_null(code);
        assert_int_equal(llm_budget_used(budget), 276);
        assert_non_null(strstr(g.error, "max_tokens"));
        llm_budget_free(budget);
}

static void test_malformed_answers(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g[3] = { 0 };
        int done = 0;

        peer_start(
            &fx->peer,
            script(
                rule(CHAT_PATH, "case-not-json",
                     packed(json_pack("{s:i, s:s}", "status", 200, "body", "this is not JSON {")),
                     END),
                rule(CHAT_PATH, "case-no-choices",
                     packed(json_pack("{s:i, s:{s:[]}}", "status", 200, "json", "choices")), END),
                rule(CHAT_PATH, "case-null-content",
                     packed(json_pack("{s:i, s:{s:[{s:{s:s, s:n}, s:s}], s:{s:i, s:i}}}", "status",
                                      200, "json", "choices", "message", "role", "assistant",
                                      "content", "finish_reason", "stop", "usage", "prompt_tokens",
                                      7, "total_tokens", 7)),
                     END),
                END));
        default_options(fx, &o);
        client_new(fx, &o);
        completed_counter = &done;
        chat(fx, "case-not-json", NULL, &g[0]);
        chat(fx, "case-no-choices", NULL, &g[1]);
        run_until(fx->base, &done, 2, 5);
        chat(fx, "case-null-content", NULL, &g[2]);
        run_until(fx->base, &done, 3, 5);
        completed_counter = NULL;
        for (int i = 0; i < 3; i++) {
                assert_int_equal(g[i].outcome, LLM_MALFORMED);
                assert_int_equal(g[i].attempts, 1);
                assert_false(g[i].has_content);
        }
        assert_non_null(strstr(g[0].error, "not a JSON object"));
        /* no usage: charged an estimate, so a budget still moves */
        assert_true(g[0].usage_estimated);
        assert_true(g[0].charged > 0);
        assert_non_null(strstr(g[1].error, "no choices"));
        assert_non_null(strstr(g[2].error, "choices[0].message.content"));
        assert_int_equal(g[2].charged, 7);
}

static void test_budget_exhausted_sends_nothing(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_budget *none = llm_budget_new(0), *small = llm_budget_new(100);
        struct llm_options o;
        struct got g[3] = { 0 };
        json_t *requests;
        double took;

        peer_start(&fx->peer,
                   script(rule(CHAT_PATH, NULL, chat_answer("ok", "stop", 100, 50), END), END));
        default_options(fx, &o);
        client_new(fx, &o);

        chat(fx, "first", none, &g[0]);
        assert_int_equal(g[0].count, 0);
        took = run_until(fx->base, &g[0].count, 1, 5);
        assert_int_equal(g[0].outcome, LLM_BUDGET_EXHAUSTED);
        assert_int_equal(g[0].attempts, 0);
        assert_true(took < 0.1);
        assert_non_null(strstr(g[0].error, "budget"));

        /* the first call may overshoot; the next one finds the budget spent */
        chat(fx, "second", small, &g[1]);
        run_until(fx->base, &g[1].count, 1, 5);
        assert_int_equal(g[1].outcome, LLM_OK);
        assert_int_equal(llm_budget_used(small), 150);
        assert_true(llm_budget_exhausted(small));
        chat(fx, "third", small, &g[2]);
        /* the caller may drop its budget: the call holds a reference */
        small = llm_budget_free(small);
        run_until(fx->base, &g[2].count, 1, 5);
        assert_int_equal(g[2].outcome, LLM_BUDGET_EXHAUSTED);
        assert_string_equal(llm_outcome_name(g[2].outcome), "budget_exhausted");

        requests = peer_requests(&fx->peer);
        assert_int_equal(json_array_size(requests), 1);
        json_decref(requests);
        llm_budget_free(none);
}

static void test_concurrency_limit_and_fifo(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g[5] = { 0 };
        json_int_t max_in_flight = 0, in_flight;
        char user[32], first_two[2][32];
        const char *body;
        json_t *requests;
        size_t i;
        int done = 0;

        peer_start(
            &fx->peer,
            script(rule(CHAT_PATH, NULL, delayed(chat_answer("ok", "stop", 1, 1), 200), END), END));
        default_options(fx, &o);
        o.max_concurrency = 2;
        client_new(fx, &o);
        completed_counter = &done;
        for (i = 0; i < 5; i++) {
                snprintf(user, sizeof(user), "call-%zu", i);
                chat(fx, user, NULL, &g[i]);
        }
        assert_int_equal(llm_client_pending(fx->client), 5);
        assert_int_equal(llm_client_queued(fx->client), 3);
        run_until(fx->base, &done, 5, 5);
        completed_counter = NULL;
        assert_int_equal(llm_client_pending(fx->client), 0);
        for (i = 0; i < 5; i++)
                assert_int_equal(g[i].outcome, LLM_OK);

        requests = peer_requests(&fx->peer);
        assert_int_equal(json_array_size(requests), 5);
        for (i = 0; i < 5; i++) {
                in_flight =
                    json_integer_value(json_object_get(json_array_get(requests, i), "in_flight"));
                if (in_flight > max_in_flight)
                        max_in_flight = in_flight;
                body = json_string_value(json_object_get(json_array_get(requests, i), "body"));
                if (i < 2)
                        snprintf(first_two[i], sizeof(first_two[i]), "%s",
                                 strstr(body, "call-0")   ? "call-0"
                                 : strstr(body, "call-1") ? "call-1"
                                                          : "other");
        }
        /* never more than two at once, and two at once did happen */
        assert_int_equal(max_in_flight, 2);
        /* FIFO: the first two sent are the first two submitted */
        assert_string_not_equal(first_two[0], "other");
        assert_string_not_equal(first_two[1], "other");
        assert_string_not_equal(first_two[0], first_two[1]);
        /* the last submitted finishes last */
        assert_int_equal(g[4].order, 5);
        json_decref(requests);
}

static void test_queue_is_capped(void **state)
{
        struct fixture *fx = fx_of(state);
        const struct llm_message m[] = { { "user", "hello" } };
        struct llm_options o;
        struct got g[3] = { 0 };
        int done = 0;

        peer_start(
            &fx->peer,
            script(rule(CHAT_PATH, NULL, delayed(chat_answer("ok", "stop", 1, 1), 100), END), END));
        default_options(fx, &o);
        o.max_concurrency = 1;
        o.max_queue = 1;
        client_new(fx, &o);
        completed_counter = &done;
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g[0], NULL), 0);
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g[1], NULL), 0);
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g[2], NULL), -EAGAIN);
        run_until(fx->base, &done, 2, 5);
        completed_counter = NULL;
        assert_int_equal(g[2].count, 0);
        /* bad arguments are refused without a callback */
        assert_int_equal(llm_chat(fx->client, m, 0, NULL, on_done, &g[2], NULL), -EINVAL);
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, NULL, NULL, NULL), -EINVAL);
}

static void test_embeddings_in_input_order(void **state)
{
        struct fixture *fx = fx_of(state);
        const char *inputs[] = { "double buffer the copies", "remove PipeBarrier<PIPE_ALL>" };
        const float query[] = { 0.9f, 0.1f, 0.0f };
        struct llm_options o;
        struct got g = { 0 };
        json_t *requests, *body, *want;
        double s0, s1;

        /* the server lists the vectors out of order; "index" says where each goes */
        peer_start(
            &fx->peer,
            script(rule(EMBED_PATH, NULL,
                        packed(json_pack("{s:i, s:{s:[{s:i, s:[f,f,f]}, {s:i, s:[f,f,f]}], "
                                         "s:{s:i, s:i}}}",
                                         "status", 200, "json", "data", "index", 1, "embedding",
                                         0.0, 1.0, 0.0, "index", 0, "embedding", 1.0, 0.0, 0.0,
                                         "usage", "prompt_tokens", 9, "total_tokens", 9)),
                        END),
                   END));
        default_options(fx, &o);
        client_new(fx, &o);
        assert_int_equal(llm_embed(fx->client, inputs, 2, NULL, on_done, &g, NULL), 0);
        run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_OK);
        assert_int_equal(g.n_vectors, 2);
        assert_int_equal(g.dim, 3);
        assert_true(g.vectors[0] == 1.0f && g.vectors[1] == 0.0f);
        assert_true(g.vectors[3] == 0.0f && g.vectors[4] == 1.0f);
        assert_int_equal(g.total_tokens, 9);

        /* ranking by cosine puts the first input on top for this query */
        s0 = llm_cosine_similarity(query, &g.vectors[0], 3);
        s1 = llm_cosine_similarity(query, &g.vectors[3], 3);
        assert_true(s0 > s1);
        assert_true(fabs(llm_cosine_similarity(&g.vectors[0], &g.vectors[0], 3) - 1.0) < 1e-9);

        requests = peer_requests(&fx->peer);
        assert_int_equal(json_array_size(requests), 1);
        body = request_body(requests, 0);
        assert_string_equal(json_string_value(json_object_get(body, "model")), "test-embedder");
        want = packed(json_pack("[s, s]", inputs[0], inputs[1]));
        assert_true(json_equal(json_object_get(body, "input"), want));
        json_decref(want);
        json_decref(body);
        json_decref(requests);

        /* a client with no embedding model refuses */
        llm_client_free(fx->client);
        o.embedding_model = NULL;
        client_new(fx, &o);
        assert_int_equal(llm_embed(fx->client, inputs, 2, NULL, on_done, &g, NULL), -EOPNOTSUPP);
}

static void test_embeddings_with_missing_vectors_are_malformed(void **state)
{
        struct fixture *fx = fx_of(state);
        const char *inputs[] = { "a", "b" };
        struct llm_options o;
        struct got g = { 0 };

        peer_start(&fx->peer,
                   script(rule(EMBED_PATH, NULL,
                               packed(json_pack("{s:i, s:{s:[{s:i, s:[f,f]}]}}", "status", 200,
                                                "json", "data", "index", 0, "embedding", 1.0, 0.0)),
                               END),
                          END));
        default_options(fx, &o);
        client_new(fx, &o);
        assert_int_equal(llm_embed(fx->client, inputs, 2, NULL, on_done, &g, NULL), 0);
        run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_MALFORMED);
        assert_int_equal(g.n_vectors, 0);
        assert_non_null(strstr(g.error, "1 vectors for 2 inputs"));
}

/* A port on loopback where nothing listens. */
static int closed_port(void)
{
        struct sockaddr_in addr = { .sin_family = AF_INET };
        socklen_t len = sizeof(addr);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
        close(fd);
        return ntohs(addr.sin_port);
}

static void test_endpoint_down_is_unreachable(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g = { 0 };
        double took;

        fx->peer.port = closed_port();
        default_options(fx, &o);
        client_new(fx, &o);
        chat(fx, "hello", NULL, &g);
        took = run_until(fx->base, &g.count, 1, 5);
        assert_int_equal(g.outcome, LLM_UNREACHABLE);
        assert_string_equal(llm_outcome_name(g.outcome), "unreachable");
        assert_int_equal(g.attempts, 3);
        assert_int_equal(g.http_status, 0);
        assert_non_null(strstr(g.error, "cannot reach http://127.0.0.1:"));
        assert_true(took < 2);
        assert_no_key(&g);
}

static void test_cancel_and_free_with_calls_in_flight(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_options o;
        struct got g[3] = { 0 };
        struct llm_call *running = NULL, *queued = NULL;
        const struct llm_message m[] = { { "user", "hello" } };
        json_t *requests;
        double took;
        int done = 0;

        peer_start(&fx->peer, script(rule(CHAT_PATH, NULL,
                                          delayed(chat_answer("late", "stop", 1, 1), 5000), END),
                                     END));
        default_options(fx, &o);
        o.max_concurrency = 1;
        client_new(fx, &o);
        completed_counter = &done;
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g[0], &running), 0);
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g[1], &queued), 0);
        assert_int_equal(llm_chat(fx->client, m, 1, NULL, on_done, &g[2], NULL), 0);

        /* a queued call leaves the queue; its callback comes later, from the loop */
        llm_call_cancel(queued);
        assert_int_equal(g[1].count, 0);
        run_until(fx->base, &done, 1, 5);
        assert_int_equal(g[1].outcome, LLM_CANCELLED);
        assert_int_equal(g[1].attempts, 0);

        /* a running request is aborted at once */
        run_for(fx->base, 0.1);
        llm_call_cancel(running);
        took = run_until(fx->base, &done, 2, 5);
        assert_true(took < 0.5);
        assert_int_equal(g[0].outcome, LLM_CANCELLED);
        assert_string_equal(g[0].error, "cancelled");
        assert_false(g[0].has_content);

        /* the third call got the slot; freeing the client aborts it silently */
        run_for(fx->base, 0.1);
        requests = peer_requests(&fx->peer);
        assert_int_equal(json_array_size(requests), 2);
        json_decref(requests);
        fx->client = llm_client_free(fx->client);
        run_for(fx->base, 0.1);
        assert_int_equal(g[2].count, 0);
        completed_counter = NULL;
}

static void test_client_options_are_checked(void **state)
{
        struct fixture *fx = fx_of(state);
        struct llm_client *c = NULL;
        struct llm_options o = { 0 };
        char err[256] = "";

        o.endpoint = "ftp://example.com/v1";
        o.model = "m";
        assert_int_equal(llm_client_new(fx->base, &o, &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "llm.endpoint"));
        o.endpoint = "http://127.0.0.1:1/v1?key=x";
        assert_int_equal(llm_client_new(fx->base, &o, &c, err, sizeof(err)), -EINVAL);
        /* the key and the source never travel in clear to another machine */
        o.endpoint = "http://llm.example.com/v1";
        assert_int_equal(llm_client_new(fx->base, &o, &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "in clear"));
        o.endpoint = "https://llm.example.com/v1";
        assert_int_equal(llm_client_new(fx->base, &o, &c, err, sizeof(err)), 0);
        assert_null(llm_client_free(c));
        c = NULL;
        o.endpoint = "http://127.0.0.1:1/v1/";
        o.api_key = "sk-abc\r\nX-Evil: 1";
        assert_int_equal(llm_client_new(fx->base, &o, &c, err, sizeof(err)), -EINVAL);
        assert_null(strstr(err, "sk-abc"));
        assert_null(c);
        o.api_key = NULL;
        assert_int_equal(llm_client_new(fx->base, &o, &c, err, sizeof(err)), 0);
        assert_int_equal(llm_client_pending(c), 0);
        assert_null(llm_client_free(c));
        assert_null(llm_client_free(NULL));
}

/* -------------------------------------------------- no peer needed */

static void test_consent_rules(void **state)
{
        struct config_llm llm = { .enabled = true, .endpoint = "https://api.example.com/v1" };
        struct config_repo allowed = { .llm_allowed = true }, other = { .llm_allowed = false };

        assert_true(llm_may_send(&llm, &allowed));
        assert_false(llm_may_send(&llm, &other));
        /* a remote endpoint stays off for other repos even with the loopback switch */
        llm.allow_loopback_for_all_repos = true;
        assert_false(llm_may_send(&llm, &other));
        llm.endpoint = "http://127.0.0.1:8000/v1";
        assert_true(llm_may_send(&llm, &other));
        llm.allow_loopback_for_all_repos = false;
        assert_false(llm_may_send(&llm, &other));
        assert_true(llm_may_send(&llm, &allowed));
        /* no LLM configured: nothing is sent anywhere */
        llm.enabled = false;
        assert_false(llm_may_send(&llm, &allowed));
        assert_false(llm_may_send(NULL, &allowed));
        llm.enabled = true;
        assert_false(llm_may_send(&llm, NULL));

        assert_true(llm_endpoint_is_loopback("http://127.0.0.1:8000/v1"));
        assert_true(llm_endpoint_is_loopback("http://127.3.2.1/v1"));
        assert_true(llm_endpoint_is_loopback("http://localhost:8080/v1"));
        assert_true(llm_endpoint_is_loopback("http://LOCALHOST/v1"));
        assert_true(llm_endpoint_is_loopback("http://[::1]:8000/v1"));
        assert_true(llm_endpoint_is_loopback("https://user@127.0.0.1/v1"));
        assert_false(llm_endpoint_is_loopback("http://128.0.0.1/v1"));
        assert_false(llm_endpoint_is_loopback("http://127.0.0.1.example.com/v1"));
        assert_false(llm_endpoint_is_loopback("http://localhost.example.com/v1"));
        assert_false(llm_endpoint_is_loopback("http://[::2]/v1"));
        assert_false(llm_endpoint_is_loopback("https://api.deepseek.com/v1"));
        assert_false(llm_endpoint_is_loopback("not a url"));
        assert_false(llm_endpoint_is_loopback(NULL));
}

static void test_api_key_resolution(void **state)
{
        char path[] = "/tmp/ascendopt-llm-key-XXXXXX";
        struct config_llm llm = { .enabled = true };
        char err[256] = "", *key = NULL;
        int fd;

        /* neither set: no key, no error */
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), 0);
        assert_null(key);

        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "  " KEY "\n", strlen(KEY) + 3), (ssize_t)strlen(KEY) + 3);
        close(fd);
        llm.api_key_file = path;
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), 0);
        assert_string_equal(key, KEY);
        key = llm_secret_free(key);
        assert_null(key);

        /* a file with two words on it would break the header */
        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        assert_int_equal(write(fd, KEY " extra\n", strlen(KEY) + 7), (ssize_t)strlen(KEY) + 7);
        close(fd);
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, path));
        assert_null(strstr(err, KEY));
        unlink(path);
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "llm.api_key_file"));

        llm.api_key_file = NULL;
        llm.api_key_env = "ASCENDOPT_TEST_LLM_KEY";
        unsetenv("ASCENDOPT_TEST_LLM_KEY");
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "ASCENDOPT_TEST_LLM_KEY"));
        setenv("ASCENDOPT_TEST_LLM_KEY", KEY, 1);
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), 0);
        assert_string_equal(key, KEY);
        llm_secret_free(key);
        setenv("ASCENDOPT_TEST_LLM_KEY", "", 1);
        assert_int_equal(llm_api_key_resolve(&llm, &key, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "empty"));
        unsetenv("ASCENDOPT_TEST_LLM_KEY");
}

static void test_code_blocks(void **state)
{
        char *code = NULL;

        assert_int_equal(llm_extract_code_block("I would rather not.", "cpp", &code), -ENOENT);
        assert_int_equal(llm_extract_code_block("inline ```cpp x``` is no block", NULL, &code),
                         -ENOENT);
        assert_null(code);

        assert_int_equal(llm_extract_code_block("Sure:\n```cpp\nint a;\n```\n", "cpp", &code), 0);
        assert_string_equal(code, "int a;\n");
        free(code);
        /* other spellings of C++, and untagged blocks, count */
        assert_int_equal(llm_extract_code_block("```c++\nint b;\n```", "cpp", &code), 0);
        assert_string_equal(code, "int b;\n");
        free(code);
        assert_int_equal(llm_extract_code_block("```\r\nint c;\r\n```\r\n", "cpp", &code), 0);
        assert_string_equal(code, "int c;\r\n");
        free(code);
        /* a block in another language is skipped when a hint is given */
        assert_int_equal(llm_extract_code_block("```python\nx = 1\n```\ntext\n```cpp\nint d;\n```",
                                                "cpp", &code),
                         0);
        assert_string_equal(code, "int d;\n");
        free(code);
        assert_int_equal(
            llm_extract_code_block("```python\nx = 1\n```\n```cpp\nint d;\n```", NULL, &code), 0);
        assert_string_equal(code, "x = 1\n");
        free(code);
        assert_int_equal(llm_extract_code_block("```python\nx = 1\n```\n", "cpp", &code), -ENOENT);
        /* a longer fence may hold a shorter one */
        assert_int_equal(
            llm_extract_code_block("````markdown\n```cpp\nx\n```\n````\n", "markdown", &code), 0);
        assert_string_equal(code, "```cpp\nx\n```\n");
        free(code);
        /* JSON for the distiller */
        assert_int_equal(llm_extract_code_block("```json\n{\"title\": \"t\"}\n```", "json", &code),
                         0);
        assert_string_equal(code, "{\"title\": \"t\"}\n");
        free(code);
        /* an empty block is a block */
        assert_int_equal(llm_extract_code_block("```cpp\n```\n", "cpp", &code), 0);
        assert_string_equal(code, "");
        free(code);
        code = NULL;
        assert_int_equal(llm_extract_code_block("```cpp\nint e;\n", "cpp", &code), -EBADMSG);
        assert_null(code);
}

static void test_prompt_rendering(void **state)
{
        json_t *vars =
            packed(json_pack("{s:s, s:i, s:f, s:[i,i], s:n, s:b}", "kernel", "int {{x}};",
                             "block_dim", 48, "latency_us", 12.5, "shape", 8, 8, "none", "ok", 1));
        char err[256] = "", *out = NULL;

        assert_int_equal(llm_prompt_render("K={{kernel}} B={{ block_dim }} L={{latency_us}} "
                                           "S={{shape}} N=[{{none}}] ok={{ok}}",
                                           vars, &out, err, sizeof(err)),
                         0);
        /* substituted text is not scanned again */
        assert_string_equal(out, "K=int {{x}}; B=48 L=12.5 S=[\n  8,\n  8\n] N=[] ok=true");
        free(out);
        /* braces that are no placeholder stay as they are */
        assert_int_equal(
            llm_prompt_render("a {{0}} {{ x y }} {{x} {{", vars, &out, err, sizeof(err)), 0);
        assert_string_equal(out, "a {{0}} {{ x y }} {{x} {{");
        free(out);
        out = NULL;
        assert_int_equal(
            llm_prompt_render("{{kernel}} and {{missing_thing}}", vars, &out, err, sizeof(err)),
            -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "{{missing_thing}}"));
        json_decref(vars);
}

/* Every shipped template renders with the fields its callers promise. */
static void test_shipped_prompts_render(void **state)
{
        static const struct {
                const char *file;
                const char *fields;
        } prompts[] = {
                { "system.txt", "" },
                { "stage1_mutation.txt",
                  "operator platform platform_facts tiling_data tiling_file tiling_source "
                  "recent_results best_latency_us" },
                { "stage2_refine.txt",
                  "operator platform platform_facts tiling_data kernel_file kernel "
                  "bottleneck_signature "
                  "profile_summary latency_us experiences" },
                { "rewind_inverse.txt", "operator platform_facts kernel applied_motifs" },
                { "rewind_distill.txt",
                  "operator slow_kernel fast_kernel diff slow_profile fast_profile "
                  "slow_latency_us fast_latency_us slow_signature signature_vocabulary" },
        };
        const char *src = getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".";
        char path[4096], err[256] = "", fields[512], *text, *out, *name, *save = NULL;
        json_t *vars;

        for (size_t i = 0; i < sizeof(prompts) / sizeof(prompts[0]); i++) {
                snprintf(path, sizeof(path), "%s/etc/ascendopt/prompts/%s", src, prompts[i].file);
                text = NULL;
                if (llm_prompt_load(path, &text, err, sizeof(err)) < 0)
                        fail_msg("%s", err);
                vars = json_object();
                snprintf(fields, sizeof(fields), "%s", prompts[i].fields);
                for (name = strtok_r(fields, " ", &save); name; name = strtok_r(NULL, " ", &save))
                        json_object_set_new(vars, name, json_sprintf("<%s>", name));
                out = NULL;
                if (llm_prompt_render(text, vars, &out, err, sizeof(err)) < 0)
                        fail_msg("%s: %s", prompts[i].file, err);
                /* every promised field is used */
                snprintf(fields, sizeof(fields), "%s", prompts[i].fields);
                for (name = strtok_r(fields, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
                        char mark[64];

                        snprintf(mark, sizeof(mark), "<%s>", name);
                        if (!strstr(out, mark))
                                fail_msg("%s does not use {{%s}}", prompts[i].file, name);
                }
                free(out);
                free(text);
                json_decref(vars);
        }
        assert_int_equal(llm_prompt_load("/nonexistent/prompt.txt", &text, err, sizeof(err)),
                         -ENOENT);
        assert_non_null(strstr(err, "/nonexistent/prompt.txt"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_request_body_and_headers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_key_no_authorization_header, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_invalid_utf8_is_replaced, setup, teardown),
                cmocka_unit_test_setup_teardown(test_key_echoed_by_server_is_starred_out, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_429_waits_for_retry_after, setup, teardown),
                cmocka_unit_test_setup_teardown(test_500_then_success, setup, teardown),
                cmocka_unit_test_setup_teardown(test_5xx_until_attempts_run_out, setup, teardown),
                cmocka_unit_test_setup_teardown(test_timeout_in_bounded_time, setup, teardown),
                cmocka_unit_test_setup_teardown(test_truncated_answer, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_answers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_budget_exhausted_sends_nothing, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_concurrency_limit_and_fifo, setup, teardown),
                cmocka_unit_test_setup_teardown(test_queue_is_capped, setup, teardown),
                cmocka_unit_test_setup_teardown(test_embeddings_in_input_order, setup, teardown),
                cmocka_unit_test_setup_teardown(test_embeddings_with_missing_vectors_are_malformed,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_endpoint_down_is_unreachable, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cancel_and_free_with_calls_in_flight, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_client_options_are_checked, setup, teardown),
                cmocka_unit_test(test_consent_rules),
                cmocka_unit_test(test_api_key_resolution),
                cmocka_unit_test(test_code_blocks),
                cmocka_unit_test(test_prompt_rendering),
                cmocka_unit_test(test_shipped_prompts_render),
        };
        return cmocka_run_group_tests_name("llm", tests, NULL, NULL);
}
