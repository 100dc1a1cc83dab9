/* SPDX-License-Identifier: MIT */
/*
 * Optional LLM client: OpenAI-compatible chat completions and embeddings
 * over libcurl's multi-socket API on the caller's libevent loop, with
 * retries, deadlines, a concurrency limit, per-episode token budgets, the
 * consent rule for sending source code, and prompt templates.  Library
 * code: it never logs, and the API key never reaches a string it returns.
 */
#ifndef ASCENDOPT_LLM_H
#define ASCENDOPT_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct event_base;
struct config_llm;
struct config_repo;

/* Upper bounds on what a peer or a caller can make us hold. */
#define LLM_MAX_RESPONSE_BYTES (16u << 20)
#define LLM_MAX_EMBED_INPUTS   2048
#define LLM_MAX_EMBED_DIM      65536
#define LLM_MAX_PROMPT_BYTES   (1u << 20) /* a template file */

/* ------------------------------------------------------------- options */

/*
 * How a client talks to its endpoint.  Every pointer is borrowed for the
 * duration of llm_client_new() only; the client keeps copies.  A zero
 * member takes the default given beside it.
 */
struct llm_options {
        const char *endpoint;        /* base URL such as "http://127.0.0.1:8000/v1"; required */
        const char *model;           /* chat model; required by llm_chat() */
        const char *embedding_model; /* NULL: llm_embed() fails with -EOPNOTSUPP */
        const char *api_key;         /* NULL or "": no Authorization header */
        double connect_timeout_s;    /* per attempt; 10 */
        /* Per call, from the moment it leaves the queue to its completion,
         * across every attempt and backoff wait; 120 */
        double timeout_s;
        int max_tokens;           /* 4096 */
        double temperature;       /* sent as given (0 is a valid temperature) */
        int max_concurrency;      /* calls holding a slot at once; 2 */
        size_t max_queue;         /* calls waiting for a slot; 256 */
        int max_attempts;         /* attempts per call, first one included; 4 */
        double backoff_initial_s; /* first wait after a failure; 0.5 */
        double backoff_max_s;     /* cap of the exponential wait; 30 */
        double retry_after_max_s; /* cap on a server's Retry-After; 60 */
        /* Seeds the backoff jitter, so that tests are deterministic; 0 seeds
         * from the clock and the pid. */
        uint64_t jitter_seed;
};

/*
 * Fills options from the daemon's "llm" config: endpoint, model,
 * embedding_model, timeout_s, max_tokens, temperature and max_concurrency
 * (pointers borrowed from config).  The key is not resolved here: pass the
 * one from llm_api_key_resolve() in options->api_key.  Other members are
 * zeroed, i.e. take their defaults.
 */
void llm_options_from_config(struct llm_options *options, const struct config_llm *config);

/*
 * Resolves the API key named by the config: the contents of api_key_file
 * (surrounding whitespace trimmed) or the environment variable named by
 * api_key_env.  Sets *ret_key to NULL and returns 0 when neither is set.
 * Errors, with a message in err that names the file or the variable but
 * never holds any part of the key:
 *   -ENOENT  the file or the variable does not exist
 *   -EINVAL  the key is empty, too long (over 4 KiB) or holds control
 *            characters or spaces (it would break the header)
 *   other -errno from reading the file
 * *ret_key is owned by the caller; release it with llm_secret_free().
 */
int llm_api_key_resolve(const struct config_llm *config, char **ret_key, char *err,
                        size_t err_size);

/* Overwrites a secret string with zeros and frees it; accepts NULL, returns NULL. */
char *llm_secret_free(char *secret);

/* ------------------------------------------------------------- consent */

/*
 * Whether the host of an endpoint URL is a loopback address: 127.0.0.0/8,
 * ::1 (and ::ffff:127.x.y.z) or the name "localhost".  A URL that does not
 * parse is not loopback.
 */
bool llm_endpoint_is_loopback(const char *endpoint);

/*
 * Whether source code of repo may be sent to the configured endpoint:
 * never when the LLM is not configured; always when the repo says
 * llm_allowed; otherwise only when the endpoint is loopback and the config
 * sets allow_loopback_for_all_repos.  Both arguments are borrowed; NULL
 * means "no".
 */
bool llm_may_send(const struct config_llm *config, const struct config_repo *repo);

