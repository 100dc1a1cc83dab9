/* SPDX-License-Identifier: MIT */
/*
 * The CLI commands that talk to a running ascendoptd over its control
 * socket: status, queue, episodes, show, enqueue, cancel, pause, resume and
 * reload.  Requests are plain HTTP/1.0 on a blocking unix socket; bodies go
 * through jansson.
 */
#include "cli-internal.h"

#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sysexits.h>
#include <unistd.h>

#define MAX_RESPONSE       (8u << 20)
#define REQUEST_TIMEOUT_MS 30000

const char *cli_socket_path(const char *flag, char *buf, size_t size)
{
        if (flag)
                snprintf(buf, size, "%s", flag);
        else if (config_default_socket(buf, size) < 0)
                snprintf(buf, size, "/run/ascendopt/ascendoptd.sock");
        return buf;
}

/*
 * A string from the daemon's answer made safe for a terminal: control
 * characters (an escape sequence in a repository path or branch name
 * could rewrite the screen) are shown as '?'.  NULL when not a string.
 * Each call takes the next of a few buffers, enough for one printf.
 */
static const char *shown_value(const json_t *v)
{
        static char buffers[12][1024];
        static size_t next;
        const char *s = json_string_value(v);
        char *out;
        size_t i;

        if (!s)
                return NULL;
        out = buffers[next++ % ARRAY_SIZE(buffers)];
        for (i = 0; s[i] && i < sizeof(buffers[0]) - 1; i++)
                out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
        out[i] = '\0';
        return out;
}

static const char *shown(const json_t *object, const char *key)
{
        return shown_value(json_object_get(object, key));
}

static int write_all(int fd, const char *data, size_t len)
{
        while (len) {
                ssize_t n = write(fd, data, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -errno;
                data += n;
                len -= (size_t)n;
        }
        return 0;
}

int cli_request(const char *socket_path, const char *method, const char *path, const json_t *body,
                int *ret_status, json_t **ret_body, char *err, size_t err_size)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
        char header[1024], *response = NULL, *payload;
        size_t len = 0, cap = 0;
        int fd = -1, r, status = 0;

        if (strlen(socket_path) >= sizeof(addr.sun_path)) {
                snprintf(err, err_size, "%s: socket path too long", socket_path);
                r = -ENAMETOOLONG;
                goto out;
        }
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", socket_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                r = -errno;
                snprintf(err, err_size,
                         "cannot reach ascendoptd at %s: %s (is it running? use --socket or "
                         "ASCENDOPT_SOCKET to point elsewhere)",
                         socket_path, strerror(errno));
                goto out;
        }
        snprintf(header, sizeof(header),
                 "%s %s HTTP/1.0\r\nHost: ascendoptd\r\nContent-Type: application/json\r\n"
                 "Content-Length: %zu\r\n\r\n",
                 method, path, text ? strlen(text) : 0);
        r = write_all(fd, header, strlen(header));
        if (r == 0 && text)
                r = write_all(fd, text, strlen(text));
        if (r < 0) {
                snprintf(err, err_size, "%s: write failed: %s", socket_path, strerror(-r));
                goto out;
        }
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t n;
                if (poll(&p, 1, REQUEST_TIMEOUT_MS) == 0) {
                        snprintf(err, err_size, "ascendoptd did not answer within %d s",
                                 REQUEST_TIMEOUT_MS / 1000);
                        r = -ETIMEDOUT;
                        goto out;
                }
                if (len + 4096 + 1 > cap) {
                        char *grown;
                        cap = cap ? 2 * cap : 16384;
                        if (cap > MAX_RESPONSE) {
                                snprintf(err, err_size, "response larger than %u bytes",
                                         MAX_RESPONSE);
                                r = -EFBIG;
                                goto out;
                        }
                        grown = realloc(response, cap);
                        if (!grown) {
                                r = -ENOMEM;
                                goto out;
                        }
                        response = grown;
                }
                n = read(fd, response + len, cap - len - 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        snprintf(err, err_size, "read failed: %s", strerror(errno));
                        goto out;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        if (response)
                response[len] = '\0'; /* before sscanf and strstr read it as a string */
        if (!response || sscanf(response, "HTTP/%*s %d", &status) != 1 ||
            !(payload = strstr(response, "\r\n\r\n"))) {
                snprintf(err, err_size, "malformed answer from ascendoptd");
                r = -EPROTO;
                goto out;
        }
        payload += 4;
        *ret_body = json_loads(payload, 0, NULL);
        if (!*ret_body) {
                snprintf(err, err_size, "ascendoptd answered %d without JSON", status);
                r = -EPROTO;
                goto out;
        }
        *ret_status = status;
        r = 0;
out:
        if (fd >= 0)
                close(fd);
        free(text);
        free(response);
        return r;
}

