/* SPDX-License-Identifier: MIT */
/*
 * ascendopt optimize: one episode in the foreground, without a daemon, on
 * the store in the state directory.  Progress is a live line on a terminal
 * and JSON lines otherwise; the summary says what was gained and spent.
 */
#include "cli-internal.h"

#include "config/config.h"

#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "queue/queue.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

struct optimize_run {
        bool json;
        bool tty;
        json_t *record;
};

static void optimize_usage(FILE *f)
{
        fprintf(f,
                "Usage: ascendopt optimize OPDIR [options]\n"
                "\n"
                "Runs one optimization episode on the operator in OPDIR in the foreground.\n"
                "\n"
                "  --budget N            measured evaluations (default 40)\n"
                "  --strategy NAME       full (default): rounds of Stage I (tiling) then\n"
                "                        Stage II (kernel motifs guided by the experience\n"
                "                        bank); stage1, stage2 alone; bon (random genomes);\n"
                "                        evolve (genes or a random motif, no bank);\n"
                "                        stage2-random (motifs in random order, no bank)\n"
                "  --rounds R            alternation rounds (default: as the budget holds)\n"
                "  --stage1-steps U      Stage I evaluations per round (default 10)\n"
                "  --stage2-steps S      Stage II evaluations per round (default 10)\n"
                "  --turn-patience P     a stage's turn also ends after P evaluations in a\n"
                "                        row that found no new best, Stage I's first\n"
                "                        population drawn whole (default 0: never)\n"
                "  --first-stage N       the stage whose turn comes first: 1, the tiling\n"
                "                        (default), or 2, the kernel rewrites\n"
                "  --top-k K             experience entries retrieved per diagnosis (default 5)\n"
                "  --frozen-bank         leave the bank's statistics and entries as they are\n"
                "  --slow-factor K       stop a candidate past K times the best (default 3)\n"
                "  --noise-margin PCT    re-measure new bests closer than PCT %% (default 2)\n"
                "  --jitter PCT          seeded noise on the sim's latencies, to see the noise\n"
                "                        policy at work\n"
                "  --seed N              seed of the search and the inputs (default 1)\n"
                "  --platform SOC        Ascend910B2 (default) or Ascend910B4; with --backend\n"
                "                        ascend, the SoC of the NPU (required)\n"
                "  --backend NAME        sim (default) or ascend (a real NPU through CANN)\n"
                "  --device N            ascend: the NPU's logic id (default 0); leased like\n"
                "                        the daemon's devices, so the two never share it\n"
                "  --toolkit DIR         ascend: the CANN toolkit (default $ASCEND_HOME_PATH,\n"
                "                        then /usr/local/Ascend/ascend-toolkit/latest)\n"
                "  --third-lib-path DIR  ascend: what cann-ops' build.sh --third_lib_path takes\n"
                "                        (DIR/json holds nlohmann/json), so builds never download\n"
                "  --out DIR             write the best operator files into DIR, laid out as\n"
                "                        OPDIR is, to copy over it (copies of shared kernel\n"
                "                        headers included; the repository's other files not)\n"
                "  --state-dir DIR       store and scratch (default $ASCENDOPT_STATE_DIR or\n"
                "                        ~/.local/state/ascendopt)\n"
                "  --timeout SECONDS     per compile and per run (default 120)\n"
                "  --llm CONFIG          add the LLM of CONFIG's \"llm\" section (an\n"
                "                        ascendoptd.json) as Stage I mutation and Stage II\n"
                "                        refiner; this sends the operator's sources there\n"
                "  --json                JSON lines while running, one JSON summary at the end\n"
                "\n"
                "As a fleet job (docs/fleet.md), with a new --state-dir:\n"
                "  --bank FILE           start from this bank (as 'experience export' writes\n"
                "                        it) instead of the seed bank\n"
                "  --memo FILE           merge these measured results (as 'memo export'\n"
                "                        writes them) first: none is measured again\n"
                "  --exchange DIR        leave DIR/memo.jsonl (the results measured here),\n"
                "                        DIR/experience.jsonl (what was added to the bank) and,\n"
                "                        last, DIR/result.json (the episode record)\n");
}

