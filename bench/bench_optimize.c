/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of the episode strategies on the corpus: for every operator
 * and seed, one episode of each strategy with the same budget, each
 * strategy with a store of its own (so no memo or bank leaks between
 * them), run side by side in one process.  Prints the geometric-mean
 * speedups, failure rates and time per evaluation, then the paper's table
 * per level and overall (geometric mean and fast_p for p in 1.0, 1.2, 1.4,
 * 2.0) with the mean roofline fraction before and after and the
 * evaluations to reach 95% of the final speedup, and the precision@3 of
 * Stage II's retrieval against random picks.  The table is also written
 * as JSON and Markdown.  The banks are frozen: episodes neither credit nor
 * add entries.  The arm "full-loo" is full with leave-one-out retrieval:
 * an operator never sees entries derived from itself.  For an operator
 * with an expert, the full arms' best of the first seed is set against
 * the expert ("Against the experts": latencies, roofline fractions and the
 * differences optimizer/gap.c reads from the two profiles).
 *
 * Environment: BENCH_OPS (operator directories separated by any whitespace;
 * default every baseline under examples/ops/level1 and level2),
 * BENCH_SEEDS (default 3), BENCH_BUDGET (default 40), BENCH_STRATEGIES
 * (default "stage1 bon stage2 full evolve stage2-random full-loo"),
 * BENCH_BANK (an experience export, as written by 'ascendopt experience
 * export', loaded into every arm's bank; default etc/ascendopt/seed-bank.json
 * when it exists, "" for none), BENCH_OUT (the path prefix of the .json and
 * .md tables; default build/bench-strategies), BENCH_RETRIEVAL (0 skips
 * the precision@3 measurement), BENCH_FIRST_SEED (default 1), BENCH_REUSE
 * (earlier .json tables of the same budget, space-separated: an episode
 * of the same strategy, operator and seed found there is taken from them
 * instead of run again, so a long table can be run in parts or continued
 * after an interruption).
 */
#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "optimizer/stage2-internal.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_OPS   64
#define MAX_SEEDS 16

struct arm {
        const char *name;
        enum episode_strategy strategy;
        bool leave_one_out;
        /* the seed's in use: each seed has its own store, so that no episode is
         * served what another seed's episode measured (seeds stay independent) */
        struct store *store;
        struct npu_evaluator *evaluator;
        struct store *stores[MAX_SEEDS];
        struct npu_evaluator *evaluators[MAX_SEEDS];
        json_t *record;           /* the episode's, once it is done */
        struct episode_summary s; /* read from it */
        bool nothing_to_search;   /* no episode: the baseline stays (s borrows another arm's) */
        double log_speedup_sum;
        int runs, evaluations, failures;
        int repeats;    /* evaluations that measured the best's latency again */
        int repeats_of; /* the evaluations of its runs that count them (older tables do not) */
        double seconds;
};