/* -------------------------------------------------------------- budget */

/*
 * A token budget, normally one per episode.  Every call made with it is
 * charged the "usage" the server reports (total_tokens); a response with no
 * usage is charged an estimate of one token per four bytes of request and
 * response, so a server that omits usage cannot run past the budget.  A
 * call made while used >= limit completes with LLM_BUDGET_EXHAUSTED and
 * sends nothing.  A limit of 0 allows no call at all; pass a NULL budget to
 * llm_chat() for no limit.  The check happens when a call is submitted and
 * again when it leaves the queue; calls already running may overshoot the
 * limit by what they use.
 *
 * Budgets are reference counted: calls hold a reference, so the caller may
 * free its budget at any time.  Returns NULL when out of memory.
 */
struct llm_budget *llm_budget_new(int64_t limit_tokens);
/* Drops the caller's reference; accepts NULL, returns NULL. */
struct llm_budget *llm_budget_free(struct llm_budget *budget);
int64_t llm_budget_limit(const struct llm_budget *budget);
int64_t llm_budget_used(const struct llm_budget *budget);
bool llm_budget_exhausted(const struct llm_budget *budget);

/* ------------------------------------------------------------- results */

enum llm_outcome {
        LLM_OK,
        LLM_HTTP_ERROR,       /* a non-2xx status, after retries where they apply */
        LLM_TIMEOUT,          /* the call's timeout_s passed */
        LLM_TRUNCATED,        /* finish_reason "length"; content holds the partial answer */
        LLM_MALFORMED,        /* not JSON, missing fields, or an oversized response */
        LLM_BUDGET_EXHAUSTED, /* nothing was sent */
        LLM_CANCELLED,        /* llm_call_cancel() */
        LLM_UNREACHABLE,      /* no HTTP response (refused, reset, DNS ...), after retries */
};

/* "ok", "http_error", "timeout", "truncated", "malformed", "budget_exhausted",
 * "cancelled", "unreachable": the words to record. */
const char *llm_outcome_name(enum llm_outcome outcome);

/*
 * What a call came to.  Borrowed for the duration of the callback: copy
 * what you keep.  No string in it ever holds the API key (a server that
 * echoes the key back gets it starred out).
 */
struct llm_result {
        enum llm_outcome outcome;
        /* chat: the message content for LLM_OK and LLM_TRUNCATED, else NULL */
        const char *content;
        const char *finish_reason; /* as sent by the server, or NULL */
        /* embeddings, LLM_OK only: n_vectors rows of dim floats, in input order */
        const float *vectors;
        size_t n_vectors, dim;
        /* from the response's "usage"; usage_estimated when it had none */
        int64_t prompt_tokens, completion_tokens, total_tokens;
        bool usage_estimated;
        int64_t tokens_charged; /* what the budget was charged */
        double latency_s;       /* leaving the queue to completion, retries included */
        int attempts;           /* HTTP requests made, 0 when none */
        long http_status;       /* of the last attempt; 0 when none got a response */
        /* SHA-256 (hex) of the compact, key-sorted JSON of the messages (chat)
         * or of the input array (embeddings): the prompt's identity for records */
        char prompt_sha256[SHA256_HEX_SIZE];
        /* one line on why the call failed, "" for LLM_OK */
        const char *error;
};

struct llm_client;
struct llm_call;

/*
 * Called exactly once per call that was accepted, always from the event
 * loop and never from inside llm_chat()/llm_embed()/llm_call_cancel().
 * The call (the handle llm_chat() gave, for telling calls apart) and the
 * result are valid until the callback returns.  The callback may submit
 * and cancel calls, but must not free the client.
 */
typedef void (*llm_done_fn)(struct llm_call *call, const struct llm_result *result, void *userdata);

/* ------------------------------------------------------------- client */

/*
 * Creates a client bound to base (borrowed; it must outlive the client).
 * Errors, with a message in err: -EINVAL for a missing or non-http(s)
 * endpoint, a negative option, or a key that holds spaces or control
 * characters (never quoted), -ENOMEM, -EIO when libcurl cannot be set up.
 */
int llm_client_new(struct event_base *base, const struct llm_options *options,
                   struct llm_client **ret_client, char *err, size_t err_size);

