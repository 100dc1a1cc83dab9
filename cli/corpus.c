/* SPDX-License-Identifier: MIT */
/*
 * ascendopt corpus: every operator of the corpus with its level, the
 * baseline's latency on the benchmark case and its fraction of the
 * roofline, and, where an expert version exists, the expert's latency and
 * speedup.  Results are memoized in the store, so a second run is quick.
 */
#include "cli-internal.h"

#include "config/config.h"

#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_OPS          256
#define MAX_EXPERT_FILES 32

struct outcome {
        json_t *result;
        bool done;
};

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        (void)memo_hit;
        o->result = result;
        o->done = true;
}

static bool has_manifest(const char *opdir)
{
        char manifest[PATH_MAX];

        return format_path(manifest, sizeof(manifest), "%s/ascendopt.json", opdir) == 0 &&
               access(manifest, R_OK) == 0;
}

/* The expert's files as overrides of the baseline; 0 files when there is no expert. */
static size_t expert_overrides(const char *opdir, struct npu_override *o, char **texts,
                               char paths[][PATH_MAX], size_t max)
{
        static const char *const subdirs[] = { "op_host", "op_kernel" };
        size_t n = 0;

        for (size_t s = 0; s < 2; s++) {
                char dir[PATH_MAX];
                DIR *d;
                struct dirent *e;
                if (format_path(dir, sizeof(dir), "%s/expert/%s", opdir, subdirs[s]) < 0 ||
                    !(d = opendir(dir)))
                        continue;
                while ((e = readdir(d)) && n < max) {
                        char full[PATH_MAX];
                        FILE *f;
                        long size;
                        if (e->d_name[0] == '.' ||
                            format_path(full, sizeof(full), "%s/%s", dir, e->d_name) < 0 ||
                            !(f = fopen(full, "re")))
                                continue;
                        fseek(f, 0, SEEK_END);
                        size = ftell(f);
                        fseek(f, 0, SEEK_SET);
                        texts[n] = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
                        if (texts[n] && size > 0 && fread(texts[n], 1, (size_t)size, f) > 0) {
                                snprintf(paths[n], PATH_MAX, "%s/%s", subdirs[s], e->d_name);
                                o[n].path = paths[n];
                                o[n].text = texts[n];
                                n++;
                        } else {
                                free(texts[n]);
                        }
                        fclose(f);
                }
                closedir(d);
        }
        return n;
}

static json_t *evaluate(struct event_base *base, struct npu_evaluator *ev,
                        const struct npu_manifest *m, const struct npu_override *o, size_t n)
{
        struct npu_request req = { .manifest = m, .overrides = o, .n_overrides = n, .seed = 1 };
        struct outcome out = { 0 };

        if (npu_evaluate(ev, &req, on_done, &out, NULL) < 0)
                return NULL;
        while (!out.done)
                event_base_loop(base, EVLOOP_ONCE);
        return out.result;
}

static double number(const json_t *r, const char *key)
{
        return json_number_value(json_object_get(r, key));
}