static double now_s(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * A json_pack's result, remembering a NULL (out of memory): the table would
 * lack what it dropped, so the bench then fails at its end.
 */
static bool packing_failed;

static json_t *packed(json_t *value)
{
        if (!value)
                packing_failed = true;
        return value;
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
                for (char *t = strtok_r(copy, " \t\n", &save); t && n < MAX_OPS;
                     t = strtok_r(NULL, " \t\n", &save))
                        snprintf(ops[n++], PATH_MAX, "%s", t);
                free(copy);
                return n;
        }
        for (size_t r = 0; r < 2; r++) {
                DIR *d = opendir(roots[r]);
                struct dirent *e;
                char *names[MAX_OPS];
                size_t k = 0;
                while (d && (e = readdir(d)) && k < MAX_OPS) {
                        char manifest[PATH_MAX];
                        /* an operator is a directory with a manifest, not the level's README */
                        snprintf(manifest, sizeof(manifest), "%s/%s/ascendopt.json", roots[r],
                                 e->d_name);
                        if (e->d_name[0] != '.' && access(manifest, R_OK) == 0)
                                names[k++] = strdup(e->d_name);
                }
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

static int load_bank(struct arm *a, const json_t *entries);

/*
 * Points the arm at the store and evaluator of its k-th seed, made (with
 * the bank, when there is one) on first use.  The object cache is shared:
 * compiled units cost no evaluation.
 */
static int arm_use_seed(struct arm *a, size_t k, const char *root, struct event_base *base,
                        struct child_runner *runner, const struct npu_sim_paths *paths,
                        const json_t *bank)
{
        struct npu_evaluator_options options = { .base = base, .timeout_s = 300 };
        char dir[PATH_MAX], scratch[PATH_MAX], cache[PATH_MAX], err[1024];

        if (a->stores[k]) {
                a->store = a->stores[k];
                a->evaluator = a->evaluators[k];
                return 0;
        }
        snprintf(dir, sizeof(dir), "%s/%s/seed%zu/store", root, a->name, k);
        snprintf(scratch, sizeof(scratch), "%s/%s/seed%zu/scratch", root, a->name, k);
        snprintf(cache, sizeof(cache), "%s/cache", root);
        options.scratch_dir = scratch;
        options.cache_dir = cache;
        if (store_open(dir, &a->stores[k], err, sizeof(err)) < 0 ||
            npu_evaluator_new(runner, paths, a->stores[k], &options, &a->evaluators[k], err,
                              sizeof(err)) < 0) {
                fprintf(stderr, "bench_optimize: %s\n", err);
                return -1;
        }
        a->store = a->stores[k];
        a->evaluator = a->evaluators[k];
        if (bank && load_bank(a, bank) < 0) {
                fprintf(stderr, "bench_optimize: cannot load the bank\n");
                return -1;
        }
        return 0;
}

/*
 * Candidates measured in an episode that failed: its trajectory rows that
 * were not memo hits and are neither ok nor slow.  The record's failure
 * counters also count memo hits, which cost no evaluation, so a rate over
 * the evaluations must not use them.
 */
static int measured_failures(const struct episode_summary *s)
{
        int failures = 0;

        for (size_t i = 0; i < s->n_rows; i++) {
                const char *status = s->rows[i].status;
                if (!s->rows[i].memo_hit && status && strcmp(status, "ok") != 0 &&
                    strcmp(status, "slow") != 0)
                        failures++;
        }
        return failures;
}

/*
 * Counted evaluations that came out correct at exactly the latency of the
 * best so far: the same program as the best, or a change the cost model
 * sees no effect of.  Either way the evaluation bought nothing.
 */
static int measured_repeats(const struct episode_summary *s)
{
        double best = s->baseline.latency_us;
        int repeats = 0;

        for (size_t i = 0; i < s->n_rows; i++) {
                const struct episode_row *row = &s->rows[i];
                bool ok = row->status && strcmp(row->status, "ok") == 0;
                if (!row->memo_hit && ok && !row->new_best && best > 0 && row->latency_us == best)
                        repeats++;
                if (row->new_best && row->latency_us > 0)
                        best = row->latency_us;
        }
        return repeats;
}

/* Adds an episode's outcome to its arm; returns its speedup (1 when none). */
static double account(struct arm *a, double seconds)
{
        double base = a->s.baseline.latency_us, best = a->s.best.latency_us;
        double speedup = base > 0 && best > 0 ? base / best : 1.0;

        a->log_speedup_sum += log(speedup);
        a->runs++;
        a->evaluations += (int)a->s.evaluations;
        a->failures += measured_failures(&a->s);
        a->repeats += measured_repeats(&a->s);
        a->repeats_of += (int)a->s.evaluations;
        a->seconds += seconds;
        return speedup;
}

/* An episode reused from an earlier table, accounted as account() does a record. */
static double account_reused(struct arm *a, const json_t *run)
{
        double speedup = json_number_value(json_object_get(run, "speedup"));

        a->log_speedup_sum += log(speedup > 0 ? speedup : 1.0);
        a->runs++;
        a->evaluations += (int)json_integer_value(json_object_get(run, "evaluations"));
        a->failures += (int)json_integer_value(json_object_get(run, "failures"));
        if (json_object_get(run, "repeats_best")) { /* tables before 2026-11-28 lack it */
                a->repeats += (int)json_integer_value(json_object_get(run, "repeats_best"));
                a->repeats_of += (int)json_integer_value(json_object_get(run, "evaluations"));
        }
        a->seconds += json_number_value(json_object_get(run, "seconds"));
        return speedup > 0 ? speedup : 1.0;
}

/* The runs of the BENCH_REUSE tables that were made with this budget. */
static json_t *load_reused_runs(int budget)
{
        const char *env = getenv("BENCH_REUSE");
        json_t *runs = json_array();
        char *copy = env ? strdup(env) : NULL, *save = NULL;

        for (char *t = copy ? strtok_r(copy, " \t\n", &save) : NULL; t;
             t = strtok_r(NULL, " \t\n", &save)) {
                json_error_t error;
                json_t *doc = json_load_file(t, 0, &error);
                if (!doc) {
                        fprintf(stderr, "bench_optimize: BENCH_REUSE %s: %s\n", t, error.text);
                        exit(1);
                }
                if (json_integer_value(json_object_get(doc, "budget")) != budget) {
                        fprintf(stderr, "bench_optimize: BENCH_REUSE %s has budget %lld, not %d\n",
                                t, (long long)json_integer_value(json_object_get(doc, "budget")),
                                budget);
                        exit(1);
                }
                json_array_extend(runs, json_object_get(doc, "runs"));
                json_decref(doc);
        }
        free(copy);
        return runs;
}

static const json_t *find_run(const json_t *runs, const char *arm, const char *op, int seed)
{
        const json_t *run;
        size_t i;

        json_array_foreach(runs, i, run)
        {
                if (strcmp(json_string_value(json_object_get(run, "arm")) ?: "", arm) == 0 &&
                    strcmp(json_string_value(json_object_get(run, "operator")) ?: "", op) == 0 &&
                    json_integer_value(json_object_get(run, "seed")) == seed)
                        return run;
        }
        return NULL;
}

/*
 * The runs so far, written to the .json table after every operator, so that
 * an interrupted bench can be continued with BENCH_REUSE; the last write
 * replaces it with the whole table.
 */
static void save_progress(const char *out, int budget, int seeds, const json_t *runs)
{
        char path[PATH_MAX];
        json_t *doc = json_pack("{s:s, s:b, s:i, s:i, s:O}", "bench", "strategies", "complete", 0,
                                "budget", budget, "seeds", seeds, "runs", runs);

        snprintf(path, sizeof(path), "%s.json", out);
        if (!doc || json_dump_file(doc, path, JSON_INDENT(1)) < 0)
                fprintf(stderr, "bench_optimize: cannot write %s\n", path);
        json_decref(doc);
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

/* ------------------------------------------------------------ the table */

/* The evaluations an episode took to reach 95% of its final speedup (0: the baseline was it). */
static int evals_to_95(const struct episode_summary *s, double final_speedup)
{
        double base = s->baseline.latency_us;

        if (base <= 0 || final_speedup <= 1.0)
                return 0;
        for (size_t i = 0; i < s->n_rows; i++) {
                double latency = s->rows[i].latency_us;
                if (s->rows[i].new_best && latency > 0 && base / latency >= 0.95 * final_speedup)
                        return (int)s->rows[i].evaluation;
        }
        return (int)s->evaluations;
}

/*
 * The row of the table an operator counts in: its category for an operator
 * of a cann-ops layout (".../src/<category>/<op>"), else its level.
 */
static void op_group(const char *op, int level, char *buf, size_t size)
{
        const char *src = strstr(op, "src/"), *end;

        while (src && src != op && src[-1] != '/')
                src = strstr(src + 1, "src/");
        end = src ? strchr(src + 4, '/') : NULL;
        if (end && end > src + 4)
                snprintf(buf, size, "%.*s", (int)(end - src - 4), src + 4);
        else
                snprintf(buf, size, "level%d", level);
}

/* A run's group; runs of older tables have only a level. */
static const char *run_group(const json_t *run, char *buf, size_t size)
{
        const char *group = json_string_value(json_object_get(run, "group"));

        if (group)
                return group;
        snprintf(buf, size, "level%d", (int)json_integer_value(json_object_get(run, "level")));
        return buf;
}

/*
 * The episode's course, for reading why one strategy beat another: the
 * stage of each counted evaluation in order ("1122..."), and each new best
 * as [evaluation, stage, speedup].  NULL when out of memory.
 */
static json_t *run_course(const struct episode_summary *s)
{
        char *stages = calloc(s->n_rows + 1, 1);
        json_t *wins = json_array(), *course = NULL;
        size_t n = 0;

        if (!stages || !wins)
                goto out;
        for (size_t i = 0; i < s->n_rows; i++) {
                const struct episode_row *row = &s->rows[i];
                if (row->memo_hit)
                        continue;
                stages[n++] = row->stage == 2 ? '2' : '1';
                if (row->new_best && row->latency_us > 0 && s->baseline.latency_us > 0 &&
                    json_array_append_new(
                        wins, json_pack("[I, i, f]", (json_int_t)row->evaluation, row->stage,
                                        s->baseline.latency_us / row->latency_us)) < 0)
                        goto out;
        }
        course = json_pack("{s:s, s:O}", "stages", stages, "wins", wins);
out:
        free(stages);
        json_decref(wins);
        return course;
}

/* One episode's facts for the table. */
static json_t *run_facts(const struct arm *a, const char *op, int level, int seed, double speedup,
                         double seconds)
{
        double base = a->s.baseline.latency_us, roof = a->s.baseline.roofline_us;
        int failures = measured_failures(&a->s);
        size_t frozen = 0, checked = 0;
        char group[64];
        json_t *facts;

        /* from the evaluated candidates' texts in the store, not the search's genomes;
         * -1: the record lists no literals to check against */
        if (!a->nothing_to_search &&
            (!a->record || episode_frozen_changes(a->store, a->record, op, &frozen, &checked) < 0))
                frozen = checked = (size_t)-1;
        op_group(op, level, group, sizeof(group));
        facts = packed(json_pack(
            "{s:s, s:s, s:i, s:s, s:i, s:f, s:f, s:f, s:i, s:b, s:I, s:i, s:f, s:I, s:I}", "arm",
            a->name, "operator", op, "level", level, "group", group, "seed", seed, "speedup",
            speedup, "roofline_before", roof > 0 && base > 0 ? roof / base : 0.0, "roofline_after",
            roof > 0 && base > 0 ? roof * speedup / base : 0.0, "evals_to_95",
            evals_to_95(&a->s, speedup), "nothing_to_search", a->nothing_to_search, "evaluations",
            (json_int_t)a->s.evaluations, "failures", failures, "seconds", seconds,
            "frozen_changed", (json_int_t)frozen, "frozen_checked", (json_int_t)checked));
        {
                /* what the roofline leaves out (optimizer/gap.h): from the best's stored profile */
                const struct episode_point *point =
                    a->s.best.identity ? &a->s.best : &a->s.baseline;
                struct profile_ceiling c;
                json_t *best = NULL;
                if (facts && point->identity &&
                    store_candidate_get(a->store, point->identity, &best) == 0 &&
                    profile_ceiling(json_object_get(best, "profile"), &c) == 0 &&
                    json_object_set_new(
                        facts, "ceiling",
                        packed(json_pack("{s:f, s:f, s:f, s:f, s:b}", "fraction", c.fraction,
                                         "reached", c.reached, "vector_us", c.vector_us,
                                         "launch_us", c.launch_us, "vector_bound",
                                         c.vector_bound))) < 0)
                        packing_failed = true;
                json_decref(best);
        }
        if (facts && !a->nothing_to_search &&
            (json_object_set_new(facts, "course", packed(run_course(&a->s))) < 0 ||
             json_object_set_new(facts, "repeats_best", json_integer(measured_repeats(&a->s))) <
                 0 ||
             /* candidates served free: the same files, or the same kernel on a launch measured
              * before (docs/design.md, "The launch memo"), which launch_memo_hits counts apart */
             json_object_set_new(facts, "memo_hits", json_integer(a->s.memo_hits)) < 0 ||
             json_object_set_new(facts, "launch_memo_hits",
                                 json_integer(json_integer_value(
                                     json_object_get(a->record, "launch_memo_hits")))) < 0))
                packing_failed = true;
        return facts;
}

static const double fast_p[] = { 1.0, 1.2, 1.4, 2.0 };

/* Aggregates the runs of one arm in one group (NULL: every group). */
static json_t *table_cell(const json_t *runs, const char *arm, const char *group)
{
        char buf[64];
        double log_sum = 0, roof_before = 0, roof_after = 0, evals = 0;
        size_t n = 0, faster[4] = { 0 }, i;
        const json_t *run;
        json_t *cell, *fast;

        json_array_foreach(runs, i, run)
        {
                double speedup = json_number_value(json_object_get(run, "speedup"));
                if (strcmp(json_string_value(json_object_get(run, "arm")), arm) != 0 ||
                    (group && strcmp(run_group(run, buf, sizeof(buf)), group) != 0))
                        continue;
                n++;
                log_sum += log(speedup);
                roof_before += json_number_value(json_object_get(run, "roofline_before"));
                roof_after += json_number_value(json_object_get(run, "roofline_after"));
                evals += (double)json_integer_value(json_object_get(run, "evals_to_95"));
                for (size_t p = 0; p < 4; p++)
                        /* fast_1.0 counts strict improvements, as the paper's fast_p does */
                        faster[p] += p == 0 ? speedup > 1.0 : speedup >= fast_p[p];
        }
        if (!n)
                return NULL;
        fast = json_object();
        for (size_t p = 0; p < 4; p++) {
                char key[16];
                snprintf(key, sizeof(key), "%.1f", fast_p[p]);
                json_object_set_new(fast, key, json_real((double)faster[p] / (double)n));
        }
        cell = json_pack("{s:i, s:f, s:o, s:f, s:f, s:f}", "episodes", (int)n, "geomean_speedup",
                         exp(log_sum / (double)n), "fast_p", fast, "roofline_before",
                         roof_before / (double)n, "roofline_after", roof_after / (double)n,
                         "evals_to_95", evals / (double)n);
        return packed(cell);
}

/*
 * The best speedup any run of any arm found on each operator of the group
 * (NULL: every group), as a geometric mean over operators: what a strategy
 * finding each operator's best known tiling on every seed would score.  A
 * strategy's lead over another cannot exceed this over the other's score
 * unless it finds something no run found.  Returns the number of operators.
 */
static size_t best_known(const json_t *runs, const char *group, double *ret_geomean)
{
        char buf[64];
        const char *names[MAX_OPS] = { NULL };
        double best[MAX_OPS] = { 0 }, log_sum = 0;
        size_t n = 0, i;
        const json_t *run;

        json_array_foreach(runs, i, run)
        {
                const char *op = json_string_value(json_object_get(run, "operator"));
                double speedup = json_number_value(json_object_get(run, "speedup"));
                size_t k = 0;
                if (!op || (group && strcmp(run_group(run, buf, sizeof(buf)), group) != 0))
                        continue;
                while (k < n && strcmp(names[k], op) != 0)
                        k++;
                if (k == n) {
                        if (n == MAX_OPS)
                                continue;
                        names[n] = op;
                        best[n++] = speedup;
                } else if (speedup > best[k]) {
                        best[k] = speedup;
                }
        }
        for (size_t k = 0; k < n; k++)
                log_sum += log(best[k]);
        *ret_geomean = n ? exp(log_sum / (double)n) : 0;
        return n;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(a, b);
}

/*
 * The table per group (level or category, sorted) and overall, printed, and
 * as JSON ({group: {arm: cell}}).
 */
static json_t *print_table(const json_t *runs, const struct arm *arms, size_t n_arms, FILE *md)
{
        json_t *table = json_object();
        char groups[MAX_OPS][64], buf[64];
        size_t n_groups = 0, i;
        const json_t *run;

        json_array_foreach(runs, i, run)
        {
                const char *g = run_group(run, buf, sizeof(buf));
                size_t k = 0;
                while (k < n_groups && strcmp(groups[k], g) != 0)
                        k++;
                if (k == n_groups && n_groups < MAX_OPS - 1)
                        snprintf(groups[n_groups++], sizeof(groups[0]), "%s", g);
        }
        qsort(groups, n_groups, sizeof(groups[0]), compare_names);
        for (size_t g = 0; g <= n_groups; g++) {
                const char *shown = g == n_groups ? NULL : groups[g];
                const char *key = shown ? shown : "overall";
                json_t *row = json_object();
                bool any = false;

                for (size_t a = 0; a < n_arms; a++) {
                        json_t *cell = table_cell(runs, arms[a].name, shown);
                        if (!cell)
                                continue;
                        if (!any) {
                                printf("\n  %s\n  %-14s %9s %8s %8s %8s %8s %10s %10s %9s\n", key,
                                       "strategy", "geo-mean", "fast_1.0", "fast_1.2", "fast_1.4",
                                       "fast_2.0", "roof before", "roof after", "evals 95%");
                                fprintf(
                                    md,
                                    "\n### %s\n\n| strategy | geo-mean | fast_1.0 | fast_1.2 "
                                    "| fast_1.4 | fast_2.0 | roofline before | roofline after "
                                    "| evals to 95%% |\n|---|---:|---:|---:|---:|---:|---:|---:|"
                                    "---:|\n",
                                    key);
                                any = true;
                        }
                        {
                                const json_t *f = json_object_get(cell, "fast_p");
                                double g =
                                    json_number_value(json_object_get(cell, "geomean_speedup"));
                                double p[4];
                                for (size_t i = 0; i < 4; i++) {
                                        char k[16];
                                        snprintf(k, sizeof(k), "%.1f", fast_p[i]);
                                        p[i] = json_number_value(json_object_get(f, k));
                                }
                                printf(
                                    "  %-14s %8.3fx %8.2f %8.2f %8.2f %8.2f %10.2f %10.2f %9.1f\n",
                                    arms[a].name, g, p[0], p[1], p[2], p[3],
                                    json_number_value(json_object_get(cell, "roofline_before")),
                                    json_number_value(json_object_get(cell, "roofline_after")),
                                    json_number_value(json_object_get(cell, "evals_to_95")));
                                fprintf(md,
                                        "| %s | %.3fx | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
                                        "%.1f |\n",
                                        arms[a].name, g, p[0], p[1], p[2], p[3],
                                        json_number_value(json_object_get(cell, "roofline_before")),
                                        json_number_value(json_object_get(cell, "roofline_after")),
                                        json_number_value(json_object_get(cell, "evals_to_95")));
                        }
                        json_object_set_new(row, arms[a].name, cell);
                }
                if (any) {
                        double ceiling;
                        size_t n_ops = best_known(runs, shown, &ceiling);
                        printf("  %-14s %8.3fx   (best any run found on each of %zu operators)\n",
                               "best known", ceiling, n_ops);
                        fprintf(md,
                                "| best known (any run, %zu operators) | %.3fx | | | | | | | |\n",
                                n_ops, ceiling);
                        json_object_set_new(row, "best_known",
                                            packed(json_pack("{s:i, s:f}", "operators", (int)n_ops,
                                                             "geomean_speedup", ceiling)));
                        json_object_set_new(table, key, row);
                } else
                        json_decref(row);
        }
        return table;
}

/*
 * The "Against the experts" section: per operator with an expert, each
 * full arm's best of the first seed against the expert, and how many come
 * within 15% of the expert's latency (issue #27's corpus target).
 */
static void print_expert_gaps(const json_t *runs, FILE *md)
{
        const json_t *run;
        size_t i, n = 0, within = 0;

        json_array_foreach(runs, i, run)
        {
                const json_t *e = json_object_get(run, "expert"), *g;
                double best = json_number_value(json_object_get(e, "best_us"));
                double expert = json_number_value(json_object_get(e, "expert_us"));
                size_t k;

                if (!e || best <= 0 || expert <= 0)
                        continue;
                if (n++ == 0)
                        fprintf(md, "\n### Against the experts\n\nThe best of each full arm "
                                    "(first seed) against the operator's expert on the same "
                                    "cases; the differences are read from the two profiles "
                                    "(optimizer/gap.c), largest first, with the kernel time "
                                    "each explains.\n\n| operator | strategy | best us | "
                                    "expert us | best / expert | roofline best | roofline "
                                    "expert | differences |\n|---|---|---:|---:|---:|---:|---:|"
                                    "---|\n");
                within += best <= 1.15 * expert;
                fprintf(md, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | ",
                        json_string_value(json_object_get(run, "operator")),
                        json_string_value(json_object_get(run, "arm")), best, expert, best / expert,
                        json_number_value(json_object_get(e, "best_roofline")),
                        json_number_value(json_object_get(e, "expert_roofline")));
                json_array_foreach(json_object_get(e, "gaps"), k, g)
                {
                        fprintf(md, "%s%s (%.2f us): %s", k ? "; " : "",
                                json_string_value(json_object_get(g, "kind")),
                                json_number_value(json_object_get(g, "us")),
                                json_string_value(json_object_get(g, "detail")));
                }
                fprintf(md, "%s |\n", json_array_size(json_object_get(e, "gaps")) ? "" : "none");
        }
        if (n) {
                fprintf(md, "\n%zu of %zu within 15%% of the expert's latency.\n", within, n);
                printf("  against the experts: %zu of %zu bests within 15%% of the expert's "
                       "latency\n",
                       within, n);
        }
}

/*
 * The "What the roofline leaves out" section: per operator, each arm's
 * best of the first seed against the ceiling its own vector work and
 * launch allow (optimizer/gap.h), and the means; a vector-bound operator
 * goes past its ceiling only with fewer or cheaper vector instructions.
 */
static void print_ceilings(const json_t *runs, int first_seed, FILE *md)
{
        const json_t *run;
        size_t i, n = 0, bound = 0;
        double after = 0, ceiling = 0;

        json_array_foreach(runs, i, run)
        {
                const json_t *c = json_object_get(run, "ceiling");
                if (!c || json_integer_value(json_object_get(run, "seed")) != first_seed)
                        continue;
                if (n++ == 0)
                        fprintf(md,
                                "\n### What the roofline leaves out\n\nThe roofline counts only "
                                "the bytes at the HBM peak.  The ceiling is the most of it a "
                                "kernel doing the best's vector work (bank conflicts aside) "
                                "under its copies, with the best's launch, can reach "
                                "(optimizer/gap.h); first seed.\n\n| operator | strategy | "
                                "roofline after | ceiling | of the ceiling | vector us | "
                                "launch us | bound |\n|---|---|---:|---:|---:|---:|---:|---|\n");
                after += json_number_value(json_object_get(run, "roofline_after"));
                ceiling += json_number_value(json_object_get(c, "fraction"));
                bound += json_is_true(json_object_get(c, "vector_bound"));
                fprintf(md, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n",
                        json_string_value(json_object_get(run, "operator")),
                        json_string_value(json_object_get(run, "arm")),
                        json_number_value(json_object_get(run, "roofline_after")),
                        json_number_value(json_object_get(c, "fraction")),
                        json_number_value(json_object_get(c, "reached")),
                        json_number_value(json_object_get(c, "vector_us")),
                        json_number_value(json_object_get(c, "launch_us")),
                        json_is_true(json_object_get(c, "vector_bound")) ? "vector" : "memory");
        }
        if (n) {
                fprintf(
                    md,
                    "\nMean over %zu runs: roofline after %.3f, ceiling %.3f; %zu vector-bound.\n",
                    n, after / (double)n, ceiling / (double)n, bound);
                printf("  roofline after %.3f against a ceiling of %.3f (%zu runs, %zu "
                       "vector-bound)\n",
                       after / (double)n, ceiling / (double)n, n, bound);
        }
}

/* ------------------------------------------------------------ retrieval precision@3 */

struct probe {
        json_t *result;
        bool done;
};

static void on_probe(json_t *result, bool memo_hit, void *userdata)
{
        struct probe *p = userdata;

        (void)memo_hit;
        p->result = result;
        p->done = true;
}

static json_t *evaluate_now(struct event_base *base, struct npu_evaluator *ev,
                            const struct npu_request *req)
{
        struct probe p = { 0 };

        if (npu_evaluate(ev, req, on_probe, &p, NULL) < 0)
                return NULL;
        while (!p.done)
                event_base_loop(base, EVLOOP_ONCE);
        return p.result;
}

/* Reads the operator's op_kernel and op_host sources as a motif file set (texts owned). */
static size_t read_sources(const char *opdir, struct motif_file *files, size_t max)
{
        static const char *const subs[] = { "op_kernel", "op_host" };
        size_t n = 0;

        for (size_t s = 0; s < 2; s++) {
                char dir[PATH_MAX];
                DIR *d;
                struct dirent *e;
                snprintf(dir, sizeof(dir), "%s/%s", opdir, subs[s]);
                d = opendir(dir);
                while (d && (e = readdir(d)) && n < max) {
                        char path[PATH_MAX + 300], rel[300];
                        FILE *f;
                        long len;
                        char *text;
                        if (e->d_name[0] == '.')
                                continue;
                        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                        snprintf(rel, sizeof(rel), "%s/%s", subs[s], e->d_name);
                        f = fopen(path, "re");
                        if (!f)
                                continue;
                        fseek(f, 0, SEEK_END);
                        len = ftell(f);
                        rewind(f);
                        text = len >= 0 ? calloc(1, (size_t)len + 1) : NULL;
                        if (text && fread(text, 1, (size_t)len, f) == (size_t)len) {
                                files[n].path = strdup(rel);
                                files[n].text = text;
                                n++;
                        } else {
                                free(text);
                        }
                        fclose(f);
                }
                if (d)
                        closedir(d);
        }
        return n;
}

/*
 * The arm's best against the operator's expert (issue #27): both latencies
 * and roofline fractions on the full cases, and the structural differences
 * between their profiles (optimizer/gap.c).  NULL when the operator has no
 * expert or either cannot be measured.
 */
static json_t *against_expert(struct event_base *base, const struct arm *a, const char *opdir)
{
        struct motif_file files[32];
        struct npu_override overrides[32];
        struct npu_manifest *m = NULL;
        const struct episode_point *point;
        json_t *best = NULL, *expert = NULL, *gaps = NULL, *facts = NULL;
        char dir[PATH_MAX], err[1024];
        size_t n = 0;

        if (!rewind_has_expert(opdir) ||
            snprintf(dir, sizeof(dir), "%s/expert", opdir) >= (int)sizeof(dir))
                goto out;
        /* no candidate beat the baseline: the baseline is the best */
        point = a->s.best.identity ? &a->s.best : &a->s.baseline;
        if (!point->identity || store_candidate_get(a->store, point->identity, &best) < 0 ||
            npu_manifest_load(opdir, &m, err, sizeof(err)) < 0) {
                fprintf(stderr, "  %s: the best's result is not in the store\n", opdir);
                goto out;
        }
        n = read_sources(dir, files, 32);
        for (size_t i = 0; i < n; i++)
                overrides[i] =
                    (struct npu_override){ .path = files[i].path, .text = files[i].text };
        expert =
            evaluate_now(base, a->evaluator,
                         &(struct npu_request){
                             .manifest = m, .overrides = overrides, .n_overrides = n, .seed = 1 });
        if (!expert || strcmp(json_string_value(json_object_get(expert, "status")) ?: "", "ok")) {
                fprintf(stderr, "  %s: the expert did not run: %s\n", opdir,
                        expert ? json_string_value(json_object_get(expert, "status"))
                               : "no result");
                goto out;
        }
        if (profile_gap(json_object_get(best, "profile"), json_object_get(expert, "profile"),
                        &gaps) < 0) {
                fprintf(stderr, "  %s: no profile to compare with the expert's\n", opdir);
                goto out;
        }
        facts = packed(json_pack(
            "{s:f, s:f, s:f, s:f, s:O}", "best_us",
            json_number_value(json_object_get(best, "latency_us")), "expert_us",
            json_number_value(json_object_get(expert, "latency_us")), "best_roofline",
            json_number_value(json_object_get(best, "roofline_fraction")), "expert_roofline",
            json_number_value(json_object_get(expert, "roofline_fraction")), "gaps", gaps));
out:
        for (size_t i = 0; i < n; i++) {
                free((char *)files[i].path);
                free((char *)files[i].text);
        }
        npu_manifest_free(m);
        json_decref(best);
        json_decref(expert);
        json_decref(gaps);
        return facts;
}

/*
 * Of the first three actions of a plan (bank-guided, leave-one-out; or
 * random), how many make the baseline correct and faster.
 */
static int precision_at_3(struct event_base *base, struct npu_evaluator *ev,
                          const struct npu_manifest *m, const json_t *reference, double base_us,
                          const json_t *plan, const struct motif_file *files, size_t n_files,
                          int *ret_picked, char *picks, size_t picks_size)
{
        int hits = 0, picked = 0;
        const json_t *action;
        size_t i;

        json_array_foreach(plan, i, action)
        {
                struct motif_file *changed = NULL;
                size_t n_changed = 0;
                struct npu_override overrides[16];
                struct npu_request req = { .manifest = m, .seed = 1, .reference = reference };
                json_t *result;

                if (picked == 3)
                        break;
                if (json_integer_value(json_object_get(action, "site")) >= 0)
                        continue; /* single-site retries are not retrieval picks */
                if (stage2_apply(action, files, n_files, &changed, &n_changed) < 0 || !n_changed ||
                    n_changed > 16) {
                        motif_files_free(changed, n_changed);
                        continue;
                }
                for (size_t c = 0; c < n_changed; c++) {
                        overrides[c].path = changed[c].path;
                        overrides[c].text = changed[c].text;
                }
                req.overrides = overrides;
                req.n_overrides = n_changed;
                picked++;
                result = evaluate_now(base, ev, &req);
                bool hit =
                    result &&
                    strcmp(json_string_value(json_object_get(result, "status")) ?: "", "ok") == 0 &&
                    json_number_value(json_object_get(result, "latency_us")) < base_us;
                hits += hit;
                snprintf(picks + strlen(picks), picks_size - strlen(picks), "%s%s%s",
                         *picks ? " " : "", json_string_value(json_object_get(action, "motif")),
                         hit ? "+" : "-");
                json_decref(result);
                motif_files_free(changed, n_changed);
        }
        *ret_picked = picked;
        return hits;
}

/* precision@3 of bank-guided retrieval (leave-one-out) against random picks, over ops. */
static json_t *measure_retrieval(struct event_base *base, struct arm *arm, char ops[][PATH_MAX],
                                 size_t n_ops, FILE *md)
{
        int hits[2] = { 0 }, picked[2] = { 0 };

        printf("\n  retrieval: precision@3 of the first three planned motifs on each baseline\n");
        for (size_t i = 0; i < n_ops; i++) {
                struct npu_manifest *m = NULL;
                struct motif_file files[64];
                size_t n_files = read_sources(ops[i], files, 64);
                struct npu_request req = { .seed = 1, .keep_outputs = true, .bypass_memo = true };
                json_t *reference = NULL;
                char err[512];
                int h[2], p[2];
                char picks[2][256] = { "", "" };

                if (npu_manifest_load(ops[i], &m, err, sizeof(err)) == 0) {
                        req.manifest = m;
                        reference = evaluate_now(base, arm->evaluator, &req);
                }
                if (reference &&
                    strcmp(json_string_value(json_object_get(reference, "status")) ?: "", "ok") ==
                        0) {
                        double base_us =
                            json_number_value(json_object_get(reference, "latency_us"));
                        uint64_t rng = 12345 + i;
                        for (int mode = 0; mode < 2; mode++) {
                                struct stage2_plan_options o = {
                                        .store = arm->store,
                                        .signature = json_string_value(
                                            json_object_get(reference, "bottleneck")),
                                        .operator_name = m->name,
                                        .top_k = 3,
                                        .leave_one_out = true,
                                        .mode = mode == 0 ? STAGE2_GUIDED : STAGE2_RANDOM,
                                        .rng = &rng,
                                };
                                json_t *plan = NULL;
                                h[mode] = p[mode] = 0;
                                if (stage2_plan(&o, files, n_files, &plan, NULL) == 0)
                                        h[mode] =
                                            precision_at_3(base, arm->evaluator, m, reference,
                                                           base_us, plan, files, n_files, &p[mode],
                                                           picks[mode], sizeof(picks[mode]));
                                json_decref(plan);
                                hits[mode] += h[mode];
                                picked[mode] += p[mode];
                        }
                        printf("    %-32s bank %d/%d (%s), random %d/%d (%s)\n", ops[i], h[0], p[0],
                               picks[0], h[1], p[1], picks[1]);
                }
                if (reference)
                        rm_rf(json_string_value(json_object_get(reference, "scratch_dir")));
                json_decref(reference);
                npu_manifest_free(m);
                for (size_t f = 0; f < n_files; f++) {
                        free((char *)files[f].path);
                        free((char *)files[f].text);
                }
        }
        printf("  precision@3: bank %.2f (%d of %d), random %.2f (%d of %d)\n",
               picked[0] ? (double)hits[0] / picked[0] : 0, hits[0], picked[0],
               picked[1] ? (double)hits[1] / picked[1] : 0, hits[1], picked[1]);
        fprintf(md,
                "\n### Retrieval\n\nprecision@3 (the first three motifs planned for each "
                "baseline, leave-one-out, that make it correct and faster): bank %.2f (%d of "
                "%d), random %.2f (%d of %d).\n",
                picked[0] ? (double)hits[0] / picked[0] : 0, hits[0], picked[0],
                picked[1] ? (double)hits[1] / picked[1] : 0, hits[1], picked[1]);
        return packed(json_pack("{s:f, s:i, s:f, s:i}", "bank",
                                picked[0] ? (double)hits[0] / picked[0] : 0, "bank_picks",
                                picked[0], "random", picked[1] ? (double)hits[1] / picked[1] : 0,
                                "random_picks", picked[1]));
}

#define MAX_ARMS 8

int main(void)
{
        static char ops[MAX_OPS][PATH_MAX];
        char root[PATH_MAX - 128], err[1024];
        struct event_base *base = event_base_new();
        struct child_runner *runner = NULL;
        struct npu_sim_paths paths = { 0 };
        struct arm arms[MAX_ARMS];
        const char *names = getenv("BENCH_STRATEGIES") && *getenv("BENCH_STRATEGIES")
                                ? getenv("BENCH_STRATEGIES")
                                : "stage1 bon stage2 full evolve stage2-random full-loo";
        int seeds = getenv("BENCH_SEEDS") ? atoi(getenv("BENCH_SEEDS")) : 3;
        int budget = getenv("BENCH_BUDGET") ? atoi(getenv("BENCH_BUDGET")) : 40;
        /* seeds first_seed .. first_seed + seeds - 1: one table can be run in parts */
        int first_seed = getenv("BENCH_FIRST_SEED") ? atoi(getenv("BENCH_FIRST_SEED")) : 1;
        /* full's turn_patience (episode.h); 0, the default's, unless said */
        int turn_patience = getenv("BENCH_TURN_PATIENCE") ? atoi(getenv("BENCH_TURN_PATIENCE")) : 0;
        /* the stage full's alternation starts with (episode.h); 1, the default's, unless said */
        int first_stage = getenv("BENCH_FIRST_STAGE") ? atoi(getenv("BENCH_FIRST_STAGE")) : 1;
        size_t n_ops = list_ops(ops), n_arms = 0;
        json_t *reused = load_reused_runs(budget);
        json_t *per_op = json_array(), *summary, *bank = NULL, *arms_json, *runs = json_array();
        json_t *table, *retrieval = json_null();
        const char *bank_path =
            getenv("BENCH_BANK") ? getenv("BENCH_BANK") : "etc/ascendopt/seed-bank.json";
        const char *out = getenv("BENCH_OUT") && *getenv("BENCH_OUT") ? getenv("BENCH_OUT")
                                                                      : "build/bench-strategies";
        char out_path[PATH_MAX];
        int levels[MAX_OPS];
        FILE *md;
        char *line, *copy = strdup(names), *save = NULL;

        memset(arms, 0, sizeof(arms));
        snprintf(root, sizeof(root), "%s/ascendopt-bench-optimize-XXXXXX",
                 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        for (char *t = strtok_r(copy, " ", &save); t && n_arms < MAX_ARMS;
             t = strtok_r(NULL, " ", &save)) {
                if (strcmp(t, "full-loo") == 0) {
                        arms[n_arms].strategy = EPISODE_FULL;
                        arms[n_arms].leave_one_out = true;
                        arms[n_arms].name = "full-loo";
                        n_arms++;
                        continue;
                }
                if (episode_strategy_from_name(t, &arms[n_arms].strategy) < 0) {
                        fprintf(stderr, "bench_optimize: unknown strategy %s\n", t);
                        return 1;
                }
                arms[n_arms].name = episode_strategy_name(arms[n_arms].strategy);
                n_arms++;
        }
        free(copy);
        if (*bank_path && (getenv("BENCH_BANK") || access(bank_path, R_OK) == 0)) {
                json_t *doc = json_load_file(bank_path, 0, NULL);
                bank = json_incref(json_object_get(doc, "entries"));
                json_decref(doc);
                if (!json_is_array(bank)) {
                        fprintf(stderr, "bench_optimize: %s: no \"entries\" array\n", bank_path);
                        return 1;
                }
        }
        for (size_t i = 0; i < n_ops; i++) {
                struct npu_manifest *m = NULL;
                levels[i] = npu_manifest_load(ops[i], &m, err, sizeof(err)) == 0 ? m->level : 0;
                npu_manifest_free(m);
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
        if (seeds < 1 || seeds > MAX_SEEDS) {
                fprintf(stderr, "bench_optimize: BENCH_SEEDS must be 1 to %d\n", MAX_SEEDS);
                return 1;
        }
        for (size_t a = 0; a < n_arms; a++)
                if (arm_use_seed(&arms[a], 0, root, base, runner, &paths, bank) < 0)
                        return 1;
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
                for (int seed = first_seed; seed < first_seed + seeds; seed++) {
                        char ids[MAX_ARMS][PATH_MAX + 64];
                        double start = now_s();
                        bool started[MAX_ARMS] = { false }, idle[MAX_ARMS] = { false };
                        bool all = true, any_idle = false, waiting;
                        const struct episode_point *baseline = NULL;
                        const json_t *reuse[MAX_ARMS] = { NULL };
                        size_t n_started = 0;
                        for (size_t a = 0; a < n_arms; a++)
                                if (arm_use_seed(&arms[a], (size_t)(seed - first_seed), root, base,
                                                 runner, &paths, bank) < 0)
                                        return 1;
                        for (size_t a = 0; a < n_arms; a++) {
                                struct episode_options o = { .id = ids[a],
                                                             .seed = (uint64_t)seed,
                                                             .budget = budget,
                                                             .strategy = arms[a].strategy,
                                                             .frozen_bank = true,
                                                             .turn_patience = turn_patience,
                                                             .first_stage = first_stage,
                                                             .leave_one_out =
                                                                 arms[a].leave_one_out };
                                snprintf(ids[a], sizeof(ids[a]), "bench-%s-%zu-s%d", arms[a].name,
                                         i, seed);
                                int r;
                                arms[a].record = NULL;
                                arms[a].s = (struct episode_summary){ 0 };
                                arms[a].nothing_to_search = false;
                                reuse[a] = find_run(reused, arms[a].name, ops[i], seed);
                                if (reuse[a])
                                        continue;
                                r = episode_start(arms[a].evaluator, arms[a].store, ops[i], &o,
                                                  NULL, on_done, &arms[a], NULL, err, sizeof(err));
                                started[a] = r == 0;
                                /* nothing to search (Best-of-N without genes): the baseline stays */
                                idle[a] = r == -ENOENT;
                                any_idle |= idle[a];
                                n_started += started[a];
                                if (!started[a] && (!idle[a] || seed == first_seed))
                                        fprintf(stderr, "  %s (%s): %s\n", ops[i], arms[a].name,
                                                err);
                                all &= started[a] || idle[a];
                        }
                        do {
                                waiting = false;
                                for (size_t a = 0; a < n_arms; a++)
                                        waiting |= started[a] && !arms[a].record;
                                if (waiting)
                                        event_base_loop(base, EVLOOP_ONCE);
                        } while (waiting);
                        for (size_t a = 0; a < n_arms; a++)
                                if (started[a] &&
                                    episode_summary_read(arms[a].record, &arms[a].s) < 0)
                                        all = false;
                        for (size_t a = 0; a < n_arms && !baseline; a++)
                                if (started[a] && arms[a].s.baseline.present)
                                        baseline = &arms[a].s.baseline;
                        /* nothing to search for any arm: each keeps the baseline, 1.0x */
                        if (all && n_started == 0 && any_idle) {
                                static const struct episode_point none;
                                baseline = &none;
                        }
                        if (!all || (any_idle && !baseline)) {
                                for (size_t a = 0; a < n_arms; a++) {
                                        episode_summary_release(&arms[a].s);
                                        json_decref(arms[a].record);
                                }
                                break;
                        }
                        /* an arm with nothing to search keeps the baseline another arm measured */
                        for (size_t a = 0; a < n_arms; a++)
                                if (idle[a]) {
                                        arms[a].nothing_to_search = true;
                                        arms[a].s.baseline = *baseline;
                                        arms[a].s.best = *baseline;
                                }
                        for (size_t a = 0; a < n_arms; a++) {
                                double seconds =
                                    started[a] ? (now_s() - start) / (double)n_started : 0;
                                double speedup;
                                if (reuse[a]) {
                                        speedup = account_reused(&arms[a], reuse[a]);
                                        json_array_append(runs, (json_t *)reuse[a]);
                                } else {
                                        json_t *facts, *gap = NULL;
                                        speedup = account(&arms[a], seconds);
                                        facts = run_facts(&arms[a], ops[i], levels[i], seed,
                                                          speedup, seconds);
                                        /* full's best against the expert, on the first seed */
                                        if (seed == first_seed && arms[a].strategy == EPISODE_FULL)
                                                gap = against_expert(base, &arms[a], ops[i]);
                                        if (gap)
                                                json_object_set_new(facts, "expert", gap);
                                        json_array_append_new(runs, facts);
                                }
                                log_op[a] += log(speedup);
                        }
                        for (size_t a = 0; a < n_arms; a++) {
                                episode_summary_release(&arms[a].s);
                                json_decref(arms[a].record);
                        }
                        ok_runs++;
                }
                if (ok_runs) {
                        json_t *row = packed(json_pack("{s:s}", "operator", ops[i]));
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
                save_progress(out, budget, seeds, runs);
        }
        arms_json = json_object();
        for (size_t a = 0; a < n_arms; a++) {
                struct arm *x = &arms[a];
                double gm = x->runs ? exp(x->log_speedup_sum / x->runs) : 0;
                json_int_t frozen = 0, checked = 0, unknown = 0;
                const json_t *run;
                size_t r;
                json_array_foreach(runs, r, run)
                {
                        json_int_t f = json_integer_value(json_object_get(run, "frozen_changed"));
                        if (strcmp(json_string_value(json_object_get(run, "arm")) ?: "", x->name))
                                continue;
                        if (!json_object_get(run, "frozen_changed") || f < 0) {
                                unknown++;
                                continue;
                        }
                        frozen += f;
                        checked += json_integer_value(json_object_get(run, "frozen_checked"));
                }
                printf(
                    "  %-14s geo-mean speedup %.3fx over %d episodes; failures %.1f%% of %d "
                    "evaluations; %.1f%% measured the best's latency again; %.2f s per "
                    "evaluation; %lld of %lld evaluated candidates changed a frozen constant%s\n",
                    x->name, gm, x->runs, x->evaluations ? 100.0 * x->failures / x->evaluations : 0,
                    x->evaluations, x->repeats_of ? 100.0 * x->repeats / x->repeats_of : 0,
                    x->evaluations ? x->seconds / x->evaluations : 0, (long long)frozen,
                    (long long)checked, unknown ? " (some episodes list no literals)" : "");
                json_object_set_new(
                    arms_json, x->name,
                    packed(json_pack(
                        "{s:f, s:i, s:i, s:f, s:f, s:I, s:I, s:I}", "geomean_speedup", gm,
                        "episodes", x->runs, "evaluations", x->evaluations, "failure_rate",
                        x->evaluations ? (double)x->failures / x->evaluations : 0.0, "repeat_rate",
                        x->repeats_of ? (double)x->repeats / x->repeats_of : 0.0, "frozen_changed",
                        frozen, "frozen_checked", checked, "frozen_unknown", unknown)));
        }
        snprintf(out_path, sizeof(out_path), "%s.md", out);
        md = fopen(out_path, "we");
        if (!md)
                md = fopen("/dev/null", "we");
        fprintf(md,
                "## Strategies on the corpus\n\nBudget %d evaluations, %d seed%s, %zu of %zu "
                "operators (a strategy with nothing to search on an operator, Best-of-N "
                "without genes, scores 1.0x there), bank of %zu entries frozen; speedup over each "
                "operator's "
                "baseline on the simulated %s.  Produced by `make bench` "
                "(bench/bench_optimize.c).\n",
                budget, seeds, seeds == 1 ? "" : "s", json_array_size(per_op), n_ops,
                bank ? json_array_size(bank) : 0, "Ascend910B2");
        table = print_table(runs, arms, n_arms, md);
        print_expert_gaps(runs, md);
        print_ceilings(runs, first_seed, md);
        if (!getenv("BENCH_RETRIEVAL") || strcmp(getenv("BENCH_RETRIEVAL"), "0") != 0) {
                json_decref(retrieval);
                retrieval = measure_retrieval(base, &arms[0], ops, n_ops, md);
        }
        fclose(md);
        summary = json_pack("{s:s, s:b, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "bench",
                            "strategies", "complete", 1, "budget", budget, "seeds", seeds,
                            "turn_patience", turn_patience, "first_stage", first_stage,
                            "strategies", arms_json, "per_operator", per_op, "table", table,
                            "retrieval", retrieval, "runs", runs);
        snprintf(out_path, sizeof(out_path), "%s.json", out);
        if (!packed(summary) || packing_failed) {
                /* the runs saved so far stay in the .json, for BENCH_REUSE */
                fprintf(stderr, "bench_optimize: out of memory; the table is incomplete\n");
        } else {
                if (json_dump_file(summary, out_path, JSON_INDENT(1)) == 0)
                        printf("  the table: %s.json and %s.md\n", out, out);
                line = json_dumps(summary, JSON_COMPACT);
                printf("%s\n", line);
                free(line);
        }
        json_decref(summary);
        json_decref(reused);
        json_decref(bank);
        for (size_t a = 0; a < n_arms; a++)
                for (size_t k = 0; k < MAX_SEEDS; k++) {
                        npu_evaluator_free(arms[a].evaluators[k]);
                        store_close(arms[a].stores[k]);
                }
        child_runner_free(runner);
        npu_sim_paths_release(&paths);
        event_base_free(base);
        rm_rf(root);
        return packing_failed ? 1 : 0;
}
