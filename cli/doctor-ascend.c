/* SPDX-License-Identifier: MIT */
/*
 * ascendopt doctor's checks of the ascend backend: the CANN toolkit and
 * its set_env.sh, npu-smi and the device it reports, the device nodes and
 * whether the service user may open them (and the systemd unit lets it),
 * msprof, msopgen, cmake, the host compilers and python3 that cann-ops'
 * build.sh needs, ascend.third_lib_path, and last a trivial operator
 * built, installed, run and profiled through the backend's own evaluation
 * path in a temporary directory.
 */
#include "cli-internal.h"
#include "doctor-internal.h"

#include "npu/ascend.h"
#include "npu/host.h"
#include "npu/npu.h"
#include "queue/queue.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#define SET_ENV_TIMEOUT_S 120
#define TOOL_TIMEOUT_S    60
/* the oldest cmake that cann-ops' CMakeLists.txt and the generated harness accept */
#define CMAKE_MIN_MAJOR 3
#define CMAKE_MIN_MINOR 16

static const char *const *const system_dirs = NPU_HOST_SYSTEM_DIRS;

struct ascend_doctor {
        struct doctor *d;
        struct ascend_toolkit toolkit;
        struct ascend_env *env; /* the toolkit's, or ours when it did not load */
        bool env_loaded;
        char smi[PATH_MAX];
        bool have_list; /* npu-smi info -l answered */
        struct ascend_device_list list;
        bool have_info; /* npu-smi info answered */
        struct ascend_npu_info info;
        char soc[64]; /* the device's SoC: npu-smi's, else the config's platform */
};

/* ------------------------------------------------------------ the toolkit */

static void check_toolkit(struct ascend_doctor *a)
{
        struct doctor *d = a->d;
        const char *configured =
            d->config->backend == CONFIG_BACKEND_ASCEND ? d->config->toolkit : NULL;
        char err[2048], fix[PATH_MAX + 256], version[128], source[PATH_MAX];
        const char *root;
        int r = ascend_toolkit_find(configured, getenv("ASCEND_HOME_PATH"), NULL, &a->toolkit, err,
                                    sizeof(err));

        if (r < 0) {
                doctor_fix(fix, sizeof(fix),
                           "install the CANN toolkit (it brings set_env.sh), or point \"toolkit\" "
                           "in %s at its root",
                           doctor_config_name(d));
                doctor_report(d, "toolkit", DOCTOR_FAIL, fix, "no CANN toolkit: %s", err);
                return;
        }
        r = d->runner ? npu_host_env_load(d->base, d->runner, &a->toolkit, SET_ENV_TIMEOUT_S,
                                          &a->env, err, sizeof(err))
                      : format_error(err, sizeof(err), -ENOENT, "ascendopt-exec is missing");
        if (r < 0) {
                doctor_fix(fix, sizeof(fix), "source it by hand to see why: bash -c '. %s'",
                           a->toolkit.set_env);
                doctor_report(d, "toolkit", DOCTOR_FAIL, fix, "%s does not load: %s",
                              a->toolkit.set_env, err);
                return;
        }
        a->env_loaded = true;
        root = ascend_env_get(a->env, "ASCEND_HOME_PATH");
        if (!root)
                root = ascend_env_get(a->env, "ASCEND_TOOLKIT_HOME");
        if (!root)
                root = a->toolkit.root;
        if (npu_host_toolkit_version(root, version, sizeof(version), source, sizeof(source)) < 0)
                doctor_report(d, "toolkit", DOCTOR_FAIL,
                              "reinstall the CANN toolkit: results are told apart by its version",
                              "%s has no version file (version.cfg, "
                              "<arch>-linux/ascend_toolkit_install.info, compiler/version.info)",
                              root);
        else
                doctor_report(
                    d, "toolkit", DOCTOR_OK, NULL, "CANN %s (%s) in %s; %s loads", version,
                    strncmp(source, root, strlen(root)) == 0 && source[strlen(root)] == '/'
                        ? source + strlen(root) + 1
                        : source,
                    root, a->toolkit.set_env);
}

/* ------------------------------------------------------------ npu-smi and the devices */