/* Common flags of the remote commands: --json and --socket. */
struct remote_args {
        bool json;
        const char *socket;
        const char *branch;
        int first_arg; /* optind after parsing */
};

static int parse_remote_args(const char *command, int argc, char **argv, struct remote_args *a,
                             bool takes_branch)
{
        static const struct option options[] = {
                { "json", no_argument, NULL, 'j' },
                { "socket", required_argument, NULL, 's' },
                { "branch", required_argument, NULL, 'b' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int opt;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'j':
                        a->json = true;
                        break;
                case 's':
                        a->socket = optarg;
                        break;
                case 'b':
                        if (!takes_branch)
                                return cli_usage_error(command, "--branch does not apply");
                        a->branch = optarg;
                        break;
                case 'h':
                        printf("Usage: ascendopt %s [--json] [--socket PATH]%s\n", command,
                               takes_branch ? " [--branch B]" : "");
                        return -1;
                default:
                        return cli_usage_error(command, "unknown option");
                }
        }
        a->first_arg = optind;
        return 0;
}

/* Sends a request; prints errors; returns a sysexits code or -1 on success with *ret_body set. */
static int call(const char *command, const struct remote_args *a, const char *method,
                const char *path, const json_t *body, json_t **ret_body)
{
        char socket_buf[PATH_MAX], err[1024];
        const char *socket_path = cli_socket_path(a->socket, socket_buf, sizeof(socket_buf));
        int status = 0;

        if (cli_request(socket_path, method, path, body, &status, ret_body, err, sizeof(err)) < 0) {
                fprintf(stderr, "ascendopt %s: %s\n", command, err);
                return EX_UNAVAILABLE;
        }
        if (status >= 300) {
                const char *message = shown(*ret_body, "error");
                fprintf(stderr, "ascendopt %s: %s\n", command, message ? message : "failed");
                json_decref(*ret_body);
                return status == 403 ? EX_NOPERM : status == 404 ? EX_DATAERR : EX_SOFTWARE;
        }
        return -1;
}

static void print_item(const json_t *item)
{
        printf("  %-6lld %-10s %-7s %-28s %.12s  %s\n",
               (long long)json_integer_value(json_object_get(item, "id")), shown(item, "state"),
               shown(item, "priority"), shown(item, "op_dir"), shown(item, "commit"),
               shown(item, "branch"));
}

