/* SPDX-License-Identifier: MIT */
/*
 * The shared operator files and simulator fixture of the optimizer's unit
 * tests (op-fixture.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "op-fixture.h"
#include "config/config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

const char *source_dir(void)
{
        return getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".";
}

char *slurp(const char *rel)
{
        char path[512];
        FILE *f;
        char *text = calloc(1, 1 << 20);
        size_t n;

        snprintf(path, sizeof(path), "%s/%s", source_dir(), rel);
        f = fopen(path, "r");
        if (!f)
                fail_msg("cannot read %s", path);
        n = fread(text, 1, (1 << 20) - 1, f);
        text[n] = '\0';
        fclose(f);
        return text;
}

void op_load(const char *dir, struct op_files *op)
{
        static const char *const subdirs[] = { "op_kernel", "op_host" };
        char path[512];

        op->n = 0;
        for (size_t s = 0; s < 2; s++) {
                DIR *d;
                struct dirent *e;
                snprintf(path, sizeof(path), "%s/%s/%s", source_dir(), dir, subdirs[s]);
                d = opendir(path);
                assert_non_null(d);
                while ((e = readdir(d))) {
                        char rel[512], *p;
                        if (e->d_name[0] == '.')
                                continue;
                        assert_true(op->n < 16);
                        snprintf(rel, sizeof(rel), "%s/%s", dir, subdirs[s]);
                        p = malloc(strlen(subdirs[s]) + strlen(e->d_name) + 2);
                        sprintf(p, "%s/%s", subdirs[s], e->d_name);
                        snprintf(rel, sizeof(rel), "%s/%s", dir, p);
                        op->files[op->n].path = p;
                        op->files[op->n].text = slurp(rel);
                        op->n++;
                }
                closedir(d);
        }
}

void op_release(struct op_files *op)
{
        for (size_t i = 0; i < op->n; i++) {
                free((void *)op->files[i].path);
                free((void *)op->files[i].text);
        }
        op->n = 0;
}

/* Replaces the texts of the changed files (ownership of the texts passes). */
void op_update(struct op_files *op, struct motif_file *changed, size_t n)
{
        for (size_t c = 0; c < n; c++) {
                for (size_t i = 0; i < op->n; i++) {
                        if (strcmp(op->files[i].path, changed[c].path) != 0)
                                continue;
                        free((void *)op->files[i].text);
                        op->files[i].text = changed[c].text;
                        changed[c].text = NULL;
                }
        }
        motif_files_free(changed, n);
}

struct fixture *fx;

int sim_setup(void **state)
{
        struct npu_evaluator_options options = { 0 };
        char dir[128], cache[PATH_MAX], err[1024];

        fx = calloc(1, sizeof(*fx));
        snprintf(fx->root, sizeof(fx->root), "/tmp/ascendopt-opfix-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        fx->base = event_base_new();
        assert_int_equal(child_runner_new(fx->base, NULL, &fx->runner), 0);
        if (npu_sim_paths_find(&fx->paths) < 0)
                fail_msg("the simulator runtime is not built (set ASCENDOPT_SIM_DIR)");
        snprintf(dir, sizeof(dir), "%s/store", fx->root);
        assert_int_equal(store_open(dir, &fx->store, err, sizeof(err)), 0);
        snprintf(dir, sizeof(dir), "%s/scratch", fx->root);
        assert_int_equal(state_path(cache, sizeof(cache), fx->root, STATE_CACHE),
                         0); /* $ASCENDOPT_CACHE_DIR in make check */
        options.base = fx->base;
        options.scratch_dir = dir;
        options.cache_dir = cache;
        options.timeout_s = 120;
        if (npu_evaluator_new(fx->runner, &fx->paths, fx->store, &options, &fx->evaluator, err,
                              sizeof(err)) < 0)
                fail_msg("%s", err);
        *state = fx;
        return 0;
}

int sim_teardown(void **state)
{
        npu_evaluator_free(fx->evaluator);
        store_close(fx->store);
        child_runner_free(fx->runner);
        npu_sim_paths_release(&fx->paths);
        event_base_free(fx->base);
        rm_rf(fx->root);
        free(fx);
        return 0;
}

struct outcome {
        json_t *result;
        bool done;
};

static void on_done(json_t *result, bool memo_hit, void *userdata)
{
        struct outcome *o = userdata;

        o->result = result;
        o->done = true;
}

json_t *evaluate(const struct npu_manifest *manifest, const struct op_files *op,
                 const json_t *reference)
{
        struct npu_override overrides[16];
        struct npu_request req = { .manifest = manifest,
                                   .overrides = overrides,
                                   .n_overrides = op->n,
                                   .seed = 7,
                                   .reference = reference,
                                   .keep_outputs = reference == NULL,
                                   .bypass_memo = reference == NULL };
        struct outcome o = { 0 };

        for (size_t i = 0; i < op->n; i++)
                overrides[i] = (struct npu_override){ op->files[i].path, op->files[i].text };
        assert_int_equal(npu_evaluate(fx->evaluator, &req, on_done, &o, NULL), 0);
        while (!o.done)
                event_base_loop(fx->base, EVLOOP_ONCE);
        return o.result;
}

double latency(const json_t *r)
{
        return json_number_value(json_object_get(r, "latency_us"));
}