static void check_npu_smi(struct ascend_doctor *a)
{
        struct doctor *d = a->d;
        const char *list_argv[] = { a->smi, "info", "-l", NULL };
        const char *info_argv[] = { a->smi, "info", NULL };
        const char *const *envp = (const char *const *)a->env->envp;
        struct strbuf names = { 0 };
        struct doctor_tool t;
        char err[1024];
        int r;

        if (ascend_env_which(a->env, "npu-smi", system_dirs, a->smi, sizeof(a->smi), err,
                             sizeof(err)) < 0) {
                doctor_report(d, "npu-smi", DOCTOR_FAIL,
                              "install the Ascend driver and firmware, which bring npu-smi "
                              "(it may sit in /usr/local/Ascend/driver/tools)",
                              "%s", err);
                return;
        }
        r = doctor_run_tool(d, list_argv, envp, TOOL_TIMEOUT_S, &t);
        if (r == 0 && t.ok)
                r = ascend_parse_device_list(t.out, &a->list, err, sizeof(err));
        else
                format_error(err, sizeof(err), 0, "%s info -l: %s", a->smi,
                             r < 0 ? strerror(-r) : t.how);
        free(t.out);
        if (r < 0 || !t.ok || a->list.n == 0) {
                doctor_report(d, "npu-smi", DOCTOR_FAIL,
                              "the driver must answer 'npu-smi info -l' with the NPUs: reload or "
                              "reinstall it (and reboot if its installer says so)",
                              "%s", a->list.n == 0 && r == 0 && t.ok ? "it lists no NPU" : err);
                return;
        }
        a->have_list = true;
        for (size_t i = 0; i < a->list.n; i++)
                strbuf_printf(&names, "%s%d (NPU %d chip %d)", i ? ", " : "",
                              a->list.devices[i].logic_id, a->list.devices[i].npu_id,
                              a->list.devices[i].chip_id);
        r = doctor_run_tool(d, info_argv, envp, TOOL_TIMEOUT_S, &t);
        if (r == 0 && t.ok && ascend_parse_npu_info(t.out, &a->info, err, sizeof(err)) == 0)
                a->have_info = true;
        else if (r < 0 || !t.ok)
                format_error(err, sizeof(err), 0, "%s info: %s", a->smi,
                             r < 0 ? strerror(-r) : t.how);
        free(t.out);
        if (a->have_info)
                doctor_report(d, "npu-smi", DOCTOR_OK, NULL, "%s lists %zu device%s: %s", a->smi,
                              a->list.n, a->list.n == 1 ? "" : "s", names.buf ? names.buf : "");
        else
                doctor_report(d, "npu-smi", DOCTOR_FAIL,
                              "the driver must answer 'npu-smi info' with its device table: "
                              "reload or reinstall it",
                              "%s", err);
        strbuf_release(&names);
}

static bool listed(const struct ascend_doctor *a, int id)
{
        for (size_t i = 0; i < a->list.n; i++)
                if (a->list.devices[i].logic_id == id)
                        return true;
        return false;
}

/* The devices to check: --device, else the config's list, else all npu-smi lists, else 0. */
static void pick_devices(struct ascend_doctor *a)
{
        struct doctor *d = a->d;

        if (d->device_given)
                return;
        if (d->config->backend == CONFIG_BACKEND_ASCEND && !d->config->devices_auto) {
                for (size_t i = 0; i < d->config->n_device_ids; i++)
                        d->ids[d->n_ids++] = d->config->device_ids[i];
        } else if (a->have_list) {
                for (size_t i = 0; i < a->list.n && i < CONFIG_MAX_DEVICES; i++)
                        d->ids[d->n_ids++] = a->list.devices[i].logic_id;
        }
        if (d->n_ids == 0)
                d->ids[d->n_ids++] = 0;
}

