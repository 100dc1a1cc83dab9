/* SPDX-License-Identifier: MIT */
/*
 * ascendopt rewind: builds the experience bank from expert kernels.  Each
 * operator's expert is walked backwards one inverse motif at a time on the
 * simulator; every correct, significant slowdown becomes an entry in the
 * store's experience family.  Prints a line per candidate and a summary
 * of what the bank gained.
 */
#include "cli-internal.h"

#include "config/config.h"

#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_OPS 256

struct rewind_run {
        bool json;
        bool done;
        json_t *summary;
};

static void rewind_usage(FILE *f)
{
        fprintf(f,
                "Usage: ascendopt rewind [OPDIR...] [options]\n"
                "\n"
                "Walks each operator's expert/ backwards one inverse motif at a time on the\n"
                "simulated NPU and keeps every correct, significant slowdown as an entry of\n"
                "the experience bank.  Without OPDIR, every operator with an expert/ two\n"
                "levels below --root.\n"
                "\n"
                "  --threshold PCT       keep a step slower by more than PCT %% (default %g)\n"
                "  --max-steps N         kept steps per operator (default %d)\n"
                "  --max-tries N         candidates evaluated per operator (default %d)\n"
                "  --seed N              seed of the inputs (default 1)\n"
                "  --motifs A,B,...      try only these motifs, in this order (default: all;\n"
                "                        the names of the MOTIF column)\n"
                "  --platform SOC        Ascend910B2 (default) or Ascend910B4\n"
                "  --root DIR            the corpus (default examples/ops)\n"
                "  --state-dir DIR       store and scratch (default $ASCENDOPT_STATE_DIR or\n"
                "                        ~/.local/state/ascendopt)\n"
                "  --timeout SECONDS     per compile and per run (default 300)\n"
                "  --llm CONFIG          also ask the LLM of CONFIG's \"llm\" section (an\n"
                "                        ascendoptd.json) to distil each entry and to propose\n"
                "                        de-optimizations beyond the motifs; this sends the\n"
                "                        experts' sources to that endpoint\n"
                "  --json                one JSON summary on stdout, no progress lines\n",
                REWIND_DEFAULT_THRESHOLD_PCT, REWIND_DEFAULT_MAX_STEPS, REWIND_DEFAULT_MAX_TRIES);
}

static void on_progress(const struct rewind_progress *p, void *userdata)
{
        struct rewind_run *run = userdata;

        if (run->json)
                return;
        printf("  %-18s %2d  %-22s %-48.48s %10.2f -> ", p->operator_name, p->step, p->motif,
               p->site->what, p->before_us);
        if (p->after_us > 0)
                printf("%10.2f us %+6.1f%%", p->after_us,
                       100.0 * (p->after_us / p->before_us - 1.0));
        else
                printf("%10s    %7s", "-", "");
        printf("  %s%s%s\n", p->kept ? "KEPT" : p->outcome,
               p->kept && !p->new_entry ? " (already in the bank)" : "",
               p->memo_hit ? " [memo]" : "");
        fflush(stdout);
}

static void on_done(json_t *summary, void *userdata)
{
        struct rewind_run *run = userdata;

        run->summary = summary;
        run->done = true;
}

/* Adds count to totals[key][kind]. */
static void add_failures(json_t *totals, const json_t *failures)
{
        const char *motif, *kind;
        json_t *kinds, *count;

        json_object_foreach((json_t *)failures, motif, kinds)
        {
                json_t *into = json_object_get(totals, motif);
                if (!into) {
                        into = json_object();
                        json_object_set_new(totals, motif, into);
                }
                json_object_foreach(kinds, kind, count) json_object_set_new(
                    into, kind,
                    json_integer(json_integer_value(json_object_get(into, kind)) +
                                 json_integer_value(count)));
        }
}

