/* SPDX-License-Identifier: MIT */
/* Shared by the CLI's command files: the commands and small helpers. */
#ifndef ASCENDOPT_CLI_INTERNAL_H
#define ASCENDOPT_CLI_INTERNAL_H

#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

int cmd_eval(int argc, char **argv);

/* Prints "ascendopt COMMAND: MESSAGE" and a hint to stderr; returns EX_USAGE. */
int cli_usage_error(const char *command, const char *message);

/* Parses a decimal unsigned number; -EINVAL on anything else. */
int cli_parse_u64(const char *s, uint64_t *ret);

/* Prints one JSON object on stdout, indented on a terminal, compact otherwise. */
void cli_print_json(const json_t *value);

#endif
