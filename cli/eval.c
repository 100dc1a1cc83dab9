/* SPDX-License-Identifier: MIT */
/*
 * ascendopt eval: compile and run one operator on the simulated NPU, and
 * with --compare judge it against another operator directory on the same
 * seeded inputs.  Prints a short report, or exactly one JSON object.
 */
#include "cli-internal.h"

#include "config/config.h"

#include "npu/npu.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_PERMISSIVE 16

struct eval_run {
        const char *opdir;
        struct npu_manifest *manifest;
        json_t *result;
};

struct eval_session {
        struct eval_run runs[2]; /* [0] the operator, [1] the --compare reference */
        size_t n_runs;
        size_t finished;
};

static void eval_usage(FILE *f)
{
        fprintf(f, "Usage: ascendopt eval OPDIR [options]\n"
                   "\n"
                   "Compiles the operator in OPDIR against the simulated NPU and runs its shape\n"
                   "cases from OPDIR/ascendopt.json.\n"
                   "\n"
                   "  --case N|NAME        run only this case (index or name)\n"
                   "  --platform SOC       Ascend910B2 (default) or Ascend910B4\n"
                   "  --seed N             seed of the random inputs (default 1)\n"
                   "  --compare OTHER      also run OTHER on the same inputs and judge OPDIR's\n"
                   "                       outputs against OTHER's within the tolerance\n"
                   "  --timeout SECONDS    per compile and per run (default 120)\n"
                   "  --permissive RULE    downgrade a simulator rule to a warning\n"
                   "  --work-dir DIR       build and run in DIR and keep it\n"
                   "  --quick              leave out the cases marked bench\n"
                   "  --trace FILE         write a Chrome trace (Perfetto, chrome://tracing) of\n"
                   "                       the --case, else of the first bench case\n"
                   "  --jitter PCT         add seeded noise to the reported latency (--seed)\n"
                   "  --slow-after US      stop a bench case once its simulated time passes US\n"
                   "                       microseconds (status slow), as episodes do at 3x the\n"
                   "                       best\n"
                   "  --scratch-mb MB     a run that leaves more than MB MiB in the work\n"
                   "                       directory fails as runtime_error (default 16384)\n"
                   "  --state-dir DIR      where the object cache lives (default as for optimize:\n"
                   "                       $ASCENDOPT_STATE_DIR or ~/.local/state/ascendopt);\n"
                   "                       units compiled before, by eval or an episode, are\n"
                   "                       reused\n"
                   "  --no-cache           compile every unit afresh\n"
                   "  --no-golden          do not check the cases' goldens (the operator's own\n"
                   "                       msOpSt expectation function or example golden.bin;\n"
                   "                       docs/manifest.md); a golden mismatch exits 1\n"
                   "  --json               print exactly one JSON object\n");
}

static void on_golden_done(void *userdata)
{
        *(bool *)userdata = true;
}

static void print_golden(const json_t *golden)
{
        size_t i;
        json_t *c;

        if (!golden)
                return;
        printf("  golden: %s (%lld matched, %lld mismatched, %lld unavailable)%s%s\n",
               json_string_value(json_object_get(golden, "verdict")),
               (long long)json_integer_value(json_object_get(golden, "matched")),
               (long long)json_integer_value(json_object_get(golden, "mismatched")),
               (long long)json_integer_value(json_object_get(golden, "unavailable")),
               json_object_get(golden, "why") ? ": " : "",
               json_string_value(json_object_get(golden, "why")) ?: "");
        json_array_foreach(json_object_get(golden, "cases"), i, c)
        {
                const json_t *o;
                size_t k;
                printf("    case %-12s %-11s %s\n", json_string_value(json_object_get(c, "case")),
                       json_string_value(json_object_get(c, "verdict")),
                       json_string_value(json_object_get(c, "golden"))
                           ?: json_string_value(json_object_get(c, "why")) ?: "");
                json_array_foreach(json_object_get(c, "outputs"), k, o)
                {
                        const json_t *first = json_object_get(o, "first_mismatch");
                        printf(
                            "      %-10s max_abs_err %.3g  max_rel_err %.3g  mismatches %lld/%lld",
                            json_string_value(json_object_get(o, "name")),
                            json_number_value(json_object_get(o, "max_abs_err")),
                            json_number_value(json_object_get(o, "max_rel_err")),
                            (long long)json_integer_value(json_object_get(o, "mismatches")),
                            (long long)json_integer_value(json_object_get(o, "elements")));
                        if (first)
                                printf(
                                    "  first at %lld: got %.6g, want %.6g",
                                    (long long)json_integer_value(json_object_get(first, "index")),
                                    json_number_value(json_object_get(first, "got")),
                                    json_number_value(json_object_get(first, "want")));
                        printf("\n");
                }
                if (json_object_get(c, "outputs") && json_object_get(c, "why"))
                        printf("      %s\n", json_string_value(json_object_get(c, "why")));
        }
}

