/* SPDX-License-Identifier: MIT */
/*
 * The ascend backend's start-up in the daemon: find the CANN toolkit, load
 * its set_env.sh once (every evaluation reuses the captured environment),
 * discover the devices with `npu-smi info -l` when the config says "auto",
 * and learn their SoC from `npu-smi info`.  It runs before the daemon
 * serves anything, through the child runner, turning the loop until each
 * short child has answered.
 */
#include "daemon-internal.h"

#include "common/common.h"
#include "npu/ascend.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <event2/event.h>

#define TOOL_TIMEOUT_S    60
#define SET_ENV_TIMEOUT_S 120

/* npu-smi comes with the driver, not the toolkit: look where the driver puts it too. */
static const char *const driver_dirs[] = {
        "/usr/local/sbin", "/usr/local/bin", "/usr/local/Ascend/driver/tools",
        "/usr/sbin",       "/usr/bin",       NULL
};

/* What the start-up works with, and where it puts what it finds. */
struct ascend_start {
        struct event_base *base;
        struct child_runner *runner;
        const struct config *config;
        const char *config_path;
        struct daemon_ascend *found;
};

struct tool_run {
        bool done;
        bool ok;
        char *out;
        char how[256];
};

static void on_tool_done(const struct child_result *r, void *userdata)
{
        struct tool_run *t = userdata;
        char how[128];

        t->done = true;
        t->ok = !r->timed_out && !r->signal && r->exit_code == 0;
        t->out = strdup(r->out.data ? r->out.data : "");
        snprintf(t->how, sizeof(t->how), "%s%s%.160s", child_result_describe(r, how, sizeof(how)),
                 r->err.len ? ": " : "", r->err.len ? r->err.data : "");
        t->how[strcspn(t->how, "\n")] = '\0';
}

/* Runs a short tool to its end before the daemon serves anything. */
static int run_tool(struct ascend_start *a, const char *const *argv, struct tool_run *t)
{
        struct child_spec spec = {
                .argv = argv,
                .envp = (const char *const *)a->found->env->envp,
                .timeout_s = TOOL_TIMEOUT_S,
        };
        int r;

        memset(t, 0, sizeof(*t));
        r = child_start(a->runner, &spec, on_tool_done, t, NULL);
        if (r < 0)
                return r;
        while (!t->done)
                event_base_loop(a->base, EVLOOP_ONCE);
        return t->out ? 0 : -ENOMEM;
}

struct env_wait {
        bool done;
        int r;
        struct ascend_env *env;
        char message[1024];
};

static void on_env_loaded(int r, struct ascend_env *env, const char *message, void *userdata)
{
        struct env_wait *w = userdata;

        w->done = true;
        w->r = r;
        w->env = env;
        snprintf(w->message, sizeof(w->message), "%s", message ? message : "");
}

static int load_environment(struct ascend_start *a)
{
        struct ascend_toolkit toolkit = { 0 };
        struct env_wait wait = { 0 };
        char err[2048];
        int r;

        r = ascend_toolkit_find(a->config->toolkit, getenv("ASCEND_HOME_PATH"), NULL, &toolkit, err,
                                sizeof(err));
        if (r < 0) {
                if (a->config->toolkit)
                        log_error("%s: .toolkit: %s", a->config_path, err);
                else
                        log_error("no CANN toolkit: %s; install it, or name it in .toolkit or "
                                  "ASCEND_HOME_PATH",
                                  err);
                return -ENOENT;
        }
        r = ascend_env_load_start(a->runner, &toolkit, NULL, SET_ENV_TIMEOUT_S, on_env_loaded,
                                  &wait, NULL);
        if (r < 0) {
                log_error("cannot run %s: %s", toolkit.set_env, strerror(-r));
                ascend_toolkit_release(&toolkit);
                return r;
        }
        while (!wait.done)
                event_base_loop(a->base, EVLOOP_ONCE);
        if (wait.r < 0) {
                log_error("cannot load the CANN environment from %s: %s", toolkit.set_env,
                          wait.message);
                ascend_toolkit_release(&toolkit);
                return -ENOPKG; /* the toolkit is there but unusable */
        }
        a->found->env = wait.env;
        log_info("CANN environment loaded once from %s (ASCEND_HOME_PATH=%s)", toolkit.set_env,
                 ascend_env_get(a->found->env, "ASCEND_HOME_PATH") ?: "unset");
        ascend_toolkit_release(&toolkit);
        return 0;
}

