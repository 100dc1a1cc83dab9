/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of Stage I against its Best-of-N opponent on the corpus: for
 * every operator and seed, one episode of each strategy with the same
 * budget, each strategy with a store of its own, run side by side in one
 * process.  Prints the geometric-mean speedups, failure rates and time per
 * evaluation as a table and one JSON line.
 *
 * Environment: BENCH_OPS (a space-separated list of operator directories;
 * default every baseline under examples/ops/level1 and level2),
 * BENCH_SEEDS (default 3), BENCH_BUDGET (default 40).
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

int main(void)
{
        static char ops[MAX_OPS][PATH_MAX];
        char root[] = "/tmp/ascendopt-bench-optimize-XXXXXX", err[1024];
        struct event_base *base = event_base_new();
        struct child_runner *runner = NULL;
        struct npu_sim_paths paths = { 0 };
        struct arm arms[2] = { { .name = "stage1", .strategy = EPISODE_STAGE1 },
                               { .name = "bon", .strategy = EPISODE_BON } };
        int seeds = getenv("BENCH_SEEDS") ? atoi(getenv("BENCH_SEEDS")) : 3;
        int budget = getenv("BENCH_BUDGET") ? atoi(getenv("BENCH_BUDGET")) : 40;
        size_t n_ops = list_ops(ops);
        json_t *per_op = json_array(), *summary;
        char *line;

        if (!mkdtemp(root) || child_runner_new(base, NULL, &runner) < 0 ||
            npu_sim_paths_find(&paths) < 0) {
                fprintf(stderr, "bench_optimize: cannot set up (is the simulator built?)\n");
                return 1;
        }
        if (n_ops == 0) {
                fprintf(stderr, "bench_optimize: no operators (set BENCH_OPS)\n");
                return 1;
        }
        for (size_t a = 0; a < 2; a++)
                if (setup_arm(&arms[a], root, base, runner, &paths) < 0)
                        return 1;
        printf("Stage I against Best-of-N, budget %d, %d seed%s, speedup over the baseline\n",
               budget, seeds, seeds == 1 ? "" : "s");
        printf("  %-32s %10s %10s\n", "operator", "stage1", "bon");
        for (size_t i = 0; i < n_ops; i++) {
                double log_op[2] = { 0, 0 };
                int ok_runs = 0;
                for (int seed = 1; seed <= seeds; seed++) {
                        char id[PATH_MAX + 64];
                        double start = now_s();
                        bool started[2] = { false, false };
                        for (size_t a = 0; a < 2; a++) {
                                struct episode_options o = { .id = id,
                                                             .seed = (uint64_t)seed,
                                                             .budget = budget,
                                                             .strategy = arms[a].strategy };
                                snprintf(id, sizeof(id), "bench-%s-%zu-s%d", arms[a].name, i, seed);
                                arms[a].record = NULL;
                                started[a] = episode_start(arms[a].evaluator, arms[a].store, ops[i],
                                                           &o, NULL, on_done, &arms[a], NULL, err,
                                                           sizeof(err)) == 0;
                                if (!started[a])
                                        fprintf(stderr, "  %s: %s\n", ops[i], err);
                        }
                        if (!started[0] || !started[1]) {
                                while ((started[0] && !arms[0].record) ||
                                       (started[1] && !arms[1].record))
                                        event_base_loop(base, EVLOOP_ONCE);
                                for (size_t a = 0; a < 2; a++)
                                        json_decref(arms[a].record);
                                break;
                        }
                        while (!arms[0].record || !arms[1].record)
                                event_base_loop(base, EVLOOP_ONCE);
                        for (size_t a = 0; a < 2; a++) {
                                log_op[a] += log(account(&arms[a], (now_s() - start) / 2));
                                json_decref(arms[a].record);
                        }
                        ok_runs++;
                }
                if (ok_runs) {
                        printf("  %-32s %9.3fx %9.3fx\n", ops[i], exp(log_op[0] / ok_runs),
                               exp(log_op[1] / ok_runs));
                        json_array_append_new(per_op,
                                              json_pack("{s:s, s:f, s:f}", "operator", ops[i],
                                                        "stage1", exp(log_op[0] / ok_runs), "bon",
                                                        exp(log_op[1] / ok_runs)));
                }
                fflush(stdout);
        }
        for (size_t a = 0; a < 2; a++) {
                struct arm *x = &arms[a];
                printf("  %-8s geo-mean speedup %.3fx over %d episodes; failures %.1f%% of %d "
                       "evaluations; %.2f s per evaluation\n",
                       x->name, x->runs ? exp(x->log_speedup_sum / x->runs) : 0, x->runs,
                       x->evaluations ? 100.0 * x->failures / x->evaluations : 0, x->evaluations,
                       x->evaluations ? x->seconds / x->evaluations : 0);
        }
        if (arms[0].runs && arms[1].runs)
                printf("  stage1 over bon: %.3fx\n",
                       exp(arms[0].log_speedup_sum / arms[0].runs) /
                           exp(arms[1].log_speedup_sum / arms[1].runs));
        summary = json_pack(
            "{s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:o}", "bench", "stage1_vs_bon", "budget", budget,
            "seeds", seeds, "stage1_geomean_speedup",
            arms[0].runs ? exp(arms[0].log_speedup_sum / arms[0].runs) : 0.0, "bon_geomean_speedup",
            arms[1].runs ? exp(arms[1].log_speedup_sum / arms[1].runs) : 0.0, "stage1_failure_rate",
            arms[0].evaluations ? (double)arms[0].failures / arms[0].evaluations : 0.0,
            "bon_failure_rate",
            arms[1].evaluations ? (double)arms[1].failures / arms[1].evaluations : 0.0,
            "per_operator", per_op);
        line = json_dumps(summary, JSON_COMPACT);
        printf("%s\n", line);
        free(line);
        json_decref(summary);
        for (size_t a = 0; a < 2; a++) {
                npu_evaluator_free(arms[a].evaluator);
                store_close(arms[a].store);
        }
        child_runner_free(runner);
        npu_sim_paths_release(&paths);
        event_base_free(base);
        rm_rf(root);
        return 0;
}