const char *cli_state_dir(const char *flag, char *buf, size_t size)
{
        if (flag)
                snprintf(buf, size, "%s", flag);
        else if (config_default_state_dir(buf, size) < 0)
                snprintf(buf, size, "/var/lib/ascendopt"); /* $HOME is too long for buf */
        return buf;
}

int cli_open_store(const char *command, const char *flag, struct store **ret)
{
        char state[PATH_MAX], dir[PATH_MAX], err[1024];
        int r;

        cli_state_dir(flag, state, sizeof(state));
        state_path(dir, sizeof(dir), state, STATE_STORE);
        r = store_open(dir, ret, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "ascendopt %s: %s\n", command, err);
                return r == -EBUSY ? EX_TEMPFAIL : EX_CANTCREAT;
        }
        return 0;
}

int cli_exit_for_input(int r)
{
        return r == -EINVAL || r == -E2BIG || r == -EEXIST ? EX_DATAERR
               : r == -ENOENT || r == -ELOOP               ? EX_NOINPUT
                                                           : EX_IOERR;
}

static void on_progress(const struct episode_progress *p, void *userdata)
{
        struct optimize_run *run = userdata;

        if (!run->tty || run->json) {
                json_t *line = json_pack(
                    "{s:s, s:i, s:i, s:i, s:i, s:s, s:s?, s:f, s:f, s:b}", "event", "evaluation",
                    "used", p->used, "budget", p->budget, "memo_hits", p->memo_hits, "stage",
                    p->stage, "what", p->what, "status", p->status, "latency_us", p->latency_us,
                    "best_us", p->best_us, "new_best", p->new_best);
                char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
                fprintf(stderr, "%s\n", text ? text : "ascendopt optimize: out of memory");
                free(text);
                json_decref(line);
                return;
        }
        fprintf(stderr, "\r\033[K[%2d/%d] %s %-22s %-14s %10.2f us   best %.2f us%s", p->used,
                p->budget,
                p->stage == 2   ? "II"
                : p->stage == 1 ? "I "
                                : "  ",
                p->what, p->status ? p->status : "?", p->latency_us, p->best_us,
                p->new_best ? "  *" : "");
        if (p->new_best || strcmp(p->what, "baseline") == 0)
                fputc('\n', stderr);
}

static void on_done(json_t *record, void *userdata)
{
        ((struct optimize_run *)userdata)->record = record;
}

/* Writes the best candidate's files, read back from the store's blobs. */
static int write_best(struct store *store, const struct episode_summary *s, const char *out,
                      char *err, size_t err_size)
{
        const json_t *files = s->best.present ? s->best.files : s->baseline.files;
        const char *path;
        json_t *sha;

        if (!json_object_size(files)) {
                snprintf(err, err_size, "the episode recorded no files");
                return -ENOENT;
        }
        json_object_foreach((json_t *)files, path, sha)
        {
                char full[PATH_MAX], parent[PATH_MAX];
                void *data = NULL;
                size_t len = 0;
                bool written;
                FILE *f;
                int r = store_blob_get(store, json_string_value(sha), &data, &len);
                if (r < 0 || format_path(full, sizeof(full), "%s/%s", out, path) < 0) {
                        snprintf(err, err_size, "%s: its text is missing from the store", path);
                        free(data);
                        return r < 0 ? r : -ENAMETOOLONG;
                }
                snprintf(parent, sizeof(parent), "%s", full);
                *strrchr(parent, '/') = '\0';
                mkdir_p(parent);
                f = fopen(full, "we");
                written = f && fwrite(data, 1, len, f) == len;
                /* a full disk may show only at fclose */
                if (f && fclose(f) != 0)
                        written = false;
                if (!written) {
                        snprintf(err, err_size, "%.1024s: cannot write: %s", full, strerror(errno));
                        free(data);
                        return -EIO;
                }
                free(data);
        }
        return 0;
}

