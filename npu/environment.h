/* SPDX-License-Identifier: MIT */
/*
 * The one way to open what evaluating operator code needs: the store
 * under the state directory, the child-process runner, the simulator's
 * files and the memoizing evaluator.  The daemon and every command open
 * them here, so that the sandbox and the resource limits are switched on
 * in one place for all of them.  Part of npu/npu.h, which includes it.
 */
#ifndef ASCENDOPT_NPU_ENVIRONMENT_H
#define ASCENDOPT_NPU_ENVIRONMENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/common.h"

struct event_base;
struct store;
struct ascend_env;

/* What to open, and how. */
struct npu_environment_options {
        struct event_base *base; /* the loop the runner is on (borrowed); required */
        const char *state_dir;   /* holds store/, scratch/ and cache/ */
        bool want_store;         /* open state_dir's store (unless store is given) */
        struct store *store;     /* an open store to use instead (borrowed): the daemon's */
        bool want_evaluator;     /* also make an evaluator (implies a store) */
        bool use_cache;          /* the sim's object cache in state_dir's cache/ */
        enum npu_backend backend;
        const char *platform;       /* NULL: the sim's default; ascend: the SoC, required */
        const char *toolkit;        /* ascend */
        const char *third_lib_path; /* ascend: build.sh --third_lib_path; NULL: none */
        const struct ascend_env *ascend_env; /* ascend (borrowed) */
        double timeout_s;                    /* per compile and run; 0: the evaluator's default */
        struct child_limits limits;          /* 0 members: child_limits_or_defaults() */
        size_t max_parallel_compiles;        /* the runner's max_throttled; 0: no cap */
        /*
         * The sim's children always ask for the sandbox; with none usable here
         * the environment stops at NPU_ENVIRONMENT_SANDBOX unless this is set
         * ("sandbox": "off") or ASCENDOPT_SANDBOX=off is in the environment.
         * The ascend backend's runs need the devices and are never sandboxed
         * (the config demands "sandbox": "off" for it).
         */
        bool allow_unsandboxed;
        const char *const *permissive;
        double jitter_pct;
};

/* Where npu_environment_open() stopped. */
enum npu_environment_stage {
        NPU_ENVIRONMENT_OK,
        NPU_ENVIRONMENT_STORE,     /* the store would not open (its error says why) */
        NPU_ENVIRONMENT_RUNNER,    /* ascendopt-exec was not found */
        NPU_ENVIRONMENT_SANDBOX,   /* no sandbox, none allowed off: CHILD_NO_SANDBOX_HELP */
        NPU_ENVIRONMENT_SIMULATOR, /* the simulator's runtime was not found */
        NPU_ENVIRONMENT_EVALUATOR, /* the evaluator could not be made (its error says why) */
};

struct npu_environment {
        struct store *store; /* NULL unless wanted */
        bool owns_store;
        struct child_runner *runner;
        struct npu_sim_paths paths;      /* the sim's; empty for ascend */
        struct npu_evaluator *evaluator; /* NULL unless wanted */
        struct child_limits limits;      /* the options' with the defaults filled in */
        bool sandbox;                    /* children run sandboxed (always asked for) */
        char scratch_dir[PATH_MAX];
        char cache_dir[PATH_MAX]; /* "" without a cache */
        enum npu_environment_stage failed;
};

/*
 * Opens, in this order, the store, the runner, the simulator's files and
 * the evaluator, as options want.  On failure returns -errno with a
 * message in err, sets ret->failed to the stage, and keeps what it opened
 * before it, so that the daemon can watch and queue without an evaluator;
 * npu_environment_close() releases it either way.
 */
int npu_environment_open(const struct npu_environment_options *options, struct npu_environment *ret,
                         char *err, size_t err_size);
void npu_environment_close(struct npu_environment *env);

/*
 * The evaluator step alone, for an environment opened without one: the
 * daemon makes it after probing the devices that name its platform.
 */
int npu_environment_open_evaluator(const struct npu_environment_options *options,
                                   struct npu_environment *env, char *err, size_t err_size);

/*
 * Fills what a simulator run of this environment must have: the sandbox,
 * the limits and the object cache (salted like the evaluator's, so that
 * 'ascendopt eval' shares objects with episodes).
 */
int npu_environment_run_options(const struct npu_environment *env, const char *platform,
                                double jitter_pct, struct npu_sim_run_options *options,
                                char salt[SHA256_HEX_SIZE], char *err, size_t err_size);

#endif