int cmd_status(int argc, char **argv)
{
        struct remote_args a = { 0 };
        json_t *status = NULL, *v;
        const char *sandbox;
        size_t i;
        int r = parse_remote_args("status", argc, argv, &a, false);

        if (r)
                return r < 0 ? EX_OK : r;
        r = call("status", &a, "GET", "/v1/status", NULL, &status);
        if (r >= 0)
                return r;
        if (a.json) {
                cli_print_json(status);
                json_decref(status);
                return EX_OK;
        }
        printf("ascendoptd %s, pid %lld, up %lld s, backend %s on %s%s\n", shown(status, "version"),
               (long long)json_integer_value(json_object_get(status, "pid")),
               (long long)json_integer_value(json_object_get(status, "uptime_s")),
               shown(status, "backend"), shown(status, "platform"),
               json_is_true(json_object_get(status, "paused")) ? ", PAUSED" : "");
        sandbox = json_string_value(json_object_get(status, "sandbox"));
        if (sandbox && strcmp(sandbox, "off") == 0)
                printf("sandbox: OFF: candidates run with no isolation, as the daemon's user "
                       "(\"sandbox\": \"off\" in its config)\n");
        else if (sandbox && strcmp(sandbox, "missing") == 0)
                printf("sandbox: MISSING: no episode runs; %s\n", CHILD_NO_SANDBOX_HELP);
        v = json_object_get(status, "waiting_for_space");
        if (v)
                printf("space: WAITING: %s has %lld MiB free, under limits.min_free_bytes (%lld "
                       "MiB); nothing starts until there is more\n",
                       shown(v, "state_dir"),
                       (long long)(json_integer_value(json_object_get(v, "free_bytes")) >> 20),
                       (long long)(json_integer_value(json_object_get(v, "min_free_bytes")) >> 20));
        printf("queue: %lld waiting; %lld commits seen\n",
               (long long)json_integer_value(json_object_get(status, "queue_depth")),
               (long long)json_integer_value(json_object_get(status, "commits_seen")));
        if (json_object_get(status, "fleet")) {
                const json_t *f = json_object_get(status, "fleet");
                printf("fleet: %lld of %lld Slurm jobs in flight (gres %s%s%s)\n",
                       (long long)json_integer_value(json_object_get(f, "jobs_in_flight")),
                       (long long)json_integer_value(json_object_get(f, "max_jobs")),
                       shown(f, "gres") ?: "?", shown(f, "partition") ? ", partition " : "",
                       shown(f, "partition") ?: "");
        } else {
                printf("devices:\n");
        }
        json_array_foreach(
            json_object_get(status, "fleet") ? NULL : json_object_get(status, "devices"), i, v)
        {
                const char *reason = shown(v, "reason");
                const json_t *next = json_object_get(v, "next_probe_s");
                printf("  %-4lld %s%s%s", (long long)json_integer_value(json_object_get(v, "id")),
                       shown(v, "state"), reason ? ": " : "", reason ? reason : "");
                if (next)
                        printf(" (probed again %s%lld s)",
                               json_integer_value(next) ? "in " : "now, ",
                               (long long)json_integer_value(next));
                printf("\n");
        }
        json_array_foreach(json_object_get(status, "running"), i, v)
        {
                const json_t *job = json_object_get(v, "job");
                const char *id = shown(job, "id"), *node = shown(job, "node");
                printf("  running item %lld ",
                       (long long)json_integer_value(json_object_get(v, "item")));
                if (job) /* a Slurm job of the fleet (docs/fleet.md) */
                        printf("as Slurm job %s%s%s%s, %s", shown(job, "name") ?: "?",
                               id && *id ? " (id " : "", id && *id ? id : "", id && *id ? ")" : "",
                               shown(job, "state") ?: "?");
                else
                        printf("on device %lld",
                               (long long)json_integer_value(json_object_get(v, "device")));
                if (node && *node)
                        printf(" on %s", node);
                printf(": %s (%lld s)\n", shown(v, "op_dir"),
                       (long long)json_integer_value(json_object_get(v, "running_s")));
        }
        if (!json_is_true(json_object_get(status, "can_run_episodes")))
                printf("  (no episode can run: see the daemon's log)\n");
        printf("episodes: %lld done, %lld failed\n",
               (long long)json_integer_value(json_object_get(status, "episodes_done")),
               (long long)json_integer_value(json_object_get(status, "episodes_failed")));
        printf("repos:\n");
        json_array_foreach(json_object_get(status, "repos"), i, v)
        {
                size_t j;
                json_t *b;
                printf("  %s%s%s\n", shown(v, "path"), json_object_get(v, "error") ? ": " : "",
                       json_object_get(v, "error") ? shown(v, "error") : "");
                json_array_foreach(json_object_get(v, "branches"), j, b)
                    printf("    %-24s %.12s%s\n", shown(b, "branch"), shown(b, "tip"),
                           json_object_get(b, "last_seen") ? "" : " (not seen yet)");
        }
        if (json_array_size(json_object_get(status, "stalled_siblings")))
                printf("sibling branches left alone because someone else committed to them\n"
                       "(run 'ascendopt recreate REPO OPDIR' to rebuild one):\n");
        json_array_foreach(json_object_get(status, "stalled_siblings"), i, v)
            printf("  %s in %s\n", shown(v, "ref"), shown(v, "repo"));
        json_decref(status);
        return EX_OK;
}

int cmd_queue(int argc, char **argv)
{
        struct remote_args a = { 0 };
        json_t *q = NULL, *item;
        size_t i;
        int r = parse_remote_args("queue", argc, argv, &a, false);

        if (r)
                return r < 0 ? EX_OK : r;
        r = call("queue", &a, "GET", "/v1/queue", NULL, &q);
        if (r >= 0)
                return r;
        if (a.json) {
                cli_print_json(q);
        } else {
                printf("  %-6s %-10s %-7s %-28s %-12s  %s\n", "ID", "STATE", "FROM", "OPERATOR",
                       "COMMIT", "BRANCH");
                json_array_foreach(json_object_get(q, "running"), i, item) print_item(item);
                json_array_foreach(json_object_get(q, "queued"), i, item) print_item(item);
                if (json_is_true(json_object_get(q, "paused")))
                        printf("(paused: nothing new starts until 'ascendopt resume')\n");
        }
        json_decref(q);
        return EX_OK;
}

