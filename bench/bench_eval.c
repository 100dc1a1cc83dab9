/* SPDX-License-Identifier: MIT */
/*
 * Benchmark of evaluation on the simulator, per operator: a cold compile
 * and run of the small cases, and a Stage I-style evaluation (one op_host
 * file changed, the kernel's object served from the cache), measured side
 * by side in one run.  Operators: every directory given on the command
 * line, else every operator under tests/ops/ok and examples/ops/level1.  Prints a table and
 * one JSON line.
 */
#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_OPS 128

struct outcome {
        json_t *result;
        bool done;
};

static double now_s(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        (void)memo_hit;
        o->result = result;
        o->done = true;
}

static json_t *evaluate(struct event_base *base, struct npu_evaluator *ev,
                        const struct npu_manifest *m, const struct npu_override *o, size_t n,
                        double *ret_wall)
{
        struct npu_request req = { .manifest = m,
                                   .overrides = o,
                                   .n_overrides = n,
                                   .seed = 1,
                                   .bypass_memo = true,
                                   .skip_bench = true };
        struct outcome out = { 0 };
        double start = now_s();

        if (npu_evaluate(ev, &req, on_done, &out, NULL) < 0)
                return NULL;
        while (!out.done)
                event_base_loop(base, EVLOOP_ONCE);
        *ret_wall = now_s() - start;
        return out.result;
}

