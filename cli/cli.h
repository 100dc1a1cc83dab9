/* SPDX-License-Identifier: MIT */
/*
 * The ascendopt command-line tool: one table of commands, each a function
 * taking its own argv.  cli/main.c only calls cli_main().
 */
#ifndef ASCENDOPT_CLI_H
#define ASCENDOPT_CLI_H

/* Runs the CLI; returns a sysexits exit code. */
int cli_main(int argc, char **argv);

#endif