int cmd_episodes(int argc, char **argv)
{
        struct remote_args a = { 0 };
        json_t *list = NULL, *item;
        size_t i;
        int r = parse_remote_args("episodes", argc, argv, &a, false);

        if (r)
                return r < 0 ? EX_OK : r;
        r = call("episodes", &a, "GET", "/v1/items", NULL, &list);
        if (r >= 0)
                return r;
        if (a.json) {
                cli_print_json(list);
        } else {
                printf("  %-6s %-10s %-7s %-28s %-12s  %s\n", "ID", "STATE", "FROM", "OPERATOR",
                       "COMMIT", "BRANCH");
                json_array_foreach(json_object_get(list, "items"), i, item) print_item(item);
        }
        json_decref(list);
        return EX_OK;
}

int cmd_candidates(int argc, char **argv)
{
        struct remote_args a = { 0 };
        char path[PATH_MAX * 3 + 32];
        size_t len;
        json_t *answer = NULL, *row;
        size_t i;
        int r = parse_remote_args("candidates", argc, argv, &a, false);

        if (r)
                return r < 0 ? EX_OK : r;
        if (a.first_arg + 1 != argc || !*argv[a.first_arg] || strlen(argv[a.first_arg]) >= PATH_MAX)
                return cli_usage_error("candidates",
                                       "give one operator directory as the items name it, "
                                       "e.g. ops/relu");
        len = (size_t)snprintf(path, sizeof(path), "/v1/candidates?op=");
        for (const unsigned char *c = (const unsigned char *)argv[a.first_arg]; *c; c++)
                len += (size_t)snprintf(path + len, sizeof(path) - len,
                                        isalnum(*c) || strchr("/-_.", *c) ? "%c" : "%%%02X", *c);
        r = call("candidates", &a, "GET", path, NULL, &answer);
        if (r >= 0)
                return r;
        if (a.json) {
                cli_print_json(answer);
        } else if (json_array_size(json_object_get(answer, "candidates")) == 0) {
                printf("no candidate measured for %s yet (see 'ascendopt episodes')\n",
                       argv[a.first_arg]);
        } else {
                printf("  %-6s %-12s %4s %5s  %-22s %-14s %12s  %s\n", "ITEM", "COMMIT", "EVAL",
                       "STAGE", "TECHNIQUE", "STATUS", "LATENCY us", "IDENTITY");
                json_array_foreach(json_object_get(answer, "candidates"), i, row)
                {
                        double us = json_number_value(json_object_get(row, "latency_us"));
                        printf("  %-6lld %-12.12s %4lld %5lld  %-22.22s %-14.14s ",
                               json_integer_value(json_object_get(row, "item")),
                               shown(row, "commit") ?: "?",
                               json_integer_value(json_object_get(row, "evaluation")),
                               json_integer_value(json_object_get(row, "stage")),
                               shown(row, "technique") ?: "?", shown(row, "status") ?: "?");
                        if (us > 0)
                                printf("%12.2f", us);
                        else
                                printf("%12s", "-");
                        printf("  %.12s%s%s\n", shown(row, "identity") ?: "",
                               json_is_true(json_object_get(row, "new_best")) ? "  new best" : "",
                               json_is_true(json_object_get(row, "memo_hit")) ? "  (memo)" : "");
                }
                if (json_is_true(json_object_get(answer, "truncated")))
                        printf("(the first %d rows)\n", 5000);
        }
        json_decref(answer);
        return EX_OK;
}

