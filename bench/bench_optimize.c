/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the episode strategies on the corpus: for every operator
 * and seed, one episode of each strategy with the same budget, each
 * strategy with a store of its own (so no memo or bank leaks between
 * them), run side by side in one process.  Prints the geometric-mean
 * speedups, failure rates and time per evaluation as a table and one JSON
 * line.  The banks are frozen: episodes neither credit nor add entries.
 *
 * Environment: BENCH_OPS (a space-separated list of operator directories;
 * default every baseline under examples/ops/level1 and level2),
 * BENCH_SEEDS (default 3), BENCH_BUDGET (default 40), BENCH_STRATEGIES
 * (default "stage1 bon stage2 full evolve stage2-random"), BENCH_BANK (an
 * experience export, as written by 'ascendopt experience export', loaded
 * into every arm's bank).
 */
#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#define MAX_OPS 64

struct arm {
        const char *name;
        enum episode_strategy strategy;
        struct store *store;
        struct npu_evaluator *evaluator;
        json_t *record;
        double log_speedup_sum;
        int runs, evaluations, failures;
        double seconds;
};

static double now_s(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_done(json_t *record, void *userdata)
{
        ((struct arm *)userdata)->record = record;
}

static size_t list_ops(char ops[][PATH_MAX])
{
        const char *env = getenv("BENCH_OPS");
        const char *roots[] = { "examples/ops/level1", "examples/ops/level2" };
        size_t n = 0;

        if (env && *env) {
                char *copy = strdup(env), *save = NULL;
                for (char *t = strtok_r(copy, " ", &save); t && n < MAX_OPS;
                     t = strtok_r(NULL, " ", &save))
                        snprintf(ops[n++], PATH_MAX, "%s", t);
                free(copy);
                return n;
        }
        for (size_t r = 0; r < 2; r++) {
                DIR *d = opendir(roots[r]);
                struct dirent *e;
                char *names[MAX_OPS];
                size_t k = 0;
                while (d && (e = readdir(d)) && k < MAX_OPS)
                        if (e->d_name[0] != '.')
                                names[k++] = strdup(e->d_name);
                if (d)
                        closedir(d);
                for (size_t i = 1; i < k; i++)
                        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                                char *t = names[j];
                                names[j] = names[j - 1];
                                names[j - 1] = t;
                        }
                for (size_t i = 0; i < k; i++) {
                        if (n < MAX_OPS)
                                snprintf(ops[n++], PATH_MAX, "%s/%s", roots[r], names[i]);
                        free(names[i]);
                }
        }
        return n;
}

static int setup_arm(struct arm *a, const char *root, struct event_base *base,
                     struct child_runner *runner, const struct npu_sim_paths *paths)
{
        struct npu_evaluator_options options = { .base = base, .timeout_s = 300 };
        char dir[PATH_MAX], scratch[PATH_MAX], cache[PATH_MAX], err[1024];

        snprintf(dir, sizeof(dir), "%s/%s/store", root, a->name);
        snprintf(scratch, sizeof(scratch), "%s/%s/scratch", root, a->name);
        snprintf(cache, sizeof(cache), "%s/cache", root);
        options.scratch_dir = scratch;
        options.cache_dir = cache;
        if (store_open(dir, &a->store, err, sizeof(err)) < 0 ||
            npu_evaluator_new(runner, paths, a->store, &options, &a->evaluator, err, sizeof(err)) <
                0) {
                fprintf(stderr, "bench_optimize: %s\n", err);
                return -1;
        }
        return 0;
}

/* Adds an episode's outcome to its arm; returns its speedup (1 when none). */
static double account(struct arm *a, double seconds)
{
        const json_t *r = a->record;
        double base =
            json_number_value(json_object_get(json_object_get(r, "baseline"), "latency_us"));
        double best = json_number_value(json_object_get(json_object_get(r, "best"), "latency_us"));
        double speedup = base > 0 && best > 0 ? base / best : 1.0;
        const char *kind;
        json_t *count;

        a->log_speedup_sum += log(speedup);
        a->runs++;
        a->evaluations += (int)json_integer_value(json_object_get(r, "evaluations"));
        json_object_foreach((json_t *)json_object_get(r, "failures"), kind, count) a->failures +=
            (int)json_integer_value(count);
        a->seconds += seconds;
        return speedup;
}

/* Loads BENCH_BANK's entries into an arm's bank. */
static int load_bank(struct arm *a, const json_t *entries)
{
        struct store_batch *b = store_batch_new(a->store);
        const json_t *e;
        size_t i;
        int r = b ? 0 : -ENOMEM;

        json_array_foreach(entries, i, e)
        {
                if (r == 0)
                        r = experience_put(b, e, NULL);
        }
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        return r;
}

#define MAX_ARMS 8

int main(void)
{
        static char ops[MAX_OPS][PATH_MAX];
        char root[] = "/tmp/ascendopt-bench-optimize-XXXXXX", err[1024];
        struct event_base *base = event_base_new();
        struct child_runner *runner = NULL;
        struct npu_sim_paths paths = { 0 };
        struct arm arms[MAX_ARMS];
        const char *names = getenv("BENCH_STRATEGIES") && *getenv("BENCH_STRATEGIES")
                                ? getenv("BENCH_STRATEGIES")
                                : "stage1 bon stage2 full evolve stage2-random";
        int seeds = getenv("BENCH_SEEDS") ? atoi(getenv("BENCH_SEEDS")) : 3;
        int budget = getenv("BENCH_BUDGET") ? atoi(getenv("BENCH_BUDGET")) : 40;
        size_t n_ops = list_ops(ops), n_arms = 0;
        json_t *per_op = json_array(), *summary, *bank = NULL, *arms_json;
        char *line, *copy = strdup(names), *save = NULL;

        memset(arms, 0, sizeof(arms));
        for (char *t = strtok_r(copy, " ", &save); t && n_arms < MAX_ARMS;
             t = strtok_r(NULL, " ", &save)) {
                if (episode_strategy_from_name(t, &arms[n_arms].strategy) < 0) {
                        fprintf(stderr, "bench_optimize: unknown strategy %s\n", t);
                        return 1;
                }
                arms[n_arms].name = episode_strategy_name(arms[n_arms].strategy);
                n_arms++;
        }
        free(copy);
        if (getenv("BENCH_BANK") && *getenv("BENCH_BANK")) {
                json_t *doc = json_load_file(getenv("BENCH_BANK"), 0, NULL);
                bank = json_incref(json_object_get(doc, "entries"));
                json_decref(doc);
                if (!json_is_array(bank)) {
                        fprintf(stderr, "bench_optimize: %s: no \"entries\" array\n",
                                getenv("BENCH_BANK"));
                        return 1;
                }
        }
        if (!mkdtemp(root) || child_runner_new(base, NULL, &runner) < 0 ||
            npu_sim_paths_find(&paths) < 0) {
                fprintf(stderr, "bench_optimize: cannot set up (is the simulator built?)\n");
                return 1;
        }
        if (n_ops == 0 || n_arms == 0) {
                fprintf(stderr, "bench_optimize: no operators or strategies\n");
                return 1;
        }
        for (size_t a = 0; a < n_arms; a++) {
                if (setup_arm(&arms[a], root, base, runner, &paths) < 0)
                        return 1;
                if (bank && load_bank(&arms[a], bank) < 0) {
                        fprintf(stderr, "bench_optimize: cannot load the bank\n");
                        return 1;
                }
        }
        printf("Strategies side by side, budget %d, %d seed%s, bank: %zu entries, speedup over "
               "the baseline\n",
               budget, seeds, seeds == 1 ? "" : "s", bank ? json_array_size(bank) : 0);
        printf("  %-32s", "operator");
        for (size_t a = 0; a < n_arms; a++)
                printf(" %13s", arms[a].name);
        printf("\n");
        for (size_t i = 0; i < n_ops; i++) {
                double log_op[MAX_ARMS] = { 0 };
                int ok_runs = 0;
                for (int seed = 1; seed <= seeds; seed++) {
                        char ids[MAX_ARMS][PATH_MAX + 64];
                        double start = now_s();
                        bool started[MAX_ARMS] = { false }, all = true, waiting;
                        for (size_t a = 0; a < n_arms; a++) {
                                struct episode_options o = { .id = ids[a],
                                                             .seed = (uint64_t)seed,
                                                             .budget = budget,
                                                             .strategy = arms[a].strategy,
                                                             .frozen_bank = true };
                                snprintf(ids[a], sizeof(ids[a]), "bench-%s-%zu-s%d", arms[a].name,
                                         i, seed);
                                arms[a].record = NULL;
                                started[a] = episode_start(arms[a].evaluator, arms[a].store, ops[i],
                                                           &o, NULL, on_done, &arms[a], NULL, err,
                                                           sizeof(err)) == 0;
                                if (!started[a]) {
                                        fprintf(stderr, "  %s (%s): %s\n", ops[i], arms[a].name,
                                                err);
                                        all = false;
                                }
                        }
                        do {
                                waiting = false;
                                for (size_t a = 0; a < n_arms; a++)
                                        waiting |= started[a] && !arms[a].record;
                                if (waiting)
                                        event_base_loop(base, EVLOOP_ONCE);
                        } while (waiting);
                        if (!all) {
                                for (size_t a = 0; a < n_arms; a++)
                                        json_decref(arms[a].record);
                                break;
                        }
                        for (size_t a = 0; a < n_arms; a++) {
                                log_op[a] +=
                                    log(account(&arms[a], (now_s() - start) / (double)n_arms));
                                json_decref(arms[a].record);
                        }
                        ok_runs++;
                }
                if (ok_runs) {
                        json_t *row = json_pack("{s:s}", "operator", ops[i]);
                        printf("  %-32s", ops[i]);
                        for (size_t a = 0; a < n_arms; a++) {
                                printf(" %12.3fx", exp(log_op[a] / ok_runs));
                                json_object_set_new(row, arms[a].name,
                                                    json_real(exp(log_op[a] / ok_runs)));
                        }
                        printf("\n");
                        json_array_append_new(per_op, row);
                }
                fflush(stdout);
        }
        arms_json = json_object();
        for (size_t a = 0; a < n_arms; a++) {
                struct arm *x = &arms[a];
                double gm = x->runs ? exp(x->log_speedup_sum / x->runs) : 0;
                printf("  %-14s geo-mean speedup %.3fx over %d episodes; failures %.1f%% of %d "
                       "evaluations; %.2f s per evaluation\n",
                       x->name, gm, x->runs,
                       x->evaluations ? 100.0 * x->failures / x->evaluations : 0, x->evaluations,
                       x->evaluations ? x->seconds / x->evaluations : 0);
                json_object_set_new(
                    arms_json, x->name,
                    json_pack("{s:f, s:i, s:i, s:f}", "geomean_speedup", gm, "episodes", x->runs,
                              "evaluations", x->evaluations, "failure_rate",
                              x->evaluations ? (double)x->failures / x->evaluations : 0.0));
        }
        summary = json_pack("{s:s, s:i, s:i, s:o, s:o}", "bench", "strategies", "budget", budget,
                            "seeds", seeds, "strategies", arms_json, "per_operator", per_op);
        line = json_dumps(summary, JSON_COMPACT);
        printf("%s\n", line);
        free(line);
        json_decref(summary);
        json_decref(bank);
        for (size_t a = 0; a < n_arms; a++) {
                npu_evaluator_free(arms[a].evaluator);
                store_close(arms[a].store);
        }
        child_runner_free(runner);
        npu_sim_paths_release(&paths);
        event_base_free(base);
        rm_rf(root);
        return 0;
}
