/* SPDX-License-Identifier: MIT */
/*
 * The CANN environment (npu/ascend-env.c): finding the toolkit and its
 * set_env.sh, sourcing it once in a child shell, and the captured
 * environment every later toolchain child starts with.
 * Part of npu/ascend.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_ASCEND_ENV_H
#define ASCENDOPT_NPU_ASCEND_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* ------------------------------------------------------------ environment */

/* Where the CANN toolkit is. */
struct ascend_toolkit {
        char *root;    /* e.g. /usr/local/Ascend/ascend-toolkit/latest */
        char *set_env; /* the set_env.sh that was found */
};

/* Toolkit roots tried when neither the config nor ASCEND_HOME_PATH names one. */
#define ASCEND_DEFAULT_TOOLKITS                                            \
        ((const char *const[]){ "/usr/local/Ascend/ascend-toolkit/latest", \
                                "/usr/local/Ascend/cann", NULL })

/*
 * Finds the toolkit: the configured path when given (a directory or the
 * set_env.sh itself), else home_path (the value of $ASCEND_HOME_PATH), else
 * each of defaults (NULL: ASCEND_DEFAULT_TOOLKITS).  In a root R the script
 * is looked for as R/set_env.sh, R/../set_env.sh (ascend-toolkit/latest ->
 * ascend-toolkit/set_env.sh) and R/cann/set_env.sh (CANN 9's layout).  Only
 * the first of configured / home_path / defaults that is given is searched,
 * so a wrong config is never silently replaced.  -ENOENT with a message
 * listing every path looked at.  *ret owns its strings.
 */
int ascend_toolkit_find(const char *configured, const char *home_path, const char *const *defaults,
                        struct ascend_toolkit *ret, char *err, size_t err_size);
void ascend_toolkit_release(struct ascend_toolkit *toolkit);

/* An environment as an envp array; envp is NULL-terminated and owned. */
struct ascend_env {
        char **envp;
        size_t n;
        size_t capacity;
};

/*
 * Parses `env -0` output: NAME=value records separated by NUL.  Drops the
 * variables the capturing shell itself set (_, SHLVL, PWD, OLDPWD) and
 * records without '='.  -EINVAL when nothing valid is found.
 */
int ascend_env_parse(const char *data, size_t len, struct ascend_env **ret_env, char *err,
                     size_t err_size);
/* From a NULL-terminated envp (NULL: this process's environ). */
int ascend_env_from_envp(const char *const *envp, struct ascend_env **ret_env);
int ascend_env_copy(const struct ascend_env *env, struct ascend_env **ret_env);
struct ascend_env *ascend_env_free(struct ascend_env *env);
/* Borrowed value, or NULL. */
const char *ascend_env_get(const struct ascend_env *env, const char *name);
int ascend_env_set(struct ascend_env *env, const char *name, const char *value);
/* Removes name, if set. */
void ascend_env_unset(struct ascend_env *env, const char *name);
/* Prepends dir to a ':'-separated list such as LD_LIBRARY_PATH. */
int ascend_env_prepend(struct ascend_env *env, const char *name, const char *dir);

/*
 * Looks a program up in the environment's PATH (the toolkit's, not ours),
 * then in extra_dirs (NULL-terminated, may be NULL).  Writes the absolute
 * path into buf.  -ENOENT with "NAME not found in PATH (dirs...)" in err.
 */
int ascend_env_which(const struct ascend_env *env, const char *name, const char *const *extra_dirs,
                     char *buf, size_t size, char *err, size_t err_size);

struct ascend_env_load;

/*
 * Receives the outcome of ascend_env_load_start: r == 0 and env (ownership
 * passes to the callback), or r < 0, env NULL and a message.
 */
typedef void (*ascend_env_done_fn)(int r, struct ascend_env *env, const char *message,
                                   void *userdata);

/*
 * Sources the toolkit's set_env.sh once in a child shell on the runner,
 * `bash -c '. "$1" >/dev/null 2>&1 </dev/null; exec env -0' ascendopt-set-env
 * SET_ENV`, and
 * captures the resulting environment.  base_envp is the environment the
 * shell starts from (NULL: ours).  The captured environment must define
 * ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME or ASCEND_OPP_PATH, else the load
 * fails (a set_env.sh that did nothing).  The toolkit is borrowed only for
 * this call.  Returns -errno when the child could not be started (the
 * callback is then never called).
 */
int ascend_env_load_start(struct child_runner *runner, const struct ascend_toolkit *toolkit,
                          const char *const *base_envp, double timeout_s, ascend_env_done_fn done,
                          void *userdata, struct ascend_env_load **ret_load);
/* Cancels a load; its callback still runs, with -ECANCELED. */
void ascend_env_load_cancel(struct ascend_env_load *load);

#endif