int cmd_corpus(int argc, char **argv)
{
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, 'd' },
                { "root", required_argument, NULL, 'r' },
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *state_flag = NULL, *root = "examples/ops";
        char state[PATH_MAX], err[1024];
        struct npu_environment env = { 0 };
        struct npu_evaluator *ev = NULL;
        struct event_base *base = NULL;
        char *ops[MAX_OPS];
        size_t n_ops = 0;
        json_t *rows = json_array();
        bool json_out = !isatty(STDOUT_FILENO);
        int opt, ret = EX_OK;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'd':
                        state_flag = optarg;
                        break;
                case 'r':
                        root = optarg;
                        break;
                case 'j':
                        json_out = true;
                        break;
                case 'h':
                        printf("Usage: ascendopt corpus [--root DIR] [--state-dir DIR] [--json]\n"
                               "\nLists the corpus under DIR (default examples/ops): level, "
                               "baseline latency\non the benchmark case, roofline fraction, "
                               "and the expert's latency and speedup.\n");
                        return EX_OK;
                default:
                        return cli_usage_error("corpus", "unknown option");
                }
        }
        n_ops = cli_find_operators(root, has_manifest, ops, MAX_OPS);
        if (!n_ops) {
                fprintf(stderr, "ascendopt corpus: no operator under %s (give --root)\n", root);
                json_decref(rows);
                return EX_NOINPUT;
        }
        base = event_base_new();
        if (!base) {
                ret = EX_OSERR;
                goto out;
        }
        ret = cli_open_environment("corpus",
                                   &(struct npu_environment_options){
                                       .base = base,
                                       .state_dir = cli_state_dir(state_flag, state, sizeof(state)),
                                       .want_evaluator = true,
                                       .use_cache = true,
                                       .timeout_s = 300,
                                   },
                                   &env);
        if (ret != EX_OK)
                goto out;
        ev = env.evaluator;
        if (!json_out)
                printf("  %-34s %5s %12s %8s %12s %8s\n", "OPERATOR", "LEVEL", "BASELINE us",
                       "ROOF", "EXPERT us", "SPEEDUP");
        for (size_t i = 0; i < n_ops; i++) {
                struct npu_manifest *m = NULL;
                struct npu_override o[MAX_EXPERT_FILES];
                char *texts[MAX_EXPERT_FILES];
                char(*paths_buf)[PATH_MAX] = calloc(MAX_EXPERT_FILES, PATH_MAX);
                size_t n_expert;
                json_t *baseline, *expert = NULL, *row;

                if (!paths_buf || npu_manifest_load(ops[i], &m, err, sizeof(err)) < 0) {
                        fprintf(stderr, "ascendopt corpus: %s\n", paths_buf ? err : "no memory");
                        ret = EX_DATAERR;
                        free(paths_buf);
                        continue;
                }
                baseline = evaluate(base, ev, m, NULL, 0);
                n_expert = expert_overrides(ops[i], o, texts, paths_buf, MAX_EXPERT_FILES);
                if (n_expert)
                        expert = evaluate(base, ev, m, o, n_expert);
                row = json_pack("{s:s, s:s, s:i, s:s?}", "operator", m->name, "dir", ops[i],
                                "level", m->level, "status",
                                json_string_value(json_object_get(baseline, "status")));
                if (number(baseline, "latency_us") > 0) {
                        json_object_set_new(row, "baseline_us",
                                            json_real(number(baseline, "latency_us")));
                        json_object_set_new(row, "roofline_fraction",
                                            json_real(number(baseline, "roofline_fraction")));
                }
                if (expert && number(expert, "latency_us") > 0) {
                        json_object_set_new(row, "expert_us",
                                            json_real(number(expert, "latency_us")));
                        json_object_set_new(row, "expert_roofline_fraction",
                                            json_real(number(expert, "roofline_fraction")));
                        if (number(baseline, "latency_us") > 0)
                                json_object_set_new(row, "expert_speedup",
                                                    json_real(number(baseline, "latency_us") /
                                                              number(expert, "latency_us")));
                } else if (expert) {
                        json_object_set_new(row, "expert_status",
                                            json_incref(json_object_get(expert, "status")));
                }
                if (!row) {
                        ret = cli_out_of_memory("corpus");
                } else if (!json_out) {
                        printf("  %-34s %5d ", m->name, m->level);
                        if (json_object_get(row, "baseline_us"))
                                printf("%12.2f %8.2f ", number(row, "baseline_us"),
                                       number(row, "roofline_fraction"));
                        else
                                printf("%12s %8s ",
                                       json_string_value(json_object_get(row, "status")), "-");
                        if (json_object_get(row, "expert_us"))
                                printf("%12.2f %7.2fx\n", number(row, "expert_us"),
                                       number(row, "expert_speedup"));
                        else
                                printf("%12s %8s\n", expert ? "failed" : "-", "-");
                        fflush(stdout);
                }
                json_array_append_new(rows, row);
                for (size_t k = 0; k < n_expert; k++)
                        free(texts[k]);
                json_decref(baseline);
                json_decref(expert);
                npu_manifest_free(m);
                free(paths_buf);
        }
        if (json_out)
                cli_print_json(rows);
out:
        for (size_t i = 0; i < n_ops; i++)
                free(ops[i]);
        json_decref(rows);
        npu_environment_close(&env);
        if (base)
                event_base_free(base);
        return ret;
}
