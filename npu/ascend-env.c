/* SPDX-License-Identifier: MIT */
/*
 * The CANN environment: finding the toolkit's set_env.sh, sourcing it once
 * in a child shell on the runner, and keeping what it exported as an envp
 * array that every later toolchain child is started with.
 */
#include "ascend-env.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define ENV_MAX_VARS   4096
#define ENV_OUTPUT_CAP (4u << 20)

static bool is_file(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ------------------------------------------------------------ toolkit */

/* Appends ", PATH" to the list of places looked at. */
static void note_looked(char *looked, size_t size, const char *path)
{
        size_t len = strlen(looked);

        if (len + 3 < size)
                snprintf(looked + len, size - len, "%s%.*s", len ? ", " : "", (int)(size - len),
                         path);
}

static int try_root(const char *root, struct ascend_toolkit *ret, char *looked, size_t size)
{
        static const char *const relative[] = { "set_env.sh", "../set_env.sh", "cann/set_env.sh" };
        char path[PATH_MAX];

        for (size_t i = 0; i < ARRAY_SIZE(relative); i++) {
                if (format_path(path, sizeof(path), "%s/%s", root, relative[i]) < 0)
                        continue;
                note_looked(looked, size, path);
                if (!is_file(path))
                        continue;
                ret->set_env = realpath(path, NULL);
                ret->root = realpath(root, NULL);
                if (!ret->set_env || !ret->root) {
                        ascend_toolkit_release(ret);
                        return -ENOMEM;
                }
                /* R/cann/set_env.sh: the toolkit is R/cann */
                if (i == 2) {
                        char *slash = strrchr(ret->set_env, '/');
                        free(ret->root);
                        ret->root = strndup(ret->set_env, (size_t)(slash - ret->set_env));
                        if (!ret->root) {
                                ascend_toolkit_release(ret);
                                return -ENOMEM;
                        }
                }
                return 0;
        }
        return -ENOENT;
}

int ascend_toolkit_find(const char *configured, const char *home_path, const char *const *defaults,
                        struct ascend_toolkit *ret, char *err, size_t err_size)
{
        struct ascend_toolkit found = { 0 };
        char looked[3072] = "";
        const char *from;
        int r = -ENOENT;

        if (configured && *configured) {
                from = "the configured toolkit";
                if (is_file(configured)) {
                        /* the set_env.sh itself: its directory is the root */
                        char *slash;
                        found.set_env = realpath(configured, NULL);
                        if (!found.set_env)
                                return -ENOMEM;
                        slash = strrchr(found.set_env, '/');
                        found.root = strndup(found.set_env, (size_t)(slash - found.set_env));
                        if (!found.root) {
                                ascend_toolkit_release(&found);
                                return -ENOMEM;
                        }
                        r = 0;
                } else {
                        r = try_root(configured, &found, looked, sizeof(looked));
                }
        } else if (home_path && *home_path) {
                from = "$ASCEND_HOME_PATH";
                r = try_root(home_path, &found, looked, sizeof(looked));
        } else {
                from = "the default locations";
                for (const char *const *d = defaults ? defaults : ASCEND_DEFAULT_TOOLKITS;
                     *d && r == -ENOENT; d++)
                        r = try_root(*d, &found, looked, sizeof(looked));
        }
        if (r == -ENOENT)
                snprintf(err, err_size,
                         "CANN toolkit not found: no set_env.sh in %s (looked at %s); install "
                         "the toolkit, or set the ascend toolkit path in the config or "
                         "ASCEND_HOME_PATH",
                         from, looked);
        if (r < 0)
                return r;
        *ret = found;
        return 0;
}

void ascend_toolkit_release(struct ascend_toolkit *toolkit)
{
        if (!toolkit)
                return;
        free(toolkit->root);
        free(toolkit->set_env);
        toolkit->root = toolkit->set_env = NULL;
}

/* ------------------------------------------------------------ envp */

static int env_reserve(struct ascend_env *env, size_t extra)
{
        size_t want = env->n + extra + 1;
        char **grown;

        if (want <= env->capacity)
                return 0;
        if (want > ENV_MAX_VARS)
                return -E2BIG;
        want = want < 64 ? 64 : want * 2;
        grown = realloc(env->envp, want * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        env->envp = grown;
        env->capacity = want;
        return 0;
}

static int env_new(struct ascend_env **ret)
{
        struct ascend_env *env = calloc(1, sizeof(*env));

        if (!env)
                return -ENOMEM;
        if (env_reserve(env, 0) < 0) {
                free(env);
                return -ENOMEM;
        }
        env->envp[0] = NULL;
        *ret = env;
        return 0;
}

static ssize_t env_find(const struct ascend_env *env, const char *name, size_t name_len)
{
        for (size_t i = 0; i < env->n; i++)
                if (strncmp(env->envp[i], name, name_len) == 0 && env->envp[i][name_len] == '=')
                        return (ssize_t)i;
        return -1;
}

/* Adds or replaces one NAME=value record, taking ownership of it. */
static int env_put(struct ascend_env *env, char *record)
{
        size_t name_len = strcspn(record, "=");
        ssize_t at = env_find(env, record, name_len);
        int r;

        if (at >= 0) {
                free(env->envp[at]);
                env->envp[at] = record;
                return 0;
        }
        r = env_reserve(env, 1);
        if (r < 0) {
                free(record);
                return r;
        }
        env->envp[env->n++] = record;
        env->envp[env->n] = NULL;
        return 0;
}

static bool set_by_the_shell(const char *record)
{
        static const char *const names[] = { "_=", "SHLVL=", "PWD=", "OLDPWD=" };

        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
                if (strncmp(record, names[i], strlen(names[i])) == 0)
                        return true;
        return false;
}

int ascend_env_parse(const char *data, size_t len, struct ascend_env **ret_env, char *err,
                     size_t err_size)
{
        struct ascend_env *env = NULL;
        size_t pos = 0;
        int r;

        r = env_new(&env);
        if (r < 0)
                return r;
        while (pos < len) {
                const char *record = data + pos;
                size_t n = strnlen(record, len - pos);
                char *copy;

                pos += n + 1;
                if (n == 0 || !memchr(record, '=', n) || record[0] == '=' ||
                    set_by_the_shell(record))
                        continue;
                copy = strndup(record, n);
                if (!copy) {
                        r = -ENOMEM;
                        goto out;
                }
                r = env_put(env, copy);
                if (r < 0) {
                        if (r == -E2BIG)
                                snprintf(err, err_size,
                                         "the environment has more than %d "
                                         "variables",
                                         ENV_MAX_VARS);
                        goto out;
                }
        }
        if (env->n == 0) {
                snprintf(err, err_size, "no NAME=value records in the captured environment");
                r = -EINVAL;
                goto out;
        }
        *ret_env = env;
        env = NULL;
out:
        ascend_env_free(env);
        return r;
}

int ascend_env_from_envp(const char *const *envp, struct ascend_env **ret_env)
{
        struct ascend_env *env = NULL;
        int r = env_new(&env);

        if (r < 0)
                return r;
        if (!envp)
                envp = (const char *const *)environ;
        for (; envp && *envp && r == 0; envp++) {
                char *copy;
                if (!strchr(*envp, '='))
                        continue;
                copy = strdup(*envp);
                r = copy ? env_put(env, copy) : -ENOMEM;
        }
        if (r < 0) {
                ascend_env_free(env);
                return r;
        }
        *ret_env = env;
        return 0;
}

int ascend_env_copy(const struct ascend_env *env, struct ascend_env **ret_env)
{
        if (!env)
                return -EINVAL;
        return ascend_env_from_envp((const char *const *)env->envp, ret_env);
}

struct ascend_env *ascend_env_free(struct ascend_env *env)
{
        if (!env)
                return NULL;
        for (size_t i = 0; i < env->n; i++)
                free(env->envp[i]);
        free(env->envp);
        free(env);
        return NULL;
}

const char *ascend_env_get(const struct ascend_env *env, const char *name)
{
        ssize_t at;

        if (!env || !name)
                return NULL;
        at = env_find(env, name, strlen(name));
        return at < 0 ? NULL : env->envp[at] + strlen(name) + 1;
}

int ascend_env_set(struct ascend_env *env, const char *name, const char *value)
{
        char *record;

        if (!env || !name || !*name || strchr(name, '=') || !value)
                return -EINVAL;
        if (asprintf(&record, "%s=%s", name, value) < 0)
                return -ENOMEM;
        return env_put(env, record);
}

void ascend_env_unset(struct ascend_env *env, const char *name)
{
        ssize_t at;

        if (!env || !name)
                return;
        at = env_find(env, name, strlen(name));
        if (at < 0)
                return;
        free(env->envp[at]);
        memmove(&env->envp[at], &env->envp[at + 1], (env->n - (size_t)at) * sizeof(*env->envp));
        env->n--;
}

int ascend_env_prepend(struct ascend_env *env, const char *name, const char *dir)
{
        const char *old = ascend_env_get(env, name);
        char *value;
        int r;

        if (!dir || !*dir)
                return -EINVAL;
        if (old && *old) {
                if (asprintf(&value, "%s:%s", dir, old) < 0)
                        return -ENOMEM;
        } else {
                value = strdup(dir);
                if (!value)
                        return -ENOMEM;
        }
        r = ascend_env_set(env, name, value);
        free(value);
        return r;
}

int ascend_env_which(const struct ascend_env *env, const char *name, const char *const *extra_dirs,
                     char *buf, size_t size, char *err, size_t err_size)
{
        const char *path = ascend_env_get(env, "PATH");
        const char *p = path ? path : "";

        if (strchr(name, '/')) {
                if (access(name, X_OK) == 0 && is_file(name))
                        return format_path(buf, size, "%s", name);
                snprintf(err, err_size, "%s: not an executable file", name);
                return -ENOENT;
        }
        while (*p) {
                size_t len = strcspn(p, ":");
                if (len && format_path(buf, size, "%.*s/%s", (int)len, p, name) == 0 &&
                    access(buf, X_OK) == 0 && is_file(buf))
                        return 0;
                p += len;
                if (*p == ':')
                        p++;
        }
        for (const char *const *d = extra_dirs; d && *d; d++)
                if (format_path(buf, size, "%s/%s", *d, name) == 0 && access(buf, X_OK) == 0 &&
                    is_file(buf))
                        return 0;
        snprintf(err, err_size, "%s not found in the toolkit environment's PATH (%.1500s)%s", name,
                 path ? path : "unset",
                 extra_dirs && extra_dirs[0] ? " nor in the usual places" : "");
        return -ENOENT;
}

/* ------------------------------------------------------------ loading */

struct ascend_env_load {
        struct child *child;
        ascend_env_done_fn done;
        void *userdata;
        char set_env[PATH_MAX];
};

static void on_env_done(const struct child_result *r, void *userdata)
{
        struct ascend_env_load *load = userdata;
        struct ascend_env *env = NULL;
        char what[128], message[2048] = "";
        int ret = 0;

        if (r->cancelled) {
                ret = -ECANCELED;
                snprintf(message, sizeof(message), "loading %.512s: cancelled", load->set_env);
        } else if (r->timed_out || r->signal || r->exit_code != 0) {
                ret = -EIO;
                snprintf(message, sizeof(message), "sourcing %.512s in bash %s: %.1200s",
                         load->set_env, child_result_describe(r, what, sizeof(what)),
                         r->err.len ? r->err.data : "(no output)");
        } else if (r->out.truncated) {
                ret = -E2BIG;
                snprintf(message, sizeof(message),
                         "sourcing %.512s: the environment is larger than %u bytes", load->set_env,
                         ENV_OUTPUT_CAP);
        } else {
                char parse_err[512] = "";
                ret = ascend_env_parse(r->out.data, r->out.len, &env, parse_err, sizeof(parse_err));
                if (ret < 0)
                        snprintf(message, sizeof(message), "sourcing %.512s: %.512s", load->set_env,
                                 parse_err[0] ? parse_err : strerror(-ret));
                else if (!ascend_env_get(env, "ASCEND_HOME_PATH") &&
                         !ascend_env_get(env, "ASCEND_TOOLKIT_HOME") &&
                         !ascend_env_get(env, "ASCEND_OPP_PATH")) {
                        ret = -ENOENT;
                        env = ascend_env_free(env);
                        snprintf(
                            message, sizeof(message),
                            "sourcing %.512s set none of ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME "
                            "and ASCEND_OPP_PATH; is it a CANN set_env.sh?",
                            load->set_env);
                }
        }
        load->child = NULL;
        load->done(ret, env, ret < 0 ? message : NULL, load->userdata);
        free(load);
}

int ascend_env_load_start(struct child_runner *runner, const struct ascend_toolkit *toolkit,
                          const char *const *base_envp, double timeout_s, ascend_env_done_fn done,
                          void *userdata, struct ascend_env_load **ret_load)
{
        /* The script's path travels as $1, so no quoting of it is ever needed.
         * set_env.sh may print; its output is not the environment. */
        const char *argv[] = { "bash",
                               "-c",
                               ". \"$1\" >/dev/null 2>&1 </dev/null; exec env -0",
                               "ascendopt-set-env",
                               NULL,
                               NULL };
        struct child_spec spec = { 0 };
        struct ascend_env_load *load;
        int r;

        if (!runner || !toolkit || !toolkit->set_env || !done)
                return -EINVAL;
        load = calloc(1, sizeof(*load));
        if (!load)
                return -ENOMEM;
        load->done = done;
        load->userdata = userdata;
        snprintf(load->set_env, sizeof(load->set_env), "%s", toolkit->set_env);
        argv[4] = load->set_env;
        spec.argv = argv;
        spec.envp = base_envp;
        spec.cwd = "/";
        spec.timeout_s = timeout_s > 0 ? timeout_s : 60;
        spec.output_cap = ENV_OUTPUT_CAP;
        r = child_start(runner, &spec, on_env_done, load, &load->child);
        if (r < 0) {
                free(load);
                return r;
        }
        if (ret_load)
                *ret_load = load;
        return 0;
}

void ascend_env_load_cancel(struct ascend_env_load *load)
{
        if (load)
                child_cancel(load->child);
}
