/* SPDX-License-Identifier: MIT */
/*
 * The daemon: the ascendoptd process around the event loop.  Its
 * configuration is config/config.h.  daemon/main.c only calls
 * daemon_main().
 */
#ifndef ASCENDOPT_DAEMON_H
#define ASCENDOPT_DAEMON_H

#include "config/config.h"

/* Runs ascendoptd with its command line; returns a sysexits exit code. */
int daemon_main(int argc, char **argv);

#endif