/* The totals over every walk: entries, (motif, operator) pairs, motifs, failures. */
static json_t *totals_of(const json_t *walks, const json_t *skipped)
{
        json_t *pairs = json_object(), *motifs = json_object(), *failures = json_object();
        json_t *walk, *step, *value;
        json_int_t kept = 0, new_entries = 0, evaluations = 0, memo_hits = 0, failed = 0;
        size_t i, j;

        json_array_foreach((json_t *)walks, i, walk)
        {
                const char *op = json_string_value(json_object_get(walk, "operator"));
                kept += json_integer_value(json_object_get(walk, "kept"));
                new_entries += json_integer_value(json_object_get(walk, "new_entries"));
                evaluations += json_integer_value(json_object_get(walk, "evaluations"));
                memo_hits += json_integer_value(json_object_get(walk, "memo_hits"));
                failed +=
                    strcmp(json_string_value(json_object_get(walk, "state")) ?: "", "done") != 0;
                add_failures(failures, json_object_get(walk, "failures"));
                json_array_foreach(json_object_get(walk, "steps"), j, step)
                {
                        const char *m = json_string_value(json_object_get(step, "motif"));
                        char key[512];
                        snprintf(key, sizeof(key), "%s|%s", m ? m : "?", op ? op : "?");
                        json_object_set_new(pairs, key, json_true());
                        json_object_set_new(
                            motifs, m ? m : "?",
                            json_integer(json_integer_value(json_object_get(motifs, m ? m : "?")) +
                                         1));
                }
        }
        value = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:O}", "entries_kept",
                          kept, "new_entries", new_entries, "distinct_pairs",
                          (json_int_t)json_object_size(pairs), "motifs_covered",
                          (json_int_t)json_object_size(motifs), "evaluations", evaluations,
                          "memo_hits", memo_hits, "failed_operators", failed, "motifs", motifs,
                          "failures", failures, "skipped", skipped);
        json_decref(pairs);
        return value;
}

static void print_totals(const json_t *totals)
{
        const char *motif, *kind;
        json_t *kinds, *count;
        size_t i;

        printf("\nrewind: %lld entr%s kept (%lld new), %lld distinct (motif, operator) pairs, "
               "%lld motif%s covered; %lld evaluations, %lld memo hits\n",
               (long long)json_integer_value(json_object_get(totals, "entries_kept")),
               json_integer_value(json_object_get(totals, "entries_kept")) == 1 ? "y" : "ies",
               (long long)json_integer_value(json_object_get(totals, "new_entries")),
               (long long)json_integer_value(json_object_get(totals, "distinct_pairs")),
               (long long)json_integer_value(json_object_get(totals, "motifs_covered")),
               json_integer_value(json_object_get(totals, "motifs_covered")) == 1 ? "" : "s",
               (long long)json_integer_value(json_object_get(totals, "evaluations")),
               (long long)json_integer_value(json_object_get(totals, "memo_hits")));
        printf("  motifs covered:");
        json_object_foreach((json_t *)json_object_get(totals, "motifs"), motif, count)
            printf(" %s (%lld)", motif, (long long)json_integer_value(count));
        printf("\n  not covered:");
        for (i = 0; i < motif_count(); i++)
                if (!json_object_get(json_object_get(totals, "motifs"), motif_at(i)->name))
                        printf(" %s", motif_at(i)->name);
        printf("\n");
        if (json_object_size(json_object_get(totals, "failures"))) {
                printf("  failures by motif:\n");
                json_object_foreach((json_t *)json_object_get(totals, "failures"), motif, kinds)
                {
                        printf("    %-24s", motif);
                        json_object_foreach(kinds, kind, count)
                            printf(" %s=%lld", kind, (long long)json_integer_value(count));
                        printf("\n");
                }
        }
}

/* --motifs a,b,c: the named motifs, in that order; an unknown name is a usage error. */
static int parse_motifs(const char *list, const struct motif **chosen,
                        struct rewind_options *options)
{
        char copy[1024], *save = NULL, *name, message[256];

        if (snprintf(copy, sizeof(copy), "%s", list) >= (int)sizeof(copy))
                return cli_usage_error("rewind", "--motifs: the list is too long");
        options->n_motifs = 0;
        for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
                const struct motif *m = motif_find(name);
                if (!m) {
                        snprintf(message, sizeof(message), "--motifs: no motif named '%s'", name);
                        return cli_usage_error("rewind", message);
                }
                if (options->n_motifs == 64)
                        return cli_usage_error("rewind", "--motifs: at most 64");
                chosen[options->n_motifs++] = m;
        }
        if (!options->n_motifs)
                return cli_usage_error("rewind", "--motifs: name at least one motif");
        options->motifs = chosen;
        return EX_OK;
}

