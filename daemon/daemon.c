/* SPDX-License-Identifier: MIT */
/*
 * The ascendoptd process: command line, config, the libevent loop, signal
 * handling (SIGTERM/SIGINT stop, SIGHUP reloads the config and keeps the old
 * one when the new one is bad) and the sd_notify protocol.  ascendoptd never
 * forks itself; systemd or a terminal keeps it in the foreground.
 */
#include "daemon.h"

#include "common/common.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

struct daemon {
        struct event_base *base;
        struct config *config;
        char *config_path;
        struct event *sigterm, *sigint, *sighup;
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: ascendoptd [--config FILE] [--foreground] [--check-config]\n"
                   "\n"
                   "Background optimizer for AscendC operators.\n"
                   "\n"
                   "  -c, --config FILE   configuration (default: /etc/ascendopt/ascendoptd.json\n"
                   "                      for root, else ~/.config/ascendopt/ascendoptd.json)\n"
                   "  -f, --foreground    accepted for compatibility; ascendoptd never forks\n"
                   "      --check-config  validate the configuration and exit\n"
                   "  -h, --help          show this help\n"
                   "      --version       show the version\n");
}

static void apply_log_level(const struct config *config)
{
        const char *env = getenv("ASCENDOPT_LOG_LEVEL");
        int level = config->log_level;

        if (env)
                log_level_from_string(env, &level);
        log_set_max_level(level);
}

static void describe_config(const struct config *c)
{
        char devices[32];

        if (c->devices_auto)
                snprintf(devices, sizeof(devices), "auto-detected devices");
        else
                snprintf(devices, sizeof(devices), "%d device%s", c->device_count,
                         c->device_count == 1 ? "" : "s");
        log_info("config %s: backend %s, platform %s, %s, %zu repo%s, state in %s", c->source,
                 config_backend_name(c->backend), c->platform, devices, c->n_repos,
                 c->n_repos == 1 ? "" : "s", c->state_dir);
}

static void on_stop_signal(evutil_socket_t sig, short what, void *arg)
{
        struct daemon *d = arg;

        (void)what;
        log_notice("received %s, stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        event_base_loopbreak(d->base);
}

static void on_reload_signal(evutil_socket_t sig, short what, void *arg)
{
        struct daemon *d = arg;
        struct config *fresh = NULL;
        char err[1024];

        (void)sig;
        (void)what;
        sd_notify(0, "RELOADING=1");
        if (config_load(d->config_path, &fresh, err, sizeof(err)) < 0) {
                log_error("reload rejected, keeping the running configuration: %s", err);
        } else {
                config_free(d->config);
                d->config = fresh;
                apply_log_level(fresh);
                log_notice("configuration reloaded");
                describe_config(fresh);
        }
        sd_notify(0, "READY=1\nSTATUS=idle");
}

static void daemon_release(struct daemon *d)
{
        if (d->sigterm)
                event_free(d->sigterm);
        if (d->sigint)
                event_free(d->sigint);
        if (d->sighup)
                event_free(d->sighup);
        if (d->base)
                event_base_free(d->base);
        config_free(d->config);
        free(d->config_path);
}

int daemon_main(int argc, char **argv)
{
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "foreground", no_argument, NULL, 'f' },
                { "check-config", no_argument, NULL, 'C' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                { NULL, 0, NULL, 0 },
        };
        struct daemon d = { 0 };
        char default_path[4096], err[1024];
        bool check_only = false;
        int opt, ret = EX_OK;

        while ((opt = getopt_long(argc, argv, "c:fh", options, NULL)) != -1) {
                switch (opt) {
                case 'c':
                        free(d.config_path);
                        d.config_path = strdup(optarg);
                        break;
                case 'f':
                        break;
                case 'C':
                        check_only = true;
                        break;
                case 'h':
                        usage(stdout);
                        goto out;
                case 'V':
                        printf("ascendoptd %s\n", ASCENDOPT_VERSION);
                        goto out;
                default:
                        usage(stderr);
                        ret = EX_USAGE;
                        goto out;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "ascendoptd: unexpected argument '%s'\n", argv[optind]);
                usage(stderr);
                ret = EX_USAGE;
                goto out;
        }
        if (!d.config_path)
                d.config_path = strdup(config_default_path(default_path, sizeof(default_path)));
        if (!d.config_path) {
                ret = EX_OSERR;
                goto out;
        }
        if (config_load(d.config_path, &d.config, err, sizeof(err)) < 0) {
                log_error("%s", err);
                ret = EX_CONFIG;
                goto out;
        }
        apply_log_level(d.config);
        if (check_only) {
                printf("%s: configuration is valid\n", d.config_path);
                goto out;
        }

        /* Signals arrive through libevent; children get the defaults back. */
        signal(SIGPIPE, SIG_IGN);
        d.base = event_base_new();
        if (!d.base) {
                log_error("cannot create the event loop");
                ret = EX_OSERR;
                goto out;
        }
        d.sigterm = evsignal_new(d.base, SIGTERM, on_stop_signal, &d);
        d.sigint = evsignal_new(d.base, SIGINT, on_stop_signal, &d);
        d.sighup = evsignal_new(d.base, SIGHUP, on_reload_signal, &d);
        if (!d.sigterm || !d.sigint || !d.sighup || evsignal_add(d.sigterm, NULL) < 0 ||
            evsignal_add(d.sigint, NULL) < 0 || evsignal_add(d.sighup, NULL) < 0) {
                log_error("cannot install signal handlers");
                ret = EX_OSERR;
                goto out;
        }

        describe_config(d.config);
        log_notice("ascendoptd %s started", ASCENDOPT_VERSION);
        sd_notify(0, "READY=1\nSTATUS=idle");
        if (event_base_dispatch(d.base) < 0) {
                log_error("event loop failed");
                ret = EX_SOFTWARE;
        }
        log_notice("ascendoptd stopped");
out:
        daemon_release(&d);
        return ret;
}