static void check_device(struct ascend_doctor *a)
{
        struct doctor *d = a->d;
        const struct ascend_npu *npu = NULL;
        const struct ascend_npu_process *p = NULL;
        char fix[PATH_MAX + 256];
        int id = d->ids[0];

        if (d->config->platform_set)
                snprintf(a->soc, sizeof(a->soc), "%s", d->config->platform);
        if (!a->have_list)
                return; /* npu-smi's failure says it all */
        for (size_t i = 0; i < d->n_ids; i++) {
                if (listed(a, d->ids[i]))
                        continue;
                doctor_fix(fix, sizeof(fix),
                           d->device_given ? "name a logic id 'npu-smi info -l' lists with --device"
                                           : "list logic ids that 'npu-smi info -l' shows in "
                                             "\"devices\" of %s, or say \"auto\"",
                           doctor_config_name(d));
                doctor_report(d, "device", DOCTOR_FAIL, fix,
                              "device %d is not among the %zu NPUs npu-smi lists", d->ids[i],
                              a->list.n);
                a->soc[0] = '\0';
                return;
        }
        if (a->have_info)
                npu = ascend_npu_by_logic_id(&a->info, id);
        if (!npu || !npu->soc[0]) {
                doctor_fix(fix, sizeof(fix), "set \"platform\" in %s to its SoC, e.g. Ascend910B4",
                           doctor_config_name(d));
                doctor_report(d, "device", a->soc[0] ? DOCTOR_WARN : DOCTOR_FAIL, fix,
                              "npu-smi info names no SoC for device %d%s%s", id,
                              a->soc[0] ? "; assuming the config's " : "", a->soc);
                return;
        }
        p = ascend_npu_foreign_process(&a->info, npu->npu_id, npu->chip_id, NULL, 0);
        if (d->config->platform_set && strcmp(npu->soc, d->config->platform) != 0) {
                doctor_fix(fix, sizeof(fix), "set \"platform\": \"%s\" in %s", npu->soc,
                           doctor_config_name(d));
                doctor_report(d, "device", DOCTOR_WARN, fix,
                              "device %d is %s but \"platform\" says %s; ascendoptd builds for %s",
                              id, npu->soc, d->config->platform, npu->soc);
        } else if (strcmp(npu->health, "OK") != 0) {
                doctor_report(d, "device", DOCTOR_WARN,
                              "see 'npu-smi info -t health -i NPU' for the alarm, and the "
                              "driver's documentation for what to do",
                              "device %d (%s) reports health %s", id, npu->soc, npu->health);
        } else if (p) {
                doctor_report(d, "device", DOCTOR_WARN,
                              "wait for it to finish, or pick another device",
                              "device %d (%s) is busy: process %ld (%s) runs on it, and every "
                              "evaluation there ends in infra_error until it is gone",
                              id, npu->soc, p->pid, p->name);
        } else {
                doctor_report(d, "device", DOCTOR_OK, NULL,
                              "device %d: %s (NPU %d chip %d), health OK, no other process on it",
                              id, npu->soc, npu->npu_id, npu->chip_id);
        }
        snprintf(a->soc, sizeof(a->soc), "%s", npu->soc);
}

/* Whether the unit's DeviceAllow= lets it open node (a path under /dev, or a class). */
static bool unit_allows(const struct config_unit *u, const char *node)
{
        const char *name = strrchr(node, '/') + 1;

        for (size_t i = 0; i < u->n_device_allow; i++) {
                const char *entry = u->device_allow[i];
                size_t len = strcspn(entry, " \t");
                if (strncmp(entry, "char-", 5) == 0 ||
                    (len == strlen("/dev/") + strlen(name) && strncmp(entry, "/dev/", 5) == 0 &&
                     strncmp(entry + 5, name, len - 5) == 0))
                        return true;
        }
        return false;
}

/* The system unit hides every device node unless the ascend drop-in opens them. */
static void check_unit(struct ascend_doctor *a, char *const *nodes, size_t n_nodes)
{
        struct doctor *d = a->d;
        const struct config_unit *u = d->unit;
        const char *policy = u->device_policy ? u->device_policy : "auto";
        char fix[PATH_MAX * 2];

        if (u->private_devices) {
                doctor_report(
                    d, "systemd", DOCTOR_FAIL,
                    "sudo install -D -m 0644 " ASCENDOPT_DATADIR "/systemd/ascendoptd-ascend.conf "
                    "/etc/systemd/system/ascendoptd.service.d/ascend.conf, list one "
                    "DeviceAllow= per NPU in it, then sudo systemctl daemon-reload",
                    "%s has PrivateDevices=yes, which hides the NPU from ascendoptd", u->path);
                return;
        }
        /* DevicePolicy=auto restricts the nodes only once a DeviceAllow= lists some */
        for (size_t i = 0; i < n_nodes && (strcmp(policy, "auto") != 0 || u->n_device_allow); i++) {
                if (unit_allows(u, nodes[i]))
                        continue;
                doctor_fix(fix, sizeof(fix),
                           "add 'DeviceAllow=/dev/%s rw' to %s, then sudo systemctl daemon-reload "
                           "&& sudo systemctl restart ascendoptd",
                           strrchr(nodes[i], '/') + 1,
                           u->n_drop_ins ? u->drop_ins[u->n_drop_ins - 1] : u->path);
                doctor_report(d, "systemd", DOCTOR_FAIL, fix,
                              "DevicePolicy=%s and no DeviceAllow= for /dev/%s in %s or its "
                              "drop-ins",
                              policy, strrchr(nodes[i], '/') + 1, u->path);
                return;
        }
        doctor_report(d, "systemd", DOCTOR_OK, NULL,
                      "%s with %zu drop-in%s: PrivateDevices=no, DevicePolicy=%s, every node "
                      "below allowed",
                      u->path, u->n_drop_ins, u->n_drop_ins == 1 ? "" : "s", policy);
}