int cmd_rewind(int argc, char **argv)
{
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, 'd' },
                { "threshold", required_argument, NULL, 't' },
                { "max-steps", required_argument, NULL, 's' },
                { "max-tries", required_argument, NULL, 'n' },
                { "seed", required_argument, NULL, 'S' },
                { "platform", required_argument, NULL, 'p' },
                { "root", required_argument, NULL, 'r' },
                { "timeout", required_argument, NULL, 'T' },
                { "llm", required_argument, NULL, 'L' },
                { "motifs", required_argument, NULL, 'm' },
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *state_flag = NULL, *root = "examples/ops", *platform = NULL, *llm_config = NULL;
        struct cli_llm llm = { 0 };
        const struct motif *chosen[64];
        char state[PATH_MAX], err[2048];
        struct rewind_options rewind_options = { 0 };
        struct npu_environment env = { 0 };
        struct npu_evaluator *ev = NULL;
        struct event_base *base = NULL;
        struct store *store = NULL;
        struct rewind_run run = { 0 };
        json_t *walks = json_array(), *skipped = json_array(), *totals = NULL, *doc = NULL;
        char *ops[MAX_OPS];
        size_t n_ops = 0;
        double timeout = 300;
        uint64_t number;
        char *end;
        int opt, ret = EX_OK;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'd':
                        state_flag = optarg;
                        break;
                case 't':
                        rewind_options.threshold_pct = strtod(optarg, &end);
                        if (*end || end == optarg || !(rewind_options.threshold_pct > 0) ||
                            rewind_options.threshold_pct > 1000) {
                                ret = cli_usage_error("rewind", "--threshold takes a percentage "
                                                                "above 0, such as 5");
                                goto out;
                        }
                        break;
                case 's':
                case 'n':
                        if (cli_parse_u64(optarg, &number) < 0 || number == 0 || number > 10000) {
                                ret = cli_usage_error("rewind",
                                                      opt == 's' ? "--max-steps takes 1 to 10000"
                                                                 : "--max-tries takes 1 to 10000");
                                goto out;
                        }
                        if (opt == 's')
                                rewind_options.max_steps = (int)number;
                        else
                                rewind_options.max_tries = (int)number;
                        break;
                case 'S':
                        if (cli_parse_u64(optarg, &rewind_options.seed) < 0) {
                                ret = cli_usage_error("rewind", "--seed takes a number");
                                goto out;
                        }
                        break;
                case 'p':
                        platform = optarg;
                        break;
                case 'r':
                        root = optarg;
                        break;
                case 'T':
                        if (cli_parse_seconds(optarg, &timeout) < 0) {
                                ret = cli_usage_error("rewind", "--timeout takes seconds, > 0 and "
                                                                "at most 86400");
                                goto out;
                        }
                        break;
                case 'L':
                        llm_config = optarg;
                        break;
                case 'm':
                        ret = parse_motifs(optarg, chosen, &rewind_options);
                        if (ret != EX_OK)
                                goto out;
                        break;
                case 'j':
                        run.json = true;
                        break;
                case 'h':
                        rewind_usage(stdout);
                        goto out;
                default:
                        ret = cli_usage_error("rewind", "unknown option");
                        goto out;
                }
        }
        if (optind < argc) {
                for (int i = optind; i < argc && n_ops < MAX_OPS; i++) {
                        struct stat st;
                        int error = stat(argv[i], &st) < 0 ? errno
                                    : S_ISDIR(st.st_mode)  ? 0
                                                           : ENOTDIR;
                        if (error) {
                                fprintf(stderr, "ascendopt rewind: %s: %s\n", argv[i],
                                        error == ENOENT ? "no such operator directory"
                                                        : strerror(error));
                                ret = EX_NOINPUT;
                                goto out;
                        }
                        ops[n_ops] = strdup(argv[i]);
                        n_ops += ops[n_ops] != NULL;
                }
        } else {
                n_ops = cli_find_operators(root, rewind_has_expert, ops, MAX_OPS);
                if (!n_ops) {
                        fprintf(stderr,
                                "ascendopt rewind: no operator with an expert/ under %s "
                                "(give OPDIR or --root)\n",
                                root);
                        ret = EX_NOINPUT;
                        goto out;
                }
        }
        base = event_base_new();
        if (!base) {
                ret = EX_OSERR;
                goto out;
        }
        /* rewind --llm builds LLM-written code: sandboxed like every candidate */
        ret = cli_open_environment("rewind",
                                   &(struct npu_environment_options){
                                       .base = base,
                                       .state_dir = cli_state_dir(state_flag, state, sizeof(state)),
                                       .want_evaluator = true,
                                       .use_cache = true,
                                       .platform = platform,
                                       .timeout_s = timeout,
                                   },
                                   &env);
        if (ret != EX_OK)
                goto out;
        ev = env.evaluator;
        store = env.store;
        if (llm_config) {
                if (cli_llm_open("rewind", llm_config, base, &llm) < 0) {
                        ret = EX_CONFIG;
                        goto out;
                }
                rewind_options.llm = &llm.options;
        }
        if (!run.json)
                printf("  %-18s %2s  %-22s %-48s %10s    %10s\n", "OPERATOR", "#", "MOTIF", "SITE",
                       "BEFORE us", "AFTER us");
        for (size_t i = 0; i < n_ops; i++) {
                int r;

                if (!rewind_has_expert(ops[i])) {
                        if (!run.json)
                                printf("  %s: no expert/, skipped\n", ops[i]);
                        json_array_append_new(skipped, json_string(ops[i]));
                        continue;
                }
                run.done = false;
                run.summary = NULL;
                r = rewind_start(ev, store, ops[i], &rewind_options, on_progress, on_done, &run,
                                 NULL, err, sizeof(err));
                if (r < 0) {
                        fprintf(stderr, "ascendopt rewind: %s\n", err);
                        ret = EX_DATAERR;
                        continue;
                }
                while (!run.done)
                        event_base_loop(base, EVLOOP_ONCE);
                if (strcmp(json_string_value(json_object_get(run.summary, "state")) ?: "",
                           "done") != 0) {
                        fprintf(stderr, "ascendopt rewind: %s: %s\n", ops[i],
                                json_string_value(json_object_get(run.summary, "error"))
                                    ?: "the walk failed");
                        ret = EX_DATAERR;
                }
                if (!run.json)
                        printf(
                            "  %s: expert %.2f us, %lld kept, slowest %.2f us (%.2fx)\n",
                            json_string_value(json_object_get(run.summary, "operator")),
                            json_number_value(json_object_get(run.summary, "expert_us")),
                            (long long)json_integer_value(json_object_get(run.summary, "kept")),
                            json_number_value(json_object_get(run.summary, "final_us")),
                            json_number_value(json_object_get(run.summary, "expert_us")) > 0
                                ? json_number_value(json_object_get(run.summary, "final_us")) /
                                      json_number_value(json_object_get(run.summary, "expert_us"))
                                : NAN);
                if (!run.json && json_object_get(run.summary, "llm")) {
                        const json_t *l = json_object_get(run.summary, "llm");
                        printf("  %s: LLM %lld tokens, %lld entries distilled, %lld of %lld "
                               "de-optimizations measured, %lld kept%s%s\n",
                               json_string_value(json_object_get(run.summary, "operator")),
                               json_integer_value(json_object_get(l, "total_tokens")),
                               json_integer_value(json_object_get(l, "distilled")),
                               json_integer_value(json_object_get(l, "inverse_measured")),
                               json_integer_value(json_object_get(l, "inverse_asked")),
                               json_integer_value(json_object_get(l, "inverse_kept")),
                               json_object_get(l, "off") ? "; off: " : "",
                               json_string_value(json_object_get(l, "off")) ?: "");
                }
                json_array_append_new(walks, run.summary);
                run.summary = NULL;
        }
        totals = totals_of(walks, skipped);
        if (totals && run.json)
                doc = json_pack("{s:O, s:O}", "operators", walks, "totals", totals);
        if (!totals || (run.json && !doc))
                ret = cli_out_of_memory("rewind");
        else if (run.json)
                cli_print_json(doc);
        else
                print_totals(totals);
out:
        for (size_t i = 0; i < n_ops; i++)
                free(ops[i]);
        json_decref(walks);
        json_decref(skipped);
        json_decref(totals);
        json_decref(doc);
        npu_environment_close(&env);
        cli_llm_close(&llm);
        if (base)
                event_base_free(base);
        return ret;
}
