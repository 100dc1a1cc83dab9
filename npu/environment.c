/* SPDX-License-Identifier: MIT */
/*
 * npu_environment_open(): the store, runner, simulator files and
 * evaluator of the daemon and of every command, opened one way, with the
 * sandbox asked for and the resource limits filled in here for all.
 */
#include "npu.h"

#include "common/common.h"
#include "config/config.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stop_at(struct npu_environment *env, enum npu_environment_stage stage, int r)
{
        env->failed = stage;
        return r;
}

int npu_environment_open_evaluator(const struct npu_environment_options *o,
                                   struct npu_environment *env, char *err, size_t err_size)
{
        struct npu_evaluator_options options = {
                .base = o->base,
                .backend = o->backend,
                .platform = o->platform,
                .scratch_dir = env->scratch_dir,
                .cache_dir = env->cache_dir[0] ? env->cache_dir : NULL,
                .timeout_s = o->timeout_s,
                .limits = env->limits,
                .sandbox = env->sandbox,
                .permissive = o->permissive,
                .jitter_pct = o->jitter_pct,
                .toolkit = o->toolkit,
                .third_lib_path = o->third_lib_path,
                .ascend_env = o->ascend_env,
        };

        int r;

        if (!env->runner || !env->store)
                return stop_at(env, NPU_ENVIRONMENT_EVALUATOR,
                               format_error(err, err_size, -EINVAL,
                                            "no evaluator without a runner and a store"));
        r = npu_evaluator_new(env->runner, o->backend == NPU_BACKEND_SIM ? &env->paths : NULL,
                              env->store, &options, &env->evaluator, err, err_size);
        return r < 0 ? stop_at(env, NPU_ENVIRONMENT_EVALUATOR, r) : 0;
}

int npu_environment_open(const struct npu_environment_options *o, struct npu_environment *env,
                         char *err, size_t err_size)
{
        struct child_runner_options runner_options = {
                .max_throttled = o->max_parallel_compiles,
                .allow_unsandboxed = o->allow_unsandboxed,
        };
        bool want_store = o->want_store || o->want_evaluator;
        bool sim = o->backend == NPU_BACKEND_SIM;
        bool needs_state_dir = (want_store && !o->store) || o->want_evaluator || o->use_cache;
        int r;

        *env = (struct npu_environment){ .limits = child_limits_or_defaults(o->limits),
                                         .sandbox = true };
        if (!o->base || (needs_state_dir && !o->state_dir))
                return stop_at(env, NPU_ENVIRONMENT_STORE,
                               format_error(err, err_size, -EINVAL,
                                            "the environment wants an event loop and a state "
                                            "directory"));
        if (o->state_dir &&
            (state_path(env->scratch_dir, sizeof(env->scratch_dir), o->state_dir, STATE_SCRATCH) <
                 0 ||
             (o->use_cache && sim &&
              state_path(env->cache_dir, sizeof(env->cache_dir), o->state_dir, STATE_CACHE) < 0)))
                return stop_at(env, NPU_ENVIRONMENT_STORE,
                               format_error(err, err_size, -ENAMETOOLONG,
                                            "%s: the state directory's path is too long",
                                            o->state_dir));
        /* a cache that cannot be written is no error, but the user should know it is not used */
        if (env->cache_dir[0] && (r = mkdir_p(env->cache_dir)) < 0) {
                log_warning("the object cache %s cannot be created (%s)%s; every unit is compiled "
                            "anew",
                            env->cache_dir, strerror(-r),
                            getenv("ASCENDOPT_CACHE_DIR") && *getenv("ASCENDOPT_CACHE_DIR")
                                ? ": check ASCENDOPT_CACHE_DIR"
                                : "");
                env->cache_dir[0] = '\0';
        }
        if (o->store) {
                env->store = o->store;
        } else if (want_store) {
                char dir[PATH_MAX];

                r = state_path(dir, sizeof(dir), o->state_dir, STATE_STORE);
                if (r == 0)
                        r = store_open(dir, &env->store, err, err_size);
                else
                        format_error(err, err_size, r, "%s: the state directory's path is too long",
                                     o->state_dir);
                if (r < 0)
                        return stop_at(env, NPU_ENVIRONMENT_STORE, r);
                env->owns_store = true;
        }
        r = child_runner_new(o->base, &runner_options, &env->runner);
        if (r < 0)
                return stop_at(env, NPU_ENVIRONMENT_RUNNER,
                               format_error(err, err_size, r,
                                            "cannot start the child-process runner: "
                                            "ascendopt-exec not found (build with 'make', "
                                            "install it, or set ASCENDOPT_EXEC_HELPER)"));
        if (sim && !child_runner_has_sandbox(env->runner) &&
            !child_runner_allows_unsandboxed(env->runner))
                return stop_at(env, NPU_ENVIRONMENT_SANDBOX,
                               format_error(err, err_size, -EPERM, "%s", CHILD_NO_SANDBOX_HELP));
        if (sim && npu_sim_paths_find(&env->paths) < 0)
                return stop_at(env, NPU_ENVIRONMENT_SIMULATOR,
                               format_error(err, err_size, -ENOENT,
                                            "the simulator runtime was not found; build it with "
                                            "'make' or set ASCENDOPT_SIM_DIR"));
        return o->want_evaluator ? npu_environment_open_evaluator(o, env, err, err_size) : 0;
}

void npu_environment_close(struct npu_environment *env)
{
        if (!env)
                return;
        env->evaluator = npu_evaluator_free(env->evaluator);
        env->runner = child_runner_free(env->runner);
        npu_sim_paths_release(&env->paths);
        if (env->owns_store)
                store_close(env->store);
        *env = (struct npu_environment){ 0 };
}

int npu_environment_run_options(const struct npu_environment *env, const char *platform,
                                double jitter_pct, struct npu_sim_run_options *options,
                                char salt[SHA256_HEX_SIZE], char *err, size_t err_size)
{
        int r;

        options->sandbox = env->sandbox;
        options->limits = env->limits;
        if (!env->cache_dir[0])
                return 0;
        r = npu_sim_context(&env->paths, platform ? platform : "Ascend910B2", jitter_pct, salt, err,
                            err_size);
        if (r < 0)
                return r;
        options->cache_dir = env->cache_dir;
        options->cache_salt = salt;
        return 0;
}