static void check_nodes(struct ascend_doctor *a)
{
        struct doctor *d = a->d;
        struct strbuf names = { 0 };
        char **nodes = NULL, why[PATH_MAX + 256], fix[PATH_MAX + 256];
        size_t n = 0;
        int r = npu_host_device_nodes(d->ids, d->n_ids, &nodes, &n);

        if (r < 0)
                return;
        if (d->unit)
                check_unit(a, nodes, n);
        for (size_t i = 0; i < n && d->user_known; i++) {
                r = doctor_user_access(d, nodes[i], R_OK | W_OK, why, sizeof(why), fix,
                                       sizeof(fix));
                if (r == -EPERM)
                        doctor_fix(fix, sizeof(fix),
                                   "let the driver's group have it: sudo chgrp HwHiAiUser %s && "
                                   "sudo chmod g+rw %s && sudo usermod -aG HwHiAiUser %s",
                                   nodes[i], nodes[i], d->user);
                else if (r == -ENOENT && i < d->n_ids)
                        doctor_fix(
                            fix, sizeof(fix),
                            "load the Ascend driver, which makes a davinci node per chip, or "
                            "check a device that has one");
                else if (r == -ENOENT)
                        doctor_fix(fix, sizeof(fix),
                                   "install or reload the Ascend driver, which makes %s", nodes[i]);
                if (r < 0) {
                        doctor_report(d, "device nodes", DOCTOR_FAIL, fix, "%s", why);
                        goto out;
                }
                strbuf_printf(&names, "%s%s", i ? " " : "", nodes[i]);
        }
        if (d->user_known)
                doctor_report(d, "device nodes", DOCTOR_OK, NULL, "%s: %s may read and write them",
                              names.buf ? names.buf : "", d->user);
out:
        strbuf_release(&names);
        npu_host_nodes_free(nodes);
}

/* ------------------------------------------------------------ the build tools */

/* Finds name in the toolkit's PATH (then extra); reports a failure with fix when it is missing. */
static bool find_tool(struct ascend_doctor *a, const char *check, const char *name,
                      const char *const *extra, enum doctor_status missing, const char *fix,
                      char *path, size_t size)
{
        char err[2048];

        if (ascend_env_which(a->env, name, extra, path, size, err, sizeof(err)) == 0)
                return true;
        doctor_report(a->d, check, missing, fix, "%s", err);
        return false;
}

/* The first line of `path --version` in the toolkit's environment, or "". */
static void tool_version(struct ascend_doctor *a, const char *path, char *buf, size_t size)
{
        const char *argv[] = { path, "--version", NULL };
        struct doctor_tool t;

        buf[0] = '\0';
        if (doctor_run_tool(a->d, argv, (const char *const *)a->env->envp, TOOL_TIMEOUT_S, &t) ==
                0 &&
            t.ok)
                snprintf(buf, size, "%.*s", (int)strcspn(t.out, "\n"), t.out);
        free(t.out);
}

/* Tools that only have to be there: where they are looked for, and why they are needed. */
static const struct {
        const char *name;
        bool system; /* also in NPU_HOST_SYSTEM_DIRS, as the backend looks */
        enum doctor_status missing;
        const char *fix;
        const char *why;
} plain_tools[] = {
        { "msprof", false, DOCTOR_FAIL,
          "reinstall the CANN toolkit with its tools: msprof op times every candidate, and "
          "set_env.sh must put it on PATH",
          "times every candidate (msprof op)" },
        { "msopgen", false, DOCTOR_WARN,
          "reinstall the CANN toolkit with its tools: operators outside a cann-ops repository "
          "are built in a project msopgen makes",
          "makes the project of an operator outside a cann-ops repository" },
        { "python3", true, DOCTOR_FAIL,
          "sudo apt-get install python3: cann-ops' build.sh reads CMakePresets.json with it",
          "cann-ops' build.sh reads CMakePresets.json with it" },
};

