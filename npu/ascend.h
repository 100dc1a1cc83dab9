/* SPDX-License-Identifier: MIT */
/*
 * The real-hardware backend's building blocks, private to npu/ and its
 * tests: npu-smi parsing, the CANN environment from set_env.sh, msprof op
 * output parsing, the custom-op project and its tool command lines, the
 * aclnn harness generator, each in its part header included below, and
 * here the asynchronous driver that chains them (npu/ascend.c).
 *
 * Nothing here has run on an NPU.  It is written from the documented
 * behaviour of npu-smi, set_env.sh, build.sh, the .run installer, aclnn and
 * msprof op (docs/real-npus.md) and tested against recorded outputs and a
 * fake toolchain (tests/fixtures/fake-cann).  Comments marked "UNTESTED ON
 * HARDWARE" name each assumption a real machine has to confirm.
 */
#ifndef ASCENDOPT_NPU_ASCEND_H
#define ASCENDOPT_NPU_ASCEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "npu/npu.h"

#include "ascend-smi.h"
#include "ascend-env.h"
#include "ascend-msprof.h"
#include "ascend-project.h"
#include "ascend-harness.h"

/* ------------------------------------------------------------ driver */

/* One case of a multi-case evaluation: which case, its input files, its seed. */
struct ascend_case_run {
        size_t case_index;         /* into the manifest's cases */
        const char *const *inputs; /* one .bin per manifest input (borrowed) */
        uint64_t seed;             /* recorded in the case's result */
};

#define ASCEND_MAX_CASE_RUNS NPU_MAX_CASES

struct ascend_eval_options {
        const char *toolkit;                 /* the config's; NULL: ASCEND_HOME_PATH, defaults */
        const char *const *toolkit_defaults; /* NULL: ASCEND_DEFAULT_TOOLKITS */
        const struct ascend_env *env;        /* a loaded environment to reuse; NULL loads one */
        const char *soc;                     /* NULL: from npu-smi's Name of the device */
        const char *repo_root;               /* see ascend_project_materialise */
        const char *third_lib_path;          /* build.sh --third_lib_path; NULL: none */
        const char *op_relpath;
        int device; /* logic id of the slot */
        /*
         * The cases to run, in order, on one build of the candidate (at most
         * ASCEND_MAX_CASE_RUNS); n_cases 0 runs the single case_index with
         * inputs and seed.
         */
        const struct ascend_case_run *cases;
        size_t n_cases;
        size_t case_index;         /* which manifest case to run when n_cases is 0 */
        const char *const *inputs; /* one .bin per manifest input, from the evaluator */
        unsigned launch_count;     /* timed launches; 0: 5 */
        unsigned warmup;           /* warm-up launches; 0 means 1 */
        uint64_t seed;             /* recorded in the result */
        double timeout_s;          /* per child; 0: 600 s */
        const char *work_dir;      /* created; NULL: a temporary directory */
        bool keep_work_dir;
        bool build_only;       /* stop after build.sh: status ok, nothing installed or run */
        const pid_t *own_pids; /* pids that are not "someone else" besides ours */
        size_t n_own_pids;
};

struct ascend_eval;

/*
 * Builds, installs and measures one candidate on one device, as a state
 * machine of children on the runner: [set_env.sh] -> [msopgen] -> build.sh
 * -> install -> harness cmake configure and build, once, then for every
 * case npu-smi info (busy check) -> msprof op running the harness ->
 * parse.  done receives the result JSON (docs/design.md) with backend "ascend": status
 * ok with cases[] (each with samples_us, latency_us, iqr_us, block_dim,
 * profile, bottleneck and its outputs), and the summary the sim gives:
 * latency_us the geometric mean over the bench cases (every case when none
 * is marked), samples_us, iqr_us, block_dim and profile of the first bench
 * case, outputs_sha256 over every case; or
 * infra_error (toolchain missing, naming what and where; device busy;
 * install failed), compile_error (the build's first error lines),
 * runtime_error (harness or msprof failure, with the tool's message),
 * unsupported (harness generation).  The manifest and options' pointers are
 * borrowed until done runs.  Returns -errno when nothing was started.
 */
int ascend_eval_start(struct child_runner *runner, const struct npu_manifest *manifest,
                      const struct ascend_eval_options *options, npu_sim_run_done_fn done,
                      void *userdata, struct ascend_eval **ret_eval);
/* Cancels; done still runs, with status infra_error. */
void ascend_eval_cancel(struct ascend_eval *eval);

#endif
