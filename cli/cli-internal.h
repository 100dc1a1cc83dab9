/* SPDX-License-Identifier: MIT */
/* Shared by the CLI's command files: the commands and small helpers. */
#ifndef ASCENDOPT_CLI_INTERNAL_H
#define ASCENDOPT_CLI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

int cmd_init(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_optimize(int argc, char **argv);
int cmd_experience(int argc, char **argv);
int cmd_memo(int argc, char **argv);

/*
 * A fleet job's exchange with its head (cli/exchange.c, docs/fleet.md):
 * exchange_take() imports the head's bank snapshot into the job's new
 * store (refusing a store whose bank has entries) and merges its memo,
 * each optional, then notes what the job was given; exchange_leave()
 * writes dir/experience.jsonl (what the job added to the bank),
 * dir/memo.jsonl (the results it measured) and, last, dir/result.json
 * (record).  Both return 0 or -errno with a message in err.
 */
struct store;
struct exchange {
        json_t *bank_before; /* the bank the job was given, as experience_list() has it */
        json_t *memo_before; /* the identities it was given */
};
int exchange_take(struct store *store, const char *bank, const char *memo, struct exchange *x,
                  char *err, size_t err_size);
int exchange_leave(struct store *store, const struct exchange *x, const char *dir,
                   const json_t *record, char *err, size_t err_size);
void exchange_release(struct exchange *x);
int cmd_corpus(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_rewind(int argc, char **argv);
int cmd_doctor(int argc, char **argv);

/*
 * The operator directories two levels below root (root/LEVEL/OP) for which
 * want() is true, sorted; at most max, each a new string in ops.
 */
size_t cli_find_operators(const char *root, bool (*want)(const char *opdir), char **ops,
                          size_t max);

/* --state-dir, else $ASCENDOPT_STATE_DIR, else $XDG_STATE_HOME/ascendopt, else
 * ~/.local/state/ascendopt.  Writes into buf. */
const char *cli_state_dir(const char *flag, char *buf, size_t size);

/* Opens the store of --state-dir (flag) or the default; on failure prints
 * "ascendopt COMMAND: why" and returns the sysexits code, else 0. */
struct store;
int cli_open_store(const char *command, const char *flag, struct store **ret);

/* The exit code for a file read in failing with r: bad data, no input, or I/O. */
int cli_exit_for_input(int r);

struct npu_environment;
struct npu_environment_options;
/*
 * Opens a command's store, runner and evaluator (npu_environment_open:
 * sandboxed, with the default limits).  On failure prints "ascendopt
 * COMMAND: why" and returns the sysexits code to exit with; 0 on success.
 * Close env with npu_environment_close() either way.
 */
int cli_open_environment(const char *command, const struct npu_environment_options *options,
                         struct npu_environment *env);
int cmd_status(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_episodes(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_candidates(int argc, char **argv);
int cmd_enqueue(int argc, char **argv);
int cmd_recreate(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_reload(int argc, char **argv);

/* --socket, else $ASCENDOPT_SOCKET, else $XDG_RUNTIME_DIR/ascendopt/ascendoptd.sock,
 * else /run/ascendopt/ascendoptd.sock.  Writes into buf. */
const char *cli_socket_path(const char *flag, char *buf, size_t size);

/*
 * One HTTP request to the daemon's control socket.  *ret_body is the JSON
 * answer (new reference) and *ret_status its HTTP status; -errno plus a
 * message in err when the daemon could not be reached or answered garbage.
 */
int cli_request(const char *socket_path, const char *method, const char *path, const json_t *body,
                int *ret_status, json_t **ret_body, char *err, size_t err_size);

/* Prints "ascendopt COMMAND: MESSAGE" and a hint to stderr; returns EX_USAGE. */
int cli_usage_error(const char *command, const char *message);
/* Prints "ascendopt COMMAND: out of memory" to stderr; returns EX_OSERR. */
int cli_out_of_memory(const char *command);

/* Parses a decimal unsigned number; -EINVAL on anything else. */
int cli_parse_u64(const char *s, uint64_t *ret);

/* A duration in seconds: a finite number > 0 and at most CLI_MAX_TIMEOUT_S; -EINVAL otherwise. */
#define CLI_MAX_TIMEOUT_S 86400.0
int cli_parse_seconds(const char *s, double *ret);

/* Prints one JSON object on stdout, indented on a terminal, compact otherwise. */
void cli_print_json(const json_t *value);

/* --llm CONFIG: the LLM of an ascendoptd.json's "llm" section (cli/llm.c). */
#include <limits.h>

#include "optimizer/optimizer.h"

struct event_base;
struct config;

struct cli_llm {
        struct llm_client *client;
        struct config *config;
        struct episode_llm options; /* what episodes and rewind take */
        char prompts_dir[PATH_MAX];
};

/*
 * Loads config_path, resolves its key and starts a client on base.  Prints
 * "ascendopt COMMAND: --llm: ..." and returns -errno on any error.
 */
int cli_llm_open(const char *command, const char *config_path, struct event_base *base,
                 struct cli_llm *ret);
/* Frees the client and the config; accepts a zeroed or closed one. */
void cli_llm_close(struct cli_llm *llm);

/* "  LLM model: N calls, T tokens, ..." for an episode record's "llm"; nothing for NULL. */
void cli_print_llm_usage(const struct episode_llm_usage *llm);

#endif
