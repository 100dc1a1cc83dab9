/* SPDX-License-Identifier: MIT */
/*
 * The simulated NPU: where the simulator lives, the compiler and flags of
 * every compile, one run of an operator's cases (npu/sim-run.c, its build
 * in npu/sim-compile.c) and --describe of its host code
 * (npu/sim-describe.c).  Each reports through a callback on the runner's
 * event loop.
 * Part of npu/npu.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_SIM_RUN_H
#define ASCENDOPT_NPU_SIM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "manifest.h"

/* ---------------------------------------------------------------- simulator */

/* The compiler and flags of every simulator compile (argv[0] is the compiler). */
#define NPU_SIM_COMPILE_FLAGS 8
extern const char *const npu_sim_compile_flags[NPU_SIM_COMPILE_FLAGS];
/* The same for op_host units, which also get ascendsim/host_prelude.h forced in. */
extern const char *const npu_sim_host_compile_flags[NPU_SIM_COMPILE_FLAGS];
/*
 * Compiles and links run at this added niceness, as children with
 * child_spec.throttled: a runner made with max_throttled caps how many run
 * at once (the daemon's max_parallel_compiles).
 */
#define NPU_COMPILE_NICE 10

/* The kernel unit's extra flag: basic-block counting, so scalar code costs time. */
extern const char *const npu_sim_kernel_flag;

/* Where the simulator's headers, platform files and runtime library live. */
struct npu_sim_paths {
        char *root; /* holds include/, platforms/ and libascendsim.a */
        char *include_dir;
        char *platforms_dir;
        char *library;
};

/*
 * Finds the simulator: $ASCENDOPT_SIM_DIR, else "sim" next to the running
 * program (the build tree), else the installed data directory.  -ENOENT
 * when none holds a runtime library.
 */
int npu_sim_paths_find(struct npu_sim_paths *ret);
void npu_sim_paths_release(struct npu_sim_paths *paths);

struct npu_sim_run_options {
        const char *platform; /* NULL: Ascend910B2 */
        uint64_t seed;
        int only_case;   /* index into the manifest's cases; -1 runs every case */
        bool skip_bench; /* leave out cases marked bench (quick checks) */
        bool build_only; /* compile and link, run nothing: status ok with no cases */
        /* a Chrome trace of the selected case (with only_case) or of the first
         * bench case (else the first case); NULL: none */
        const char *trace_path;
        double jitter_pct; /* seeded noise on reported latencies, to test noise handling */
        uint64_t jitter_seed;
        /* a bench case whose simulated time passes this stops with status slow; 0: never */
        double slow_after_us;
        double timeout_s; /* per compile and per run; 0: 120 s */
        struct child_limits limits;
        const char *work_dir;          /* created if missing; NULL: a temporary directory */
        bool keep_work_dir;            /* a temporary directory is removed unless this is set */
        bool sandbox;                  /* run candidates under bubblewrap when it works */
        const char *const *permissive; /* simulator rules downgraded to warnings */
        uint64_t max_instructions;     /* 0: the runtime's default */
        /*
         * Compiled units are cached here by content (NULL: no cache), so a
         * candidate that changes only op_host reuses the kernel's object.
         * cache_salt must change whenever anything outside the operator
         * that a compile depends on does (the evaluator's context digest).
         */
        const char *cache_dir;
        const char *cache_salt;
        /* build the precompiled host prelude in cache_dir when it is not there
         * (an evaluation always uses one that is) */
        bool build_prelude;
        /*
         * The host code's coverage instead of a measurement: op_host units
         * built with gcov instrumentation (never from or into the cache,
         * without the precompiled prelude), no kernel, and each case run
         * only up to its tiling function (the spec's tiling_only).  Each
         * unit's counts land beside its object, work_dir/host_N.gcda.
         */
        bool host_coverage;
        /*
         * A launch probe instead of a measurement: the kernel is neither
         * built nor linked, and each case (bench ones too) runs only up to
         * its tiling function.  Each case of the result then holds
         * "launch_sha256", the digest of what its launch would get from the
         * host code (the runtime's launch.bin), and no timing.
         */
        bool tiling_only;
        /* where the sources are (borrowed); NULL: read from the manifest's folder */
        const struct npu_op_layout *layout;
        /*
         * Inputs read from files instead of the seeded generator (the
         * operator's example data, npu/golden.h): {case name: {input name:
         * [path, one per list element]}}, paths inside work_dir.  NULL: none.
         */
        const json_t *input_files;
        /*
         * The inputs are not written into work_dir: nothing reads them back
         * (an episode's evaluation compares outputs).  Two 64 MiB inputs
         * of a bench case cost more than its simulation.
         */
        bool no_input_dump;
};

