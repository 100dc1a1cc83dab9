/* SPDX-License-Identifier: MIT */
/*
 * Command dispatch for the ascendopt CLI: the command table, help, and
 * the small parsers the commands share.
 */
#include "cli.h"
#include "cli-internal.h"

#include "npu/npu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

struct command {
        const char *name;
        const char *summary;
        int (*run)(int argc, char **argv);
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct command commands[] = {
        { "help", "show this help", cmd_help },
        { "version", "show the version", cmd_version },
        { "init", "draft ascendopt.json for an operator directory", cmd_init },
        { "eval", "compile and run one operator on the simulated NPU", cmd_eval },
        { "optimize", "run one optimization episode in the foreground", cmd_optimize },
        { "rewind", "build experience entries from expert kernels", cmd_rewind },
        { "experience", "list, export or import the experience bank", cmd_experience },
        { "memo", "export or merge the measured candidates as JSON lines", cmd_memo },
        { "corpus", "list the operator corpus", cmd_corpus },
        { "status", "show what the daemon is doing", cmd_status },
        { "queue", "show queued episodes", cmd_queue },
        { "episodes", "list episodes", cmd_episodes },
        { "show", "show one episode and its report", cmd_show },
        { "candidates", "list the measured candidates of an operator", cmd_candidates },
        { "enqueue", "queue an operator for optimization", cmd_enqueue },
        { "cancel", "cancel a queued or running episode", cmd_cancel },
        { "pause", "stop starting new episodes", cmd_pause },
        { "resume", "start episodes again", cmd_resume },
        { "reload", "make the daemon re-read its configuration", cmd_reload },
        { "recreate", "rebuild a sibling branch from scratch", cmd_recreate },
        { "gc", "evict old entries from the store and caches", cmd_gc },
        { "doctor", "check whether this host can run episodes", cmd_doctor },
};

static void usage(FILE *f)
{
        fprintf(f, "Usage: ascendopt COMMAND [ARGS...]\n"
                   "\n"
                   "Optimizes AscendC operators (tiling and kernel) on a simulated or real\n"
                   "Ascend NPU.\n"
                   "\n"
                   "Commands:\n");
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
                fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
        fprintf(f, "\nRun 'ascendopt COMMAND --help' for a command's options; the benchmarks\n"
                   "are 'make bench' in the source tree.\n");
}

/* 'ascendopt help COMMAND' is 'ascendopt COMMAND --help'. */
static int cmd_help(int argc, char **argv)
{
        char *help_argv[] = { argc > 1 ? argv[1] : NULL, "--help", NULL };

        for (size_t i = 1; argc > 1 && i < ARRAY_SIZE(commands); i++)
                if (strcmp(commands[i].name, argv[1]) == 0)
                        return commands[i].run(2, help_argv);
        if (argc > 1) {
                fprintf(stderr, "ascendopt help: unknown command '%s'\n", argv[1]);
                usage(stderr);
                return EX_USAGE;
        }
        usage(stdout);
        return EX_OK;
}

static int cmd_version(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        printf("ascendopt %s\n", ASCENDOPT_VERSION);
        return EX_OK;
}

int cli_usage_error(const char *command, const char *message)
{
        fprintf(stderr, "ascendopt %s: %s; run 'ascendopt %s --help'\n", command, message, command);
        return EX_USAGE;
}

int cli_out_of_memory(const char *command)
{
        fprintf(stderr, "ascendopt %s: out of memory\n", command);
        return EX_OSERR;
}

int cli_parse_seconds(const char *s, double *ret)
{
        char *end;
        double v;

        if (!s || !*s)
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        /* !(v > 0) also refuses nan; a day is already far past any compile or run */
        if (*end || errno || !(v > 0) || v > CLI_MAX_TIMEOUT_S)
                return -EINVAL;
        *ret = v;
        return 0;
}

int cli_parse_u64(const char *s, uint64_t *ret)
{
        char *end;
        unsigned long long v;

        if (!s || !*s || *s == '-')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 0);
        if (errno || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int compare_paths(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t cli_find_operators(const char *root, bool (*want)(const char *opdir), char **ops, size_t max)
{
        size_t n = 0;
        DIR *levels = opendir(root);
        struct dirent *l;

        while (levels && (l = readdir(levels))) {
                char level_dir[PATH_MAX];
                DIR *d;
                struct dirent *e;
                if (l->d_name[0] == '.' ||
                    format_path(level_dir, sizeof(level_dir), "%s/%s", root, l->d_name) < 0 ||
                    !(d = opendir(level_dir)))
                        continue;
                while ((e = readdir(d)) && n < max) {
                        char opdir[PATH_MAX];
                        if (e->d_name[0] == '.' ||
                            format_path(opdir, sizeof(opdir), "%s/%s", level_dir, e->d_name) < 0 ||
                            !want(opdir))
                                continue;
                        ops[n] = strdup(opdir);
                        n += ops[n] != NULL;
                }
                closedir(d);
        }
        if (levels)
                closedir(levels);
        qsort(ops, n, sizeof(*ops), compare_paths);
        return n;
}

void cli_print_json(const json_t *value)
{
        size_t flags = isatty(STDOUT_FILENO) ? JSON_INDENT(2) : JSON_COMPACT;

        json_dumpf(value, stdout, flags | JSON_SORT_KEYS);
        fputc('\n', stdout);
}

int cli_main(int argc, char **argv)
{
        const char *name;

        if (argc < 2) {
                usage(stderr);
                return EX_USAGE;
        }
        name = argv[1];
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
                name = "help";
        else if (strcmp(name, "--version") == 0)
                name = "version";
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
                if (strcmp(commands[i].name, name) != 0)
                        continue;
                return commands[i].run(argc - 1, argv + 1);
        }
        fprintf(stderr, "ascendopt: unknown command '%s'; run 'ascendopt --help'\n", name);
        return EX_USAGE;
}

int cli_open_environment(const char *command, const struct npu_environment_options *options,
                         struct npu_environment *env)
{
        char err[1024];
        int r = npu_environment_open(options, env, err, sizeof(err));

        if (r == 0)
                return EX_OK;
        fprintf(stderr, "ascendopt %s: %s\n", command, err);
        switch (env->failed) {
        case NPU_ENVIRONMENT_STORE:
                return r == -EBUSY ? EX_TEMPFAIL : EX_CANTCREAT;
        case NPU_ENVIRONMENT_OK:
        case NPU_ENVIRONMENT_RUNNER:
        case NPU_ENVIRONMENT_SANDBOX:
        case NPU_ENVIRONMENT_SIMULATOR:
        case NPU_ENVIRONMENT_EVALUATOR:
                break;
        }
        return EX_UNAVAILABLE;
}