/* The devices from `npu-smi info -l`: every chip is one slot, by logic id. */
static int discover_devices(struct ascend_start *a, const char *smi, int *ids, size_t *ret_n)
{
        const char *argv[] = { smi, "info", "-l", NULL };
        struct ascend_device_list *list = calloc(1, sizeof(*list));
        struct tool_run t;
        char err[1024], names[256] = "";
        int r;

        if (!list)
                return -ENOMEM;
        r = run_tool(a, argv, &t);
        if (r < 0 || !t.ok) {
                log_error("%s: .devices: \"auto\" needs `npu-smi info -l`, which %s",
                          a->config_path, r < 0 ? strerror(-r) : t.how);
                r = -ENODEV;
                goto out;
        }
        r = ascend_parse_device_list(t.out, list, err, sizeof(err));
        if (r < 0 || list->n == 0) {
                log_error("%s: .devices: \"auto\": npu-smi info -l: %s", a->config_path,
                          r < 0 ? err : "no devices listed");
                r = -ENODEV;
                goto out;
        }
        for (size_t i = 0; i < list->n && i < CONFIG_MAX_DEVICES; i++) {
                size_t len = strlen(names);
                ids[i] = list->devices[i].logic_id;
                snprintf(names + len, sizeof(names) - len, "%s%d (NPU %d chip %d)", i ? ", " : "",
                         list->devices[i].logic_id, list->devices[i].npu_id,
                         list->devices[i].chip_id);
        }
        *ret_n = list->n < CONFIG_MAX_DEVICES ? list->n : CONFIG_MAX_DEVICES;
        log_info("npu-smi lists %zu device%s: %s", list->n, list->n == 1 ? "" : "s", names);
        r = 0;
out:
        free(t.out);
        free(list);
        return r;
}

/* The SoC of the first device, from npu-smi info's Name; the config's when npu-smi cannot say. */
static int learn_soc(struct ascend_start *a, const char *smi, int device)
{
        const char *argv[] = { smi, "info", NULL };
        struct ascend_npu_info *info = calloc(1, sizeof(*info));
        const struct ascend_npu *npu = NULL;
        const char *soc = a->config->platform;
        struct tool_run t = { 0 };
        char err[1024];
        int r = -ENOENT;

        if (!info)
                return -ENOMEM;
        if (smi)
                r = run_tool(a, argv, &t);
        if (r == 0 && t.ok && ascend_parse_npu_info(t.out, info, err, sizeof(err)) == 0)
                npu = ascend_npu_by_logic_id(info, device);
        if (npu && npu->soc[0]) {
                if (a->config->platform_set && strcmp(npu->soc, a->config->platform) != 0)
                        log_warning("%s: .platform is %s but npu-smi reports %s for device %d; "
                                    "building for %s",
                                    a->config_path, a->config->platform, npu->soc, device,
                                    npu->soc);
                soc = npu->soc;
        } else if (!a->config->platform_set) {
                log_warning("npu-smi info did not name the SoC of device %d; assuming %s (set "
                            ".platform to the SoC, e.g. Ascend910B4)",
                            device, soc);
        }
        a->found->soc = strdup(soc);
        free(t.out);
        free(info);
        return a->found->soc ? 0 : -ENOMEM;
}

int daemon_ascend_open(struct event_base *base, struct child_runner *runner,
                       const struct config *config, const char *config_path,
                       struct daemon_ascend *found, int *ids, size_t *ret_n)
{
        struct ascend_start start = {
                .base = base,
                .runner = runner,
                .config = config,
                .config_path = config_path,
                .found = found,
        };
        char smi[PATH_MAX], err[1024];
        bool have_smi;
        int r;

        r = load_environment(&start);
        if (r < 0)
                return r;
        have_smi = ascend_env_which(found->env, "npu-smi", driver_dirs, smi, sizeof(smi), err,
                                    sizeof(err)) == 0;
        if (!have_smi) {
                if (config->devices_auto) {
                        log_error("%s: .devices: \"auto\" needs npu-smi, which is missing (%s); "
                                  "install the Ascend driver or list the device ids in .devices",
                                  config_path, err);
                        return -ENODEV;
                }
                log_warning("npu-smi is missing (%s): a device cannot be checked for other "
                            "users' work, so every evaluation ends in infra_error until the "
                            "Ascend driver is installed",
                            err);
        }
        if (config->devices_auto) {
                r = discover_devices(&start, smi, ids, ret_n);
                if (r < 0)
                        return r;
        } else {
                for (size_t i = 0; i < config->n_device_ids; i++)
                        ids[i] = config->device_ids[i];
                *ret_n = config->n_device_ids;
        }
        r = learn_soc(&start, have_smi ? smi : NULL, ids[0]);
        if (r < 0)
                return r;
        log_info("ascend backend: %zu device slot%s, SoC %s", *ret_n, *ret_n == 1 ? "" : "s",
                 found->soc);
        return 0;
}

void daemon_ascend_release(struct daemon_ascend *found)
{
        found->env = ascend_env_free(found->env);
        free(found->soc);
        found->soc = NULL;
}