/* The dtype gate: what every new best had to pass besides the manifest's dtypes. */
static void print_dtypes(const struct episode_dtypes *d)
{
        const json_t *item;
        size_t i;

        if (!d->present)
                return;
        printf("  dtypes checked: %s (the manifest's)", d->manifest ? d->manifest : "?");
        json_array_foreach(d->checked, i, item)
        {
                printf(", %s", json_string_value(item));
        }
        printf("\n");
        json_array_foreach(d->baseline_fails, i, item)
        {
                printf("  dtypes the original fails too: %s (%s)\n",
                       json_string_value(json_object_get(item, "dtypes")),
                       json_string_value(json_object_get(item, "status")));
        }
        json_array_foreach(d->not_checkable, i, item)
        {
                printf("  dtypes not checkable: %s: %s\n",
                       json_string_value(json_object_get(item, "dtypes")),
                       json_string_value(json_object_get(item, "why")));
        }
}

static void print_summary(const struct episode_summary *s)
{
        double base_us = s->baseline.latency_us;
        double best_us = s->best.present ? s->best.latency_us : base_us;
        double roof = s->baseline.roofline_us;
        const char *kind;
        json_t *count;

        printf("%s (%s, seed %lld): %s\n", s->operator_name, s->strategy, (long long)s->seed,
               s->state);
        if (s->error_kind || s->error_message)
                printf("  error: %s\n", s->error_message);
        if (base_us > 0) {
                printf("  baseline   %12.2f us\n", base_us);
                printf("  best       %12.2f us   speedup %.3fx\n", best_us,
                       best_us > 0 ? base_us / best_us : 0);
                if (roof > 0)
                        printf("  roofline   %12.2f us   fraction %.2f -> %.2f\n", roof,
                               roof / base_us, roof / best_us);
        }
        cli_print_llm_usage(&s->llm);
        printf("  evaluations %lld of %lld, memo hits %lld, confirmations %lld\n",
               (long long)s->evaluations, (long long)s->budget, (long long)s->memo_hits,
               (long long)s->confirmations);
        {
                /* docs/design.md, "The launch memo" */
                json_int_t launch =
                    json_integer_value(json_object_get(s->record, "launch_memo_hits"));
                if (launch > 0)
                        printf("  of the memo hits, %lld launched the kernel as a measured "
                               "candidate had\n",
                               (long long)launch);
        }
        if (s->has_slow_or_remeasured)
                printf("  stopped early as slow %lld, close new bests re-measured %lld\n",
                       (long long)s->slow, (long long)s->remeasured);
        json_object_foreach((json_t *)s->failures, kind, count)
            printf("  failed: %-22s %lld\n", kind, (long long)json_integer_value(count));
        print_dtypes(&s->dtypes);
        for (size_t i = 0; i < s->n_stages; i++)
                printf("  %-8s evaluations %lld, memo hits %lld, improvements %lld\n",
                       s->stages[i].name, (long long)s->stages[i].evaluations,
                       (long long)s->stages[i].memo_hits, (long long)s->stages[i].wins);
        for (size_t i = 0; i < s->n_motifs; i++)
                printf("  motif %-24s tried %lld, failed %lld, won %lld, apply errors %lld\n",
                       s->motifs[i].name, (long long)s->motifs[i].tried,
                       (long long)s->motifs[i].failed, (long long)s->motifs[i].won,
                       (long long)s->motifs[i].apply_errors);
        if (json_array_size(s->learned))
                printf("  learned %zu experience entr%s\n", json_array_size(s->learned),
                       json_array_size(s->learned) == 1 ? "y" : "ies");
        if (s->best.present && s->best.genome) {
                const char *name;
                json_t *value;
                printf("  best genome:\n");
                json_object_foreach((json_t *)s->best.genome, name, value)
                    printf("    %-48s %lld\n", name, (long long)json_integer_value(value));
        }
}

static int writable_dir(const char *flag, const char *dir)
{
        struct stat st;
        int r = mkdir_p(dir);

        if (r == 0)
                r = stat(dir, &st) < 0 ? -errno : !S_ISDIR(st.st_mode) ? -ENOTDIR : 0;
        if (r == 0 && access(dir, W_OK) < 0)
                r = -errno;
        if (r < 0)
                fprintf(stderr, "ascendopt optimize: %s %s: %s\n", flag, dir, strerror(-r));
        return r;
}