static void check_plain_tools(struct ascend_doctor *a)
{
        char path[PATH_MAX];

        for (size_t i = 0; i < ARRAY_SIZE(plain_tools); i++)
                if (find_tool(a, plain_tools[i].name, plain_tools[i].name,
                              plain_tools[i].system ? system_dirs : NULL, plain_tools[i].missing,
                              plain_tools[i].fix, path, sizeof(path)))
                        doctor_report(a->d, plain_tools[i].name, DOCTOR_OK, NULL, "%s: %s", path,
                                      plain_tools[i].why);
}

static void check_cmake(struct ascend_doctor *a)
{
        static const char fix[] = "install cmake 3.16 or newer (sudo apt-get install cmake): "
                                  "cann-ops' CMakeLists.txt and the aclnn harness ask for it";
        char path[PATH_MAX], version[256];
        int major = 0, minor = 0;

        if (!find_tool(a, "cmake", "cmake", system_dirs, DOCTOR_FAIL, fix, path, sizeof(path)))
                return;
        tool_version(a, path, version, sizeof(version));
        if (sscanf(version, "cmake version %d.%d", &major, &minor) != 2)
                doctor_report(a->d, "cmake", DOCTOR_WARN, "check that 'cmake --version' works",
                              "%s does not say its version%s%s", path, version[0] ? ": " : "",
                              version);
        else if (major < CMAKE_MIN_MAJOR || (major == CMAKE_MIN_MAJOR && minor < CMAKE_MIN_MINOR))
                doctor_report(a->d, "cmake", DOCTOR_FAIL, fix, "%s is %d.%d, older than %d.%d",
                              path, major, minor, CMAKE_MIN_MAJOR, CMAKE_MIN_MINOR);
        else
                doctor_report(a->d, "cmake", DOCTOR_OK, NULL, "%s: %s", path, version + 14);
}

/*
 * The host compilers CMake picks by default ($CXX, else c++; $CC, else
 * cc): cann-ops' project() enables C and C++ and compiles the operator's
 * op_host with them, and the aclnn harness is C++17.  The kernel's
 * compiler comes with the toolkit, and the trivial operator tries it.
 */
static void check_compilers(struct ascend_doctor *a)
{
        static const char fix[] = "sudo apt-get install gcc g++: build.sh's CMake project "
                                  "compiles the operator's host side with them, the harness too";
        const char *cxx = ascend_env_get(a->env, "CXX"), *cc = ascend_env_get(a->env, "CC");
        char cxx_path[PATH_MAX], cc_path[PATH_MAX], cxx_version[256], cc_version[256];

        if (!find_tool(a, "compiler", cxx && *cxx ? cxx : "c++", system_dirs, DOCTOR_FAIL, fix,
                       cxx_path, sizeof(cxx_path)) ||
            !find_tool(a, "compiler", cc && *cc ? cc : "cc", system_dirs, DOCTOR_FAIL, fix, cc_path,
                       sizeof(cc_path)))
                return;
        tool_version(a, cxx_path, cxx_version, sizeof(cxx_version));
        tool_version(a, cc_path, cc_version, sizeof(cc_version));
        doctor_report(a->d, "compiler", DOCTOR_OK, NULL,
                      "%s (%s) and %s (%s): CMake's host compilers for build.sh and the harness; "
                      "the kernel compiler is the toolkit's",
                      cxx_path, cxx_version, cc_path, cc_version);
}