/*
 * Aborts every call, queued or in flight, WITHOUT calling their callbacks,
 * and frees the client; every llm_call handle becomes invalid.  Accepts
 * NULL, returns NULL.  Must not be called from a completion callback.
 */
struct llm_client *llm_client_free(struct llm_client *client);

/* Calls accepted whose callback has not yet returned; calls waiting for a slot. */
size_t llm_client_pending(const struct llm_client *client);
size_t llm_client_queued(const struct llm_client *client);

struct llm_message {
        const char *role; /* "system", "user" or "assistant" */
        const char *content;
};

/*
 * Starts POST {endpoint}/chat/completions with {"model", "messages",
 * "max_tokens", "temperature", "stream": false}.  Messages are copied;
 * bytes that are not valid UTF-8 (a comment in GBK, say) are sent as
 * U+FFFD, and the prompt hash is over what is sent.  budget may be NULL
 * (no limit); the call holds a reference to it.  The call starts at once
 * when a slot is free and waits in FIFO order otherwise.  Retries, with exponential backoff and jitter, on 408, 429
 * (waiting for Retry-After, capped) and 5xx, and on failures to connect,
 * up to max_attempts; other 4xx fail at once.  A call holds its slot
 * through its backoff waits.
 *
 * Returns 0 and, when ret_call is not NULL, a handle valid until the
 * callback returns.  Errors (the callback will not run): -EINVAL for bad
 * arguments, -EAGAIN when max_queue calls already wait, -ENOMEM.
 */
int llm_chat(struct llm_client *client, const struct llm_message *messages, size_t n_messages,
             struct llm_budget *budget, llm_done_fn done, void *userdata,
             struct llm_call **ret_call);

/*
 * Starts POST {endpoint}/embeddings with {"model": embedding_model,
 * "input": [...]} for n_inputs strings (1 to LLM_MAX_EMBED_INPUTS, copied).
 * Like llm_chat() otherwise; -EOPNOTSUPP when the client has no embedding
 * model.  The vectors come back in input order whatever order the server
 * lists them in.
 */
int llm_embed(struct llm_client *client, const char *const *inputs, size_t n_inputs,
              struct llm_budget *budget, llm_done_fn done, void *userdata,
              struct llm_call **ret_call);

/*
 * Cancels a call: a queued call leaves the queue, a running request is
 * aborted, a backoff wait ends.  The callback still runs, later from the
 * loop, with LLM_CANCELLED, and nothing is charged.  Cancelling a call
 * that has already completed (its callback is pending or running) does
 * nothing.
 */
void llm_call_cancel(struct llm_call *call);

/* Cosine similarity of two vectors of dim floats; 0 when either is zero. */
double llm_cosine_similarity(const float *a, const float *b, size_t dim);

/* ------------------------------------------------------------- answers */

/*
 * Copies the body of the first fenced code block (``` at the start of a
 * line, closed by a line of at least as many backticks) into *ret_code
 * (owned by the caller).  With a language_hint such as "cpp", only blocks
 * tagged with that language (cpp, c++, cc, cxx, c, h, hpp are one family)
 * or untagged are taken; NULL takes the first block of any tag.  Errors:
 * -ENOENT when there is no such block, -EBADMSG when a fence opens and
 * never closes (typically a truncated answer), -ENOMEM.
 */
int llm_extract_code_block(const char *content, const char *language_hint, char **ret_code);

/* ------------------------------------------------------------- prompts */

/*
 * Reads a prompt template file (at most LLM_MAX_PROMPT_BYTES) into
 * *ret_text (owned by the caller).  -errno with a message naming the path.
 */
int llm_prompt_load(const char *path, char **ret_text, char *err, size_t err_size);

/*
 * Substitutes every {{name}} (optional spaces inside the braces; a name
 * starts with a letter or '_' and goes on with letters, digits, '_' and
 * '.') with the member of vars of that name: strings verbatim, numbers
 * and booleans as JSON, arrays and objects as indented JSON, null as "".
 * Anything else with braces, such as C++'s {{0}}, is kept literally,
 * and substituted text is never scanned again.  vars is borrowed.
 * *ret_text is owned by the caller.  -EINVAL with a message naming the
 * placeholder when vars has no such member, -ENOMEM.
 */
int llm_prompt_render(const char *template_text, const json_t *vars, char **ret_text, char *err,
                      size_t err_size);

#endif