static void on_eval_done(json_t *result, void *userdata)
{
        struct eval_run *run = userdata;

        run->result = result;
}

static int resolve_case(const struct npu_manifest *m, const char *arg, int *ret)
{
        char *end;
        long index = strtol(arg, &end, 10);

        if (*arg && !*end && index >= 0 && (size_t)index < m->n_cases) {
                *ret = (int)index;
                return 0;
        }
        for (size_t i = 0; i < m->n_cases; i++) {
                if (strcmp(m->cases[i].name, arg) == 0) {
                        *ret = (int)i;
                        return 0;
                }
        }
        return -ENOENT;
}

/* Where a case's Chrome trace went, when it has one. */
static void print_trace(const json_t *profile)
{
        const char *path = json_string_value(json_object_get(profile, "trace_path"));

        if (!path)
                return;
        printf(
            "    trace %s: %lld events%s; open it in https://ui.perfetto.dev or chrome://tracing\n",
            path, (long long)json_integer_value(json_object_get(profile, "trace_events")),
            json_is_true(json_object_get(profile, "trace_truncated"))
                ? ", cut at the limit (the rest of the run is not in it)"
                : "");
}

static void print_human(const json_t *result, const char *opdir)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        const json_t *error = json_object_get(result, "error");
        size_t i;
        json_t *c;

        printf("%s: %s\n", opdir, status ? status : "?");
        if (error) {
                const char *file = json_string_value(json_object_get(error, "file"));
                json_int_t line = json_integer_value(json_object_get(error, "line"));
                if (file && line)
                        printf("  at %s:%lld\n", file, (long long)line);
                printf("  %s: %s\n", json_string_value(json_object_get(error, "kind")),
                       json_string_value(json_object_get(error, "message")));
        }
        json_array_foreach(json_object_get(result, "cases"), i, c)
        {
                printf("  case %-12s %-8s block_dim %-3lld tiling_key %-4lld",
                       json_string_value(json_object_get(c, "case")),
                       json_string_value(json_object_get(c, "status")),
                       (long long)json_integer_value(json_object_get(c, "block_dim")),
                       (long long)json_integer_value(json_object_get(c, "tiling_key")));
                if (json_object_get(c, "latency_us"))
                        printf(" %.2f us", json_number_value(json_object_get(c, "latency_us")));
                printf("\n");
                print_trace(json_object_get(c, "profile"));
        }
        json_array_foreach(json_object_get(result, "correctness"), i, c)
        {
                printf("  vs reference, case %-12s %s  max_abs_err %.3g  max_rel_err %.3g  "
                       "mismatches %.4f%%",
                       json_string_value(json_object_get(c, "case")),
                       json_is_true(json_object_get(c, "passed")) ? "pass" : "FAIL",
                       json_number_value(json_object_get(c, "max_abs_err")),
                       json_number_value(json_object_get(c, "max_rel_err")),
                       100 * json_number_value(json_object_get(c, "mismatch_fraction")));
                if (json_object_get(c, "unwritten_elements"))
                        printf("  never written %lld",
                               (long long)json_integer_value(
                                   json_object_get(c, "unwritten_elements")));
                printf("\n");
        }
        json_array_foreach(json_object_get(result, "warnings"), i, c)
            printf("  warning: %s\n", json_string_value(c));
        if (json_object_get(result, "outputs_sha256"))
                printf("  outputs_sha256 %s\n",
                       json_string_value(json_object_get(result, "outputs_sha256")));
        print_golden(json_object_get(result, "golden"));
}