static void check_third_lib(struct ascend_doctor *a)
{
        struct doctor *d = a->d;
        const char *dir =
            d->config->backend == CONFIG_BACKEND_ASCEND ? d->config->third_lib_path : NULL;
        char err[PATH_MAX + 256], fix[PATH_MAX * 2];

        if (!dir) {
                doctor_fix(fix, sizeof(fix),
                           "set \"ascend\": {\"third_lib_path\": \"DIR\"} in %s, DIR holding "
                           "json/include/nlohmann/json.hpp",
                           doctor_config_name(d));
                doctor_report(d, "third_lib_path", DOCTOR_WARN, fix,
                              "ascend.third_lib_path is unset: build.sh will try to download "
                              "nlohmann/json");
        } else if (npu_host_third_lib_check(dir, err, sizeof(err)) < 0) {
                doctor_fix(
                    fix, sizeof(fix),
                    "install nlohmann/json (v3.11.3, which cann-ops fetches) with "
                    "-DCMAKE_INSTALL_PREFIX=%s/json, so that %s/json/include/nlohmann/json.hpp "
                    "exists",
                    dir, dir);
                doctor_report(d, "third_lib_path", DOCTOR_FAIL, fix, "%s", err);
        } else {
                doctor_report(d, "third_lib_path", DOCTOR_OK, NULL,
                              "%s/json/include/nlohmann/json.hpp: builds never download it", dir);
        }
}

/* ------------------------------------------------------------ a trivial operator */

struct eval_wait {
        json_t *result;
        bool done;
};

static void on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        struct eval_wait *w = userdata;

        (void)memo_hit;
        w->result = result;
        w->done = true;
}

/* The Add operator of examples/ops (in the build tree, else installed); false when missing. */
static bool trivial_operator_dir(char *buf, size_t size)
{
        char manifest[PATH_MAX];

        if (program_relative_path(buf, size, "../examples/ops/level1/add") == 0 &&
            format_path(manifest, sizeof(manifest), "%s/ascendopt.json", buf) == 0 &&
            access(manifest, R_OK) == 0)
                return true;
        snprintf(buf, size, "%s", ASCENDOPT_DATADIR "/doctor/add");
        return access(ASCENDOPT_DATADIR "/doctor/add/ascendopt.json", R_OK) == 0;
}

/*
 * Its manifest with one small case, which the request puts in place of
 * the operator's own (the bench case there is 64 MiB a tensor).
 */
static char *small_manifest(const struct npu_manifest *manifest)
{
        json_t *doc = json_deep_copy(manifest->doc);
        char *text = NULL;

        if (doc && json_object_set_new(doc, "cases",
                                       json_pack("[{s:s, s:{s:[i,i], s:[i,i]}, s:b}]", "name",
                                                 "doctor", "shapes", "x", 8, 2048, "y", 8, 2048,
                                                 "bench", true)) == 0)
                text = json_dumps(doc, JSON_INDENT(2));
        json_decref(doc);
        return text;
}