int cmd_optimize(int argc, char **argv)
{
        static const struct option options[] = {
                { "budget", required_argument, NULL, 'b' },
                { "strategy", required_argument, NULL, 'S' },
                { "seed", required_argument, NULL, 's' },
                { "platform", required_argument, NULL, 'p' },
                { "out", required_argument, NULL, 'o' },
                { "state-dir", required_argument, NULL, 'd' },
                { "timeout", required_argument, NULL, 't' },
                { "json", no_argument, NULL, 'j' },
                { "rounds", required_argument, NULL, 'R' },
                { "stage1-steps", required_argument, NULL, 'U' },
                { "stage2-steps", required_argument, NULL, 'V' },
                { "turn-patience", required_argument, NULL, 'P' },
                { "first-stage", required_argument, NULL, 'G' },
                { "top-k", required_argument, NULL, 'k' },
                { "frozen-bank", no_argument, NULL, 'F' },
                { "jitter", required_argument, NULL, 'J' },
                { "slow-factor", required_argument, NULL, 'K' },
                { "noise-margin", required_argument, NULL, 'M' },
                { "llm", required_argument, NULL, 'L' },
                { "backend", required_argument, NULL, 'B' },
                { "device", required_argument, NULL, 'D' },
                { "toolkit", required_argument, NULL, 'T' },
                { "third-lib-path", required_argument, NULL, 'E' },
                { "bank", required_argument, NULL, 'A' },
                { "memo", required_argument, NULL, 'O' },
                { "exchange", required_argument, NULL, 'X' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        struct episode_options episode_options = { .seed = 1,
                                                   .budget = 40,
                                                   .strategy = EPISODE_FULL };
        struct npu_environment env = { 0 };
        struct optimize_run run = { .tty = isatty(STDERR_FILENO) };
        struct episode_summary summary = { 0 };
        struct npu_evaluator *evaluator = NULL;
        struct event_base *base = NULL;
        struct store *store = NULL;
        const char *out = NULL, *state_flag = NULL, *platform = NULL, *toolkit = NULL;
        const char *third_lib_path = NULL;
        const char *llm_config = NULL, *bank = NULL, *memo = NULL, *exchange_dir = NULL;
        struct exchange exchange = { 0 };
        struct cli_llm llm = { 0 };
        struct device_pool *devices = NULL;
        enum npu_backend backend = NPU_BACKEND_SIM;
        int device = 0;
        size_t slot;
        char state_dir[PATH_MAX], opdir[PATH_MAX], err[2048], id[256];
        char hex[SHA256_HEX_SIZE];
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 sha;
        uint64_t number;
        double timeout = 0, jitter = 0;
        int opt, ret = EX_OK, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'b':
                        if (cli_parse_u64(optarg, &number) < 0 || number == 0 || number > 100000)
                                return cli_usage_error("optimize", "--budget wants 1..100000");
                        episode_options.budget = (int)number;
                        break;
                case 'S':
                        if (episode_strategy_from_name(optarg, &episode_options.strategy) < 0)
                                return cli_usage_error("optimize",
                                                       "--strategy is full, stage1, stage2, bon, "
                                                       "evolve or stage2-random");
                        break;
                case 'R':
                case 'U':
                case 'V':
                case 'P':
                case 'k':
                        if (cli_parse_u64(optarg, &number) < 0 || number > 10000 ||
                            (opt != 'R' && opt != 'P' && number == 0))
                                return cli_usage_error("optimize",
                                                       "--rounds, --stage1-steps, --stage2-steps, "
                                                       "--turn-patience and --top-k want a small "
                                                       "number");
                        if (opt == 'R')
                                episode_options.rounds = (int)number;
                        else if (opt == 'U')
                                episode_options.stage1_steps = (int)number;
                        else if (opt == 'V')
                                episode_options.stage2_steps = (int)number;
                        else if (opt == 'P')
                                episode_options.turn_patience = (int)number;
                        else
                                episode_options.top_k = (int)number;
                        break;
                case 'G':
                        if (cli_parse_u64(optarg, &number) < 0 || number < 1 || number > 2)
                                return cli_usage_error("optimize", "--first-stage wants 1 or 2");
                        episode_options.first_stage = (int)number;
                        break;
                case 'F':
                        episode_options.frozen_bank = true;
                        break;
                case 'J':
                case 'K':
                case 'M': {
                        char *end;
                        double v = strtod(optarg, &end);
                        if (*end || end == optarg || !(v > 0) || v > 100)
                                return cli_usage_error(
                                    "optimize",
                                    opt == 'J'   ? "--jitter wants a percentage in (0, 50]"
                                    : opt == 'K' ? "--slow-factor wants a factor in (1, 100]"
                                                 : "--noise-margin wants a percentage in (0, 100]");
                        if (opt == 'J' && v > 50)
                                return cli_usage_error("optimize",
                                                       "--jitter wants a percentage in (0, 50]");
                        if (opt == 'K' && v <= 1)
                                return cli_usage_error("optimize",
                                                       "--slow-factor wants a factor in (1, 100]");
                        if (opt == 'J')
                                jitter = v;
                        else if (opt == 'K')
                                episode_options.slow_factor = v;
                        else
                                episode_options.noise_margin_pct = v;
                        break;
                }
                case 'L':
                        llm_config = optarg;
                        break;
                case 'B':
                        if (npu_backend_from_name(optarg, &backend) < 0)
                                return cli_usage_error("optimize", "--backend is sim or ascend");
                        break;
                case 'D':
                        if (cli_parse_u64(optarg, &number) < 0 || number >= DEVICE_POOL_MAX)
                                return cli_usage_error("optimize", "--device wants 0..63");
                        device = (int)number;
                        break;
                case 'T':
                        toolkit = optarg;
                        break;
                case 'E':
                        third_lib_path = optarg;
                        break;
                case 's':
                        if (cli_parse_u64(optarg, &episode_options.seed) < 0)
                                return cli_usage_error("optimize", "--seed wants a number");
                        break;
                case 'p':
                        platform = optarg;
                        break;
                case 'o':
                        out = optarg;
                        break;
                case 'd':
                        state_flag = optarg;
                        break;
                case 't':
                        if (cli_parse_seconds(optarg, &timeout) < 0)
                                return cli_usage_error("optimize", "--timeout wants seconds, > 0 "
                                                                   "and at most 86400");
                        break;
                case 'j':
                        run.json = true;
                        break;
                case 'A':
                        bank = optarg;
                        break;
                case 'O':
                        memo = optarg;
                        break;
                case 'X':
                        exchange_dir = optarg;
                        break;
                case 'h':
                        optimize_usage(stdout);
                        return EX_OK;
                default:
                        optimize_usage(stderr);
                        return EX_USAGE;
                }
        }
        if (optind + 1 != argc) {
                optimize_usage(stderr);
                return EX_USAGE;
        }
        if (backend == NPU_BACKEND_ASCEND && !platform)
                return cli_usage_error("optimize", "--backend ascend needs --platform SOC, the "
                                                   "SoC of the NPU (e.g. Ascend910B4)");
        if (backend == NPU_BACKEND_SIM && toolkit)
                return cli_usage_error("optimize", "--toolkit needs --backend ascend");
        if (backend == NPU_BACKEND_SIM && third_lib_path)
                return cli_usage_error("optimize", "--third-lib-path needs --backend ascend");
        if (backend == NPU_BACKEND_ASCEND &&
            !(getenv("ASCENDOPT_SANDBOX") && strcmp(getenv("ASCENDOPT_SANDBOX"), "off") == 0)) {
                fprintf(stderr,
                        "ascendopt optimize: --backend ascend: %s; run it with "
                        "ASCENDOPT_SANDBOX=off to accept that\n",
                        ASCEND_UNSANDBOXED_HELP);
                return EX_CONFIG;
        }
        if (!realpath(argv[optind], opdir)) {
                fprintf(stderr, "ascendopt optimize: %s: %s\n", argv[optind], strerror(errno));
                return EX_NOINPUT;
        }
        /* an --out or --exchange that cannot take the files fails now, not after the episode */
        if ((out && writable_dir("--out", out) < 0) ||
            (exchange_dir && writable_dir("--exchange", exchange_dir) < 0))
                return EX_CANTCREAT;
        if (backend == NPU_BACKEND_ASCEND) {
                /* the same lease as the daemon's: never measure on a device it uses */
                r = device_pool_new("ascend", &device, 1, NULL, &devices);
                if (r == 0)
                        r = device_pool_acquire(devices, &slot);
                if (r < 0) {
                        fprintf(stderr, "ascendopt optimize: device %d: %s\n", device,
                                r == -EBUSY ? "leased by another ascendopt (a running "
                                              "ascendoptd?); pick another --device"
                                            : strerror(-r));
                        ret = r == -EBUSY ? EX_TEMPFAIL : EX_OSERR;
                        goto out;
                }
                episode_options.device = device;
        }
        base = event_base_new();
        if (!base) {
                ret = EX_OSERR;
                goto out;
        }
        ret = cli_open_environment(
            "optimize",
            &(struct npu_environment_options){
                .base = base,
                .state_dir = cli_state_dir(state_flag, state_dir, sizeof(state_dir)),
                .want_evaluator = true,
                .use_cache = true,
                .backend = backend,
                .platform = platform,
                .toolkit = toolkit,
                .third_lib_path = third_lib_path,
                .timeout_s = timeout,
                .jitter_pct = jitter,
            },
            &env);
        if (ret != EX_OK)
                goto out;
        evaluator = env.evaluator;
        store = env.store;
        if (!bank) {
                /* a new store gets the seed bank, as the daemon's does */
                struct experience_seeding seeding;
                if (experience_seed_if_empty(store, &seeding, err, sizeof(err)) < 0)
                        fprintf(stderr, "ascendopt optimize: warning: %s\n", err);
                else if (seeding.added)
                        fprintf(stderr,
                                "ascendopt optimize: seeded the new store's experience bank with "
                                "%zu entries from %s\n",
                                seeding.added, seeding.path);
        }
        if (bank || memo || exchange_dir) {
                r = exchange_take(store, bank, memo, &exchange, err, sizeof(err));
                if (r < 0) {
                        fprintf(stderr, "ascendopt optimize: %s\n", err);
                        ret = cli_exit_for_input(r);
                        goto out;
                }
        }

        if (llm_config) {
                if (cli_llm_open("optimize", llm_config, base, &llm) < 0) {
                        ret = EX_CONFIG;
                        goto out;
                }
                episode_options.llm = &llm.options;
        }
        /* the same operator, strategy and seed resume the same episode */
        sha256_init(&sha);
        sha256_update(&sha, opdir, strlen(opdir));
        sha256_update(&sha, npu_evaluator_context(evaluator), SHA256_HEX_SIZE - 1);
        sha256_final(&sha, digest);
        sha256_hex(digest, hex);
        snprintf(id, sizeof(id), "optimize-%.12s-%s-s%llu-b%d%s", hex,
                 episode_strategy_name(episode_options.strategy),
                 (unsigned long long)episode_options.seed, episode_options.budget,
                 llm_config ? "-llm" : "");
        episode_options.id = id;
        episode_options.log_context = id;
        r = episode_start(evaluator, store, opdir, &episode_options, on_progress, on_done, &run,
                          NULL, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "ascendopt optimize: %s\n", err);
                ret = r == -EINVAL || r == -ENOENT ? EX_DATAERR : EX_SOFTWARE;
                goto out;
        }
        while (!run.record)
                event_base_loop(base, EVLOOP_ONCE);
        if (run.tty && !run.json)
                fputc('\n', stderr);

        /* the search state is the episode's to resume with, not the user's to read */
        json_object_del(run.record, "search");
        if (episode_summary_read(run.record, &summary) < 0) {
                fprintf(stderr, "ascendopt optimize: out of memory reading the episode record\n");
                ret = EX_OSERR;
                goto out;
        }
        if (out && write_best(store, &summary, out, err, sizeof(err)) < 0) {
                fprintf(stderr, "ascendopt optimize: --out %s: %s\n", out, err);
                ret = EX_CANTCREAT;
        }
        if (exchange_dir &&
            exchange_leave(store, &exchange, exchange_dir, run.record, err, sizeof(err)) < 0) {
                fprintf(stderr, "ascendopt optimize: --exchange %s\n", err);
                ret = EX_CANTCREAT;
        }
        if (run.json)
                cli_print_json(run.record);
        else
                print_summary(&summary);
        if (ret == EX_OK && strcmp(summary.state ?: "", "done") != 0)
                ret = 1;
out:
        exchange_release(&exchange);
        episode_summary_release(&summary);
        json_decref(run.record);
        npu_environment_close(&env);
        cli_llm_close(&llm);
        if (base)
                event_base_free(base);
        device_pool_free(devices);
        return ret;
}