static int compare_doubles(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* The first op_host .cpp of an operator with a comment appended: a new tiling program. */
static char *host_variant(const struct npu_manifest *m, char *rel, size_t size)
{
        char dir[PATH_MAX], path[PATH_MAX + 300];
        struct dirent *e;
        char *text = NULL;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/op_host", m->dir);
        d = opendir(dir);
        while (d && (e = readdir(d))) {
                size_t len = strlen(e->d_name);
                FILE *f;
                long n;
                if (len < 5 || strcmp(e->d_name + len - 4, ".cpp") != 0)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                snprintf(rel, size, "op_host/%s", e->d_name);
                f = fopen(path, "r");
                if (!f)
                        break;
                fseek(f, 0, SEEK_END);
                n = ftell(f);
                fseek(f, 0, SEEK_SET);
                text = calloc(1, (size_t)n + 64);
                if (text && fread(text, 1, (size_t)n, f) == (size_t)n)
                        strcat(text, "\n// bench: a new candidate\n");
                fclose(f);
                break;
        }
        if (d)
                closedir(d);
        return text;
}

static size_t list_ops(int argc, char **argv, char ops[][PATH_MAX])
{
        const char *roots[] = { "tests/ops/ok", "examples/ops/level1" };
        size_t n = 0;

        for (int i = 1; i < argc && n < MAX_OPS; i++)
                snprintf(ops[n++], PATH_MAX, "%s", argv[i]);
        for (size_t r = 0; argc < 2 && r < 2; r++) {
                DIR *d = opendir(roots[r]);
                struct dirent *e;
                while (d && (e = readdir(d)) && n < MAX_OPS)
                        if (e->d_name[0] != '.')
                                snprintf(ops[n++], PATH_MAX, "%s/%s", roots[r], e->d_name);
                if (d)
                        closedir(d);
        }
        return n;
}

int main(int argc, char **argv)
{
        static char ops[MAX_OPS][PATH_MAX];
        char root[] = "/tmp/ascendopt-bench-eval-XXXXXX", dir[PATH_MAX], cache[PATH_MAX];
        char err[1024];
        struct event_base *base = event_base_new();
        struct child_runner *runner = NULL;
        struct npu_sim_paths paths = { 0 };
        struct npu_evaluator *ev = NULL;
        struct store *store = NULL;
        struct npu_evaluator_options options = { 0 };
        double cold[MAX_OPS], stage1[MAX_OPS];
        size_t n_ops, measured = 0;
        bool out_of_memory = false;
        json_t *report = json_array();

        if (!mkdtemp(root) || child_runner_new(base, NULL, &runner) < 0 ||
            npu_sim_paths_find(&paths) < 0) {
                fprintf(stderr, "bench_eval: cannot set up (is the simulator built?)\n");
                return 1;
        }
        snprintf(dir, sizeof(dir), "%s/store", root);
        snprintf(cache, sizeof(cache), "%s/cache", root);
        if (store_open(dir, &store, err, sizeof(err)) < 0) {
                fprintf(stderr, "bench_eval: %s\n", err);
                return 1;
        }
        snprintf(dir, sizeof(dir), "%s/scratch", root);
        options.base = base;
        options.scratch_dir = dir;
        options.cache_dir = cache;
        options.timeout_s = 300;
        if (npu_evaluator_new(runner, &paths, store, &options, &ev, err, sizeof(err)) < 0) {
                fprintf(stderr, "bench_eval: %s\n", err);
                return 1;
        }
        n_ops = list_ops(argc, argv, ops);
        printf("evaluation on the simulator, small cases (bench cases left out)\n");
        printf("  %-28s %10s %10s %14s %10s %8s\n", "operator", "cold (s)", "compile",
               "stage I (s)", "compile", "run");
        for (size_t i = 0; i < n_ops; i++) {
                struct npu_manifest *m = NULL;
                struct npu_override o;
                char rel[PATH_MAX];
                char *text;
                json_t *first, *second;
                double t1 = 0, t2 = 0;

                if (npu_manifest_load(ops[i], &m, err, sizeof(err)) < 0)
                        continue;
                first = evaluate(base, ev, m, NULL, 0, &t1);
                text = host_variant(m, rel, sizeof(rel));
                o.path = rel;
                o.text = text;
                second = text ? evaluate(base, ev, m, &o, 1, &t2) : NULL;
                if (first && second &&
                    strcmp(json_string_value(json_object_get(first, "status")), "ok") == 0) {
                        cold[measured] = t1;
                        stage1[measured] = t2;
                        measured++;
                        printf("  %-28s %10.3f %10.3f %14.3f %10.3f %8.3f\n", m->name, t1,
                               json_number_value(json_object_get(first, "compile_s")), t2,
                               json_number_value(json_object_get(second, "compile_s")),
                               json_number_value(json_object_get(second, "run_s")));
                        if (json_array_append_new(
                                report,
                                json_pack("{s:s, s:f, s:f, s:f}", "operator", m->name, "cold_s", t1,
                                          "compile_s",
                                          json_number_value(json_object_get(first, "compile_s")),
                                          "stage1_s", t2)) < 0)
                                out_of_memory = true;
                }
                free(text);
                json_decref(first);
                json_decref(second);
                npu_manifest_free(m);
        }
        if (measured) {
                json_t *summary;
                char *line;
                qsort(cold, measured, sizeof(*cold), compare_doubles);
                qsort(stage1, measured, sizeof(*stage1), compare_doubles);
                printf("  median over %zu operators: cold %.3f s, stage I evaluation %.3f s "
                       "(%.2fx faster)\n",
                       measured, cold[measured / 2], stage1[measured / 2],
                       cold[measured / 2] / stage1[measured / 2]);
                summary =
                    json_pack("{s:s, s:i, s:f, s:f, s:o}", "bench", "evaluation", "operators",
                              (int)measured, "median_cold_s", cold[measured / 2], "median_stage1_s",
                              stage1[measured / 2], "per_operator", report);
                line = summary && !out_of_memory ? json_dumps(summary, JSON_COMPACT) : NULL;
                if (line)
                        printf("%s\n", line);
                else
                        out_of_memory = true;
                free(line);
                json_decref(summary);
        } else {
                json_decref(report);
        }
        npu_evaluator_free(ev);
        store_close(store);
        child_runner_free(runner);
        npu_sim_paths_release(&paths);
        event_base_free(base);
        rm_rf(root);
        if (out_of_memory)
                fprintf(stderr, "bench_eval: out of memory\n");
        return measured && !out_of_memory ? 0 : 1;
}
