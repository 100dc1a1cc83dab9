/* SPDX-License-Identifier: MIT */
/*
 * Private to npu/sim-run.c and npu/sim-compile.c: one simulator run's
 * state (struct npu_sim_run) and the steps each file starts and ends for
 * the other.  sim-run.c drives the steps and runs the cases; sim-compile.c
 * builds the operator (the host prelude's precompiled header, every unit
 * served from the object cache or compiled, the link).
 */
#ifndef ASCENDOPT_NPU_SIM_INTERNAL_H
#define ASCENDOPT_NPU_SIM_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "sim-run.h"

#define MAX_HOST_SOURCES 32

enum eval_step {
        STEP_PRECOMPILE, /* the preludes' precompiled headers, once per cache */
        STEP_COMPILE,    /* every op_host unit and the kernel unit, in parallel */
        STEP_LINK,
        STEP_RUN,
        STEP_DONE,
};

struct npu_sim_run {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;
        const struct npu_manifest *manifest;
        struct npu_sim_run_options options;
        npu_sim_run_done_fn done;
        void *userdata;

        char work_dir[PATH_MAX];
        /* what the evaluation writes for its children (the kernel's glue,
         * the case specs): below work_dir, read-only inside the sandbox */
        char inputs_dir[PATH_MAX];
        bool work_dir_is_temporary;
        const struct npu_op_layout *layout; /* the options', else own_layout */
        struct npu_op_layout *own_layout;
        size_t n_host_sources;
        size_t compiles_pending; /* children of STEP_COMPILE, or of STEP_PRECOMPILE */
        char unit_keys[MAX_HOST_SOURCES + 1][SHA256_HEX_SIZE];
        char pch_dir[PATH_MAX];    /* holds the preludes' ascendsim/NAME.gch; "" for none */
        char pch_target[PATH_MAX]; /* where this evaluation is building them */
        bool pch_failed;           /* one of them did not build */
        unsigned cache_hits;
        bool compile_failed;   /* a unit failed to compile */
        json_t *compile_error; /* the first failing unit's diagnostics */
        size_t next_case;
        enum eval_step step;
        struct child *children[MAX_HOST_SOURCES + 1];
        bool cancelled;
        int cancel_errno; /* why the evaluation cancelled itself; 0: asked to */
        double started, compile_s, run_s;
        json_t *result;
        json_t *cases;
};

/* ---- sim-run.c */

/* Ends the run with status and error (owned) and hands the result to the callback. */
void sim_run_finish(struct npu_sim_run *e, const char *status, json_t *error);
/*
 * sim_run_finish with an error just built, such as a json_pack: NULL (out
 * of memory) ends the run as an infra_error instead, never cached.
 */
void sim_run_fail(struct npu_sim_run *e, const char *status, json_t *error);
/* Starts the next step, or finishes. */
void sim_run_advance(struct npu_sim_run *e);
/* Starts one child of the current step in slot (a compile's unit, else 0). */
int sim_run_start_child(struct npu_sim_run *e, const char *const *argv, bool sandboxed,
                        size_t slot);

/* ---- sim-compile.c */

/*
 * Uses the preludes' precompiled headers, or starts building them:
 * 1 when a build started (STEP_PRECOMPILE), else 0.
 */
int sim_precompile_start(struct npu_sim_run *e);
void sim_precompile_done(struct npu_sim_run *e, const struct child_result *r, size_t slot);
/* Compiles (or fetches from the cache) every unit, then links (STEP_COMPILE). */
int sim_compiles_start(struct npu_sim_run *e);
void sim_compile_done(struct npu_sim_run *e, const struct child_result *r, size_t slot);
int sim_link_start(struct npu_sim_run *e);
void sim_link_done(struct npu_sim_run *e, const struct child_result *r);

#endif