int cmd_eval(int argc, char **argv)
{
        static const struct option options[] = {
                { "case", required_argument, NULL, 'c' },
                { "platform", required_argument, NULL, 'p' },
                { "seed", required_argument, NULL, 's' },
                { "compare", required_argument, NULL, 'C' },
                { "timeout", required_argument, NULL, 't' },
                { "permissive", required_argument, NULL, 'P' },
                { "work-dir", required_argument, NULL, 'w' },
                { "json", no_argument, NULL, 'j' },
                { "quick", no_argument, NULL, 'q' },
                { "trace", required_argument, NULL, 'T' },
                { "jitter", required_argument, NULL, 'J' },
                { "slow-after", required_argument, NULL, 'W' },
                { "scratch-mb", required_argument, NULL, 'S' },
                { "state-dir", required_argument, NULL, 'd' },
                { "no-cache", no_argument, NULL, 'N' },
                { "no-golden", no_argument, NULL, 'G' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *permissive[MAX_PERMISSIVE + 1] = { NULL };
        size_t n_permissive = 0;
        struct npu_sim_run_options eval_options = { .seed = 1, .only_case = -1 };
        struct eval_session session = { 0 };
        struct npu_environment env = { 0 };
        struct event_base *base = NULL;
        const char *case_arg = NULL, *compare = NULL, *state_flag = NULL;
        char state[PATH_MAX], context[SHA256_HEX_SIZE];
        bool json_out = false, use_cache = true, use_golden = true, golden_done = false;
        struct npu_golden *golden = NULL;
        char golden_work[PATH_MAX] = "", compared_work[PATH_MAX] = "";
        char err[2048], trace_path[PATH_MAX];
        int opt, ret = EX_OK, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'c':
                        case_arg = optarg;
                        break;
                case 'p':
                        eval_options.platform = optarg;
                        break;
                case 's':
                        if (cli_parse_u64(optarg, &eval_options.seed) < 0)
                                return cli_usage_error("eval", "--seed wants a number");
                        break;
                case 'C':
                        compare = optarg;
                        break;
                case 't':
                        if (cli_parse_seconds(optarg, &eval_options.timeout_s) < 0)
                                return cli_usage_error("eval", "--timeout wants seconds, > 0 and "
                                                               "at most 86400");
                        break;
                case 'P':
                        if (n_permissive == MAX_PERMISSIVE)
                                return cli_usage_error("eval", "too many --permissive rules");
                        permissive[n_permissive++] = optarg;
                        break;
                case 'w':
                        eval_options.work_dir = optarg;
                        eval_options.keep_work_dir = true;
                        break;
                case 'j':
                        json_out = true;
                        break;
                case 'q':
                        eval_options.skip_bench = true;
                        break;
                case 'T':
                        if (!realpath(optarg, trace_path)) {
                                /* a file that does not exist yet: absolute from here */
                                char cwd[PATH_MAX];
                                if (optarg[0] == '/' || !getcwd(cwd, sizeof(cwd)))
                                        snprintf(trace_path, sizeof(trace_path), "%s", optarg);
                                else if (format_path(trace_path, sizeof(trace_path), "%s/%s", cwd,
                                                     optarg) < 0)
                                        return cli_usage_error("eval", "--trace path too long");
                        }
                        eval_options.trace_path = trace_path;
                        break;
                case 'J':
                        eval_options.jitter_pct = strtod(optarg, NULL);
                        if (eval_options.jitter_pct <= 0 || eval_options.jitter_pct > 50)
                                return cli_usage_error("eval", "--jitter wants a percentage in "
                                                               "(0, 50]");
                        break;
                case 'd':
                        state_flag = optarg;
                        break;
                case 'N':
                        use_cache = false;
                        break;
                case 'G':
                        use_golden = false;
                        break;
                case 'W': {
                        char *end;
                        eval_options.slow_after_us = strtod(optarg, &end);
                        if (*end || end == optarg || !(eval_options.slow_after_us > 0))
                                return cli_usage_error("eval",
                                                       "--slow-after wants microseconds > 0");
                        break;
                }
                case 'S': {
                        uint64_t mb = 0;
                        if (cli_parse_u64(optarg, &mb) < 0 || mb == 0 || mb > (1ull << 24))
                                return cli_usage_error("eval", "--scratch-mb wants MiB, 1 to "
                                                               "16777216");
                        eval_options.limits.scratch_bytes = mb << 20;
                        break;
                }
                case 'h':
                        eval_usage(stdout);
                        return EX_OK;
                default:
                        eval_usage(stderr);
                        return EX_USAGE;
                }
        }
        if (optind + 1 != argc) {
                eval_usage(stderr);
                return EX_USAGE;
        }
        eval_options.permissive = permissive;
        eval_options.jitter_seed = eval_options.seed;
        if (compare && eval_options.work_dir)
                return cli_usage_error("eval", "--work-dir cannot be combined with --compare");

        session.runs[0].opdir = argv[optind];
        session.runs[1].opdir = compare;
        session.n_runs = compare ? 2 : 1;
        for (size_t i = 0; i < session.n_runs; i++) {
                r = npu_manifest_load(session.runs[i].opdir, &session.runs[i].manifest, err,
                                      sizeof(err));
                if (r < 0) {
                        fprintf(stderr, "ascendopt eval: %s\n", err);
                        ret = EX_DATAERR;
                        goto out;
                }
        }
        if (case_arg &&
            resolve_case(session.runs[0].manifest, case_arg, &eval_options.only_case) < 0) {
                fprintf(stderr, "ascendopt eval: %s has no case \"%s\"\n",
                        session.runs[0].manifest->source, case_arg);
                ret = EX_USAGE;
                goto out;
        }
        base = event_base_new();
        if (!base) {
                ret = EX_OSERR;
                goto out;
        }
        ret = cli_open_environment(
            "eval",
            &(struct npu_environment_options){
                .base = base,
                .state_dir = use_cache ? cli_state_dir(state_flag, state, sizeof(state)) : NULL,
                .use_cache = use_cache,
                .limits = eval_options.limits,
            },
            &env);
        if (ret != EX_OK)
                goto out;
        /* the operator's code is compiled and run like a candidate's: sandboxed, with
         * the same limits; objects by content, salted like an evaluator's: shared with
         * episodes (a cache that cannot be salted is left out) */
        if (npu_environment_run_options(&env, eval_options.platform, eval_options.jitter_pct,
                                        &eval_options, context, err, sizeof(err)) < 0)
                eval_options.cache_dir = NULL;
        if (compare)
                eval_options.keep_work_dir = true; /* outputs must outlive the runs */
        /* goldens: the example cases' inputs first, the comparison after the run */
        if (use_golden && !compare && npu_manifest_has_golden(session.runs[0].manifest)) {
                struct npu_golden_options golden_options = {
                        .only_case = eval_options.only_case,
                        .skip_bench = eval_options.skip_bench,
                        .sandbox = true,
                        .timeout_s = eval_options.timeout_s > 0 ? eval_options.timeout_s * 2.5 : 0,
                };
                if (!eval_options.work_dir) {
                        const char *tmp = getenv("TMPDIR");
                        if (format_path(golden_work, sizeof(golden_work),
                                        "%s/ascendopt-eval-XXXXXX",
                                        tmp && *tmp ? tmp : "/tmp") < 0 ||
                            !mkdtemp(golden_work)) {
                                fprintf(stderr,
                                        "ascendopt eval: cannot make a work directory: %s\n",
                                        strerror(errno));
                                golden_work[0] = '\0';
                                ret = EX_OSERR;
                                goto out;
                        }
                        eval_options.work_dir = golden_work;
                        eval_options.keep_work_dir = true;
                }
                golden_options.work_dir = eval_options.work_dir;
                r = npu_golden_new(env.runner, session.runs[0].manifest, &golden_options, &golden);
                if (r < 0) {
                        fprintf(stderr,
                                "ascendopt eval: cannot prepare the goldens in the work "
                                "directory %s: %s\n",
                                golden_options.work_dir, strerror(-r));
                        ret = EX_OSERR;
                        goto out;
                }
                npu_golden_prepare(golden, on_golden_done, &golden_done);
                while (!golden_done)
                        event_base_loop(base, EVLOOP_ONCE);
                eval_options.input_files = npu_golden_input_files(golden);
        }
        for (size_t i = 0; i < session.n_runs; i++) {
                r = npu_sim_run_start(env.runner, &env.paths, session.runs[i].manifest,
                                      &eval_options, on_eval_done, &session.runs[i], NULL);
                if (r < 0) {
                        fprintf(stderr, "ascendopt eval: %s: cannot start: %s\n",
                                session.runs[i].opdir, child_strerror(r));
                        ret = EX_OSERR;
                        goto out;
                }
        }
        while (!session.runs[0].result || (compare && !session.runs[1].result))
                event_base_loop(base, EVLOOP_ONCE);

        if (compare) {
                const char *ref_status =
                    json_string_value(json_object_get(session.runs[1].result, "status"));
                if (!ref_status || strcmp(ref_status, "ok") != 0) {
                        json_object_set_new(session.runs[0].result, "reference",
                                            json_incref(session.runs[1].result));
                        fprintf(stderr, "ascendopt eval: the reference %s did not run: %s\n",
                                compare, ref_status ? ref_status : "?");
                } else if (strcmp(
                               json_string_value(json_object_get(session.runs[0].result, "status")),
                               "ok") == 0 &&
                           npu_compare_results(session.runs[0].manifest, session.runs[0].result,
                                               session.runs[1].result, err, sizeof(err)) < 0) {
                        fprintf(stderr, "ascendopt eval: cannot compare: %s\n", err);
                        ret = EX_DATAERR;
                }
        }
        if (golden) {
                golden_done = false;
                npu_golden_check(golden, session.runs[0].result, on_golden_done, &golden_done);
                while (!golden_done)
                        event_base_loop(base, EVLOOP_ONCE);
        }
        if (compare || golden_work[0]) {
                /* not shown: it is removed below */
                const char *dir =
                    json_string_value(json_object_get(session.runs[0].result, "work_dir"));
                if (compare && dir)
                        snprintf(compared_work, sizeof(compared_work), "%s", dir);
                json_object_del(session.runs[0].result, "work_dir");
        }
        if (json_out)
                cli_print_json(session.runs[0].result);
        else
                print_human(session.runs[0].result, session.runs[0].opdir);
        if (ret == EX_OK &&
            strcmp(json_string_value(json_object_get(session.runs[0].result, "status")), "ok") != 0)
                ret = 1;
        if (ret == EX_OK &&
            strcmp(json_string_value(json_object_get(
                       json_object_get(session.runs[0].result, "golden"), "verdict"))
                       ?: "",
                   "mismatch") == 0)
                ret = 1;
out:
        npu_golden_free(golden);
        if (golden_work[0])
                rm_rf(golden_work);
        if (compared_work[0])
                rm_rf(compared_work);
        for (size_t i = 0; i < ARRAY_SIZE(session.runs); i++) {
                const char *dir =
                    json_string_value(json_object_get(session.runs[i].result, "work_dir"));
                if (compare && dir)
                        rm_rf(dir);
                json_decref(session.runs[i].result);
                npu_manifest_free(session.runs[i].manifest);
        }
        npu_environment_close(&env);
        if (base)
                event_base_free(base);
        return ret;
}