int cmd_show(int argc, char **argv)
{
        struct remote_args a = { 0 };
        char path[64];
        uint64_t id;
        json_t *item = NULL;
        int r = parse_remote_args("show", argc, argv, &a, false);

        if (r)
                return r < 0 ? EX_OK : r;
        if (a.first_arg + 1 != argc || cli_parse_u64(argv[a.first_arg], &id) < 0)
                return cli_usage_error("show", "give one item id");
        snprintf(path, sizeof(path), "/v1/items/%llu", (unsigned long long)id);
        r = call("show", &a, "GET", path, NULL, &item);
        if (r >= 0)
                return r;
        if (a.json) {
                cli_print_json(item);
        } else {
                const char *report = json_string_value(json_object_get(item, "report"));
                struct episode_llm_usage llm;
                const json_t *reason;
                size_t i;
                printf("  %-6s %-10s %-7s %-28s %-12s  %s\n", "ID", "STATE", "FROM", "OPERATOR",
                       "COMMIT", "BRANCH");
                print_item(item);
                json_array_foreach(json_object_get(item, "reasons"), i, reason)
                    printf("  %s\n", shown_value(reason));
                episode_llm_usage_read(json_object_get(json_object_get(item, "summary"), "llm"),
                                       &llm);
                cli_print_llm_usage(&llm);
                if (report) {
                        /* Markdown: lines and tabs kept, other control characters not */
                        putchar('\n');
                        for (const char *p = report; *p; p++)
                                putchar((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t' ? '?'
                                                                                             : *p);
                }
        }
        json_decref(item);
        return EX_OK;
}

/*
 * enqueue and recreate: REPO OPDIR [--branch B] posted to path; on success
 * *ret_answer is the reply and the return is -1, else a sysexits code.
 */
static int post_operator(const char *command, int argc, char **argv, const char *path,
                         struct remote_args *a, json_t **ret_answer)
{
        char repo[PATH_MAX];
        json_t *body;
        int r = parse_remote_args(command, argc, argv, a, true);

        if (r)
                return r < 0 ? EX_OK : r;
        if (a->first_arg + 2 != argc)
                return cli_usage_error(command, "give REPO and OPDIR (relative to the repo)");
        if (!realpath(argv[a->first_arg], repo))
                snprintf(repo, sizeof(repo), "%s", argv[a->first_arg]);
        body = json_pack("{s:s, s:s, s:s?}", "repo", repo, "op_dir", argv[a->first_arg + 1],
                         "branch", a->branch);
        if (!body)
                return cli_out_of_memory(command);
        r = call(command, a, "POST", path, body, ret_answer);
        json_decref(body);
        return r;
}

int cmd_recreate(int argc, char **argv)
{
        struct remote_args a = { 0 };
        json_t *answer = NULL;
        int r = post_operator("recreate", argc, argv, "/v1/recreate", &a, &answer);

        if (r >= 0)
                return r;
        if (a.json)
                cli_print_json(answer);
        else
                printf("%s\n", shown(answer, "summary"));
        json_decref(answer);
        return EX_OK;
}

int cmd_enqueue(int argc, char **argv)
{
        struct remote_args a = { 0 };
        json_t *answer = NULL;
        int r = post_operator("enqueue", argc, argv, "/v1/enqueue", &a, &answer);

        if (r >= 0)
                return r;
        if (a.json)
                cli_print_json(answer);
        else
                printf("queued item %lld: %s at %.12s on %s\n",
                       (long long)json_integer_value(json_object_get(answer, "id")),
                       argv[a.first_arg + 1], shown(answer, "commit"), shown(answer, "branch"));
        json_decref(answer);
        return EX_OK;
}

/* cancel, pause, resume and reload: a POST and a one-line answer. */
static int simple_post(const char *command, int argc, char **argv, const char *path, bool takes_id)
{
        struct remote_args a = { 0 };
        json_t *body = NULL, *answer = NULL;
        uint64_t id = 0;
        int r = parse_remote_args(command, argc, argv, &a, false);

        if (r)
                return r < 0 ? EX_OK : r;
        if (takes_id && (a.first_arg + 1 != argc || cli_parse_u64(argv[a.first_arg], &id) < 0))
                return cli_usage_error(command, "give one item id");
        if (!takes_id && a.first_arg != argc)
                return cli_usage_error(command, "takes no arguments");
        body = takes_id ? json_pack("{s:I}", "id", (json_int_t)id) : json_object();
        if (!body)
                return cli_out_of_memory(command);
        r = call(command, &a, "POST", path, body, &answer);
        json_decref(body);
        if (r >= 0)
                return r;
        if (a.json)
                cli_print_json(answer);
        else
                printf("%s: done\n", command);
        json_decref(answer);
        return EX_OK;
}

int cmd_cancel(int argc, char **argv)
{
        return simple_post("cancel", argc, argv, "/v1/cancel", true);
}

int cmd_pause(int argc, char **argv)
{
        return simple_post("pause", argc, argv, "/v1/pause", false);
}

int cmd_resume(int argc, char **argv)
{
        return simple_post("resume", argc, argv, "/v1/resume", false);
}

int cmd_reload(int argc, char **argv)
{
        return simple_post("reload", argc, argv, "/v1/reload", false);
}