/* Builds, installs, runs and profiles it on the device through the evaluator, in tmp. */
static void run_trivial_operator(struct ascend_doctor *a, const struct npu_manifest *manifest,
                                 const char *tmp, double *ret_seconds, struct eval_wait *w)
{
        struct doctor *d = a->d;
        struct npu_environment env = { 0 };
        char err[2048], *text = small_manifest(manifest);
        const struct npu_override override = { "ascendopt.json", text };
        const struct npu_request request = {
                .manifest = manifest,
                .overrides = &override,
                .n_overrides = 1,
                .seed = 1,
                .bypass_memo = true,
                .device = d->ids[0],
        };
        struct timespec start, end;
        int r = text ? 0 : -ENOMEM;

        clock_gettime(CLOCK_MONOTONIC, &start);
        if (r == 0)
                r = npu_environment_open(
                    &(struct npu_environment_options){
                        .base = d->base,
                        .state_dir = tmp,
                        .want_evaluator = true,
                        .backend = NPU_BACKEND_ASCEND,
                        .platform = a->soc,
                        .toolkit = a->toolkit.root,
                        .ascend_env = a->env,
                        .timeout_s = d->config->episode.eval_timeout_s,
                        .allow_unsandboxed = true,
                    },
                    &env, err, sizeof(err));
        if (r == 0)
                r = npu_evaluate(env.evaluator, &request, on_evaluated, w, NULL);
        while (r == 0 && !w->done)
                event_base_loop(d->base, EVLOOP_ONCE);
        if (r < 0) {
                w->result =
                    json_pack("{s:s, s:{s:s, s:s}}", "status", "infra_error", "error", "kind",
                              "infra_error", "message", r == -ENOMEM ? strerror(ENOMEM) : err);
                w->done = true;
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        *ret_seconds = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
        npu_environment_close(&env);
        free(text);
}

static void check_trivial_operator(struct ascend_doctor *a)
{
        static const char check[] = "trivial operator";
        struct doctor *d = a->d;
        struct npu_manifest *manifest = NULL;
        struct device_pool *pool = NULL;
        struct eval_wait w = { 0 };
        const json_t *error;
        char opdir[PATH_MAX], tmp[PATH_MAX], err[2048], fix[512];
        const char *status;
        double seconds = 0;
        size_t slot;
        int r;

        if (!a->env_loaded || !a->soc[0]) {
                doctor_report(d, check, DOCTOR_FAIL,
                              "fix the failures above, then run ascendopt doctor again",
                              "not run: it needs %s",
                              !a->env_loaded ? "the toolkit's environment" : "the device's SoC");
                return;
        }
        if (!trivial_operator_dir(opdir, sizeof(opdir))) {
                doctor_report(d, check, DOCTOR_FAIL,
                              "reinstall ascendopt (make install copies it there)",
                              "its files are missing from %s", opdir);
                return;
        }
        r = npu_manifest_load(opdir, &manifest, err, sizeof(err));
        if (r < 0) {
                doctor_report(d, check, DOCTOR_FAIL, "reinstall ascendopt", "%s", err);
                return;
        }
        /* the lease of 'ascendopt optimize' and the daemon: never measure beside them */
        r = device_pool_new("ascend", d->ids, 1, NULL, &pool);
        if (r == 0)
                r = device_pool_acquire(pool, &slot);
        if (r == -EBUSY || r == -EAGAIN) {
                doctor_report(d, check, DOCTOR_WARN,
                              "stop ascendoptd for a moment, or check a free device with --device",
                              "not run: device %d is leased by another ascendopt (a running "
                              "ascendoptd?)",
                              d->ids[0]);
                goto out;
        }
        snprintf(tmp, sizeof(tmp), "%s/ascendopt-doctor.XXXXXX",
                 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (r < 0 || !mkdtemp(tmp)) {
                doctor_report(d, check, DOCTOR_FAIL, "check the lock directory and $TMPDIR",
                              "not run: %s", strerror(r < 0 ? -r : errno));
                goto out;
        }
        run_trivial_operator(a, manifest, tmp, &seconds, &w);
        rm_rf(tmp);
        status = json_string_value(json_object_get(w.result, "status"));
        error = json_object_get(w.result, "error");
        if (status && strcmp(status, "ok") == 0) {
                doctor_report(d, check, DOCTOR_OK, NULL,
                              "%s built, installed, run and profiled on device %d in %.1f s: "
                              "%.2f us (msprof op)",
                              manifest->name, d->ids[0], seconds,
                              json_number_value(json_object_get(w.result, "latency_us")));
        } else {
                doctor_fix(fix, sizeof(fix), "%s%s",
                           status && strcmp(status, "timeout") == 0
                               ? "give episode.eval_timeout_s more room in "
                               : "fix what the message names, then run ascendopt doctor again",
                           status && strcmp(status, "timeout") == 0 ? doctor_config_name(d) : "");
                doctor_report(d, check, DOCTOR_FAIL, fix, "%s on device %d: %s: %s", manifest->name,
                              d->ids[0], status ? status : "no result",
                              json_string_value(json_object_get(error, "message"))
                                  ? json_string_value(json_object_get(error, "message"))
                                  : "no message");
        }
        json_decref(w.result);
out:
        device_pool_free(pool);
        npu_manifest_free(manifest);
}

/* ------------------------------------------------------------ all of them */

void doctor_check_ascend(struct doctor *d)
{
        struct ascend_doctor *a = calloc(1, sizeof(*a)); /* the npu-smi tables are large */

        if (!a) {
                doctor_report(d, "toolkit", DOCTOR_FAIL, "free some memory", "out of memory");
                return;
        }
        a->d = d;
        check_toolkit(a);
        if (!a->env && ascend_env_from_envp(NULL, &a->env) < 0) {
                doctor_report(d, "toolkit", DOCTOR_FAIL, "free some memory", "out of memory");
                goto out;
        }
        check_npu_smi(a);
        pick_devices(a);
        check_device(a);
        check_nodes(a);
        check_plain_tools(a);
        check_cmake(a);
        check_compilers(a);
        check_third_lib(a);
        check_trivial_operator(a);
out:
        ascend_env_free(a->env);
        ascend_toolkit_release(&a->toolkit);
        free(a);
}