/*
 * Receives what the operator's host code registers, as the simulator
 * runtime's --describe prints it: {"op_defs": [{type, inputs, outputs
 * (each {name, param_type: required|optional|dynamic, dtypes: [names]}),
 * attrs ({name, type, required, default?}), ...}], "op_impls": [...]}
 * (owned by the callback), or NULL and a one-line error.
 */
typedef void (*npu_describe_done_fn)(json_t *description, const char *error, void *userdata);

struct npu_describe;

/*
 * Compiles opdir's op_host units for the simulator in work_dir (which must
 * exist and is left as it is), links them with the runtime and runs
 * --describe, on the runner's loop.  -ENOENT when op_host has no C++
 * source; the callback is then never called.  *ret_describe (may be NULL)
 * is valid until the callback runs.
 */
int npu_sim_describe_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                           const char *opdir, const char *work_dir, double timeout_s,
                           npu_describe_done_fn done, void *userdata,
                           struct npu_describe **ret_describe);

/* Kills the step in flight; the callback still runs, soon, with an error "cancelled". */
void npu_sim_describe_cancel(struct npu_describe *describe);

struct npu_sim_run;

/*
 * Receives the result JSON (docs/design.md, "The result of an evaluation"); ownership passes
 * to the callback.  Called once, from the event loop.
 */
typedef void (*npu_sim_run_done_fn)(json_t *result, void *userdata);

/*
 * Builds the operator for the simulator and runs its cases, asynchronously
 * on the runner's event loop.  The manifest and paths are borrowed and must
 * outlive the evaluation.  Returns -errno when nothing could be started
 * (the callback is then never called).
 */
int npu_sim_run_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                      const struct npu_manifest *manifest,
                      const struct npu_sim_run_options *options, npu_sim_run_done_fn done,
                      void *userdata, struct npu_sim_run **ret_eval);

/* Cancels a running evaluation; its callback still runs, with status infra_error. */
void npu_sim_run_cancel(struct npu_sim_run *eval);

/* ---------------------------------------------------------------- host coverage */

/*
 * Which lines of the operator's own op_host files its cases run
 * (npu/sim-coverage.c): the host code built with gcov instrumentation and
 * no kernel, every case of the manifest run up to its tiling function (the
 * bench case too: no kernel is simulated, so it costs about what a small
 * one does), then gcov.  The callback gets {"op_host/x.cpp": {"ran":
 * [lines], "not_ran": [lines]}} with only the lines that hold code (a
 * constant's definition holds none), or NULL and a one-line error.
 */
typedef void (*npu_coverage_done_fn)(json_t *coverage, const char *error, void *userdata);

struct npu_sim_coverage;

/*
 * Starts it on the runner's loop in work_dir (created; the caller removes
 * it); run_options gives the platform, seed, sandbox, limits and timeout
 * (its work_dir, cache and host_coverage are set here).  The manifest and
 * paths are borrowed.  -errno when nothing started (done is never called).
 */
int npu_sim_coverage_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                           const struct npu_manifest *manifest,
                           const struct npu_sim_run_options *run_options, const char *work_dir,
                           npu_coverage_done_fn done, void *userdata,
                           struct npu_sim_coverage **ret);
/* Kills its children; the callback still runs, with an error. */
void npu_sim_coverage_cancel(struct npu_sim_coverage *coverage);

#endif
