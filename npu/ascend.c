/* SPDX-License-Identifier: MIT */
/*
 * The real-hardware evaluator: a state machine of toolchain children on the
 * runner that loads the CANN environment, builds the candidate as a
 * custom-op package, installs it into its own vendor path, builds the aclnn
 * harness, checks that the device is free and runs the harness under msprof
 * op, then turns msprof's CSVs into the result JSON (docs/design.md).  UNTESTED ON
 * HARDWARE: every step has only run against tests/fixtures/fake-cann.
 */
#include "ascend.h"
#include "host.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_LAUNCHES  5
#define DEFAULT_TIMEOUT_S 600
#define ERROR_LINES_KEPT  20
#define OUTPUT_CAP        (1u << 20)

enum step {
        STEP_ENV,
        STEP_PROBE,
        STEP_MSOPGEN,
        STEP_BUILD,
        STEP_INSTALL,
        STEP_HARNESS_CONFIGURE,
        STEP_HARNESS_BUILD,
        STEP_CHECK_BUSY,
        STEP_RUN,
        STEP_REPORT, /* a placeholder child whose end delivers pending_error */
        STEP_DONE,
};

struct ascend_eval {
        struct child_runner *runner;
        const struct npu_manifest *manifest;
        struct ascend_eval_options options;
        npu_sim_run_done_fn done;
        void *userdata;

        char work_dir[PATH_MAX];
        bool work_dir_is_temporary;
        struct ascend_toolkit toolkit;
        struct ascend_env *env;
        struct ascend_env *run_env;
        struct ascend_env_load *load;
        struct ascend_project project;
        struct ascend_harness harness;
        char soc[64];
        char package[PATH_MAX];
        char install_dir[PATH_MAX];
        char vendor[PATH_MAX];
        char harness_dir[PATH_MAX];
        char msprof_dir[PATH_MAX]; /* of the case running */
        char (*outputs)[PATH_MAX]; /* of the case running */
        struct ascend_case_run *runs;
        size_t n_runs, next_run;
        json_t *cases; /* the records of the cases measured so far */

        enum step step;
        struct child *child;
        bool cancelled;
        double build_s, run_s;
        json_t *result;
        json_t *pending_error;
};

/* ------------------------------------------------------------ finishing */

static void eval_free(struct ascend_eval *e)
{
        if (!e)
                return;
        if (e->work_dir_is_temporary && !e->options.keep_work_dir && e->work_dir[0])
                rm_rf(e->work_dir);
        ascend_toolkit_release(&e->toolkit);
        ascend_env_free(e->env);
        ascend_env_free(e->run_env);
        ascend_harness_release(&e->harness);
        free(e->outputs);
        free(e->runs);
        json_decref(e->cases);
        json_decref(e->pending_error);
        json_decref(e->result);
        free(e);
}

static json_t *error_json(const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static json_t *error_json(const char *kind, const char *fmt, ...)
{
        char message[4096];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        return json_pack("{s:s, s:s}", "kind", kind, "message", message);
}

static int file_sha256(const char *path, char hex[SHA256_HEX_SIZE])
{
        FILE *f = fopen(path, "re");
        struct sha256 s;
        uint8_t buf[65536], digest[SHA256_DIGEST_SIZE];
        size_t n;

        if (!f)
                return -errno;
        sha256_init(&s);
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                sha256_update(&s, buf, n);
        fclose(f);
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
        return 0;
}

/* Hands the result to the callback and frees the evaluation. */
static void finish(struct ascend_eval *e, const char *status, json_t *error)
{
        json_t *result = e->result;

        e->step = STEP_DONE;
        if (!error && strcmp(status, "ok") != 0) {
                /* the error (a json_pack) could not be built: not the operator's failure */
                log_error("%s: out of memory saying why the evaluation ends (%s)",
                          e->manifest->name, status);
                status = "infra_error";
        }
        json_object_set_new(result, "status", json_string(status));
        if (error)
                json_object_set_new(result, "error", error);
        if (!json_object_get(result, "cases"))
                json_object_set(result, "cases", e->cases);
        if (e->soc[0])
                json_object_set_new(result, "platform", json_string(e->soc));
        json_object_set_new(result, "compile_s", json_real(e->build_s));
        json_object_set_new(result, "run_s", json_real(e->run_s));
        if (!e->work_dir_is_temporary || e->options.keep_work_dir)
                json_object_set_new(result, "work_dir", json_string(e->work_dir));
        e->result = NULL;
        e->done(result, e->userdata);
        eval_free(e);
}

static void finish_infra(struct ascend_eval *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void finish_infra(struct ascend_eval *e, const char *fmt, ...)
{
        char message[4096];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        finish(e, "infra_error",
               json_pack("{s:s, s:s}", "kind", "infra_error", "message", message));
}

/*
 * The first error lines of a tool's output: from the first line that says
 * "error" (compilers write "file:line:col: error: ..."), up to
 * ERROR_LINES_KEPT lines; without such a line, the last lines, where build
 * scripts put their complaint.  file and line come from a compiler line.
 */
static json_t *tool_error(const char *kind, const char *what, const struct child_result *r)
{
        const char *streams[2] = { r->err.data ? r->err.data : "", r->out.data ? r->out.data : "" };
        const char *first = NULL;
        char file[PATH_MAX] = "", message[4096], how[128];
        size_t len, kept = 0;
        int line = 0;

        for (size_t s = 0; s < 2 && !first; s++) {
                for (const char *p = streams[s]; p && *p;) {
                        const char *eol = strchr(p, '\n');
                        size_t n = eol ? (size_t)(eol - p) : strlen(p);
                        if (memmem(p, n, "error", 5) || memmem(p, n, "ERROR", 5) ||
                            memmem(p, n, "Error", 5)) {
                                first = p;
                                break;
                        }
                        p = eol ? eol + 1 : NULL;
                }
        }
        if (!first) {
                /* the last lines of whichever stream said something */
                const char *text = streams[0][0] ? streams[0] : streams[1];
                size_t lines = 0;
                first = text + strlen(text);
                while (first > text && lines <= ERROR_LINES_KEPT) {
                        first--;
                        if (*first == '\n' && first[1])
                                lines++;
                }
                if (*first == '\n')
                        first++;
        } else {
                /* "/abs/file.cpp:LINE:COL: error: ..." names the place */
                const char *colon = strchr(first, ':');
                int col = 0;
                if (colon && colon > first && (size_t)(colon - first) < sizeof(file) &&
                    memchr(first, '/', (size_t)(colon - first)) &&
                    sscanf(colon + 1, "%d:%d", &line, &col) >= 1) {
                        memcpy(file, first, (size_t)(colon - first));
                        file[colon - first] = '\0';
                } else {
                        line = 0;
                }
        }
        len = (size_t)snprintf(message, sizeof(message), "%s %s:\n", what,
                               child_result_describe(r, how, sizeof(how)));
        for (const char *p = first; p && *p && kept < ERROR_LINES_KEPT; kept++) {
                const char *eol = strchr(p, '\n');
                size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);
                if (len + n >= sizeof(message))
                        break;
                memcpy(message + len, p, n);
                len += n;
                message[len] = '\0';
                p = eol ? eol + 1 : NULL;
        }
        if (kept == 0 && len + 12 < sizeof(message))
                strcat(message, "(no output)");
        return json_pack("{s:s, s:s, s:s?, s:i}", "kind", kind, "message", message, "file",
                         file[0] ? file : NULL, "line", line);
}

/*
 * cann-ops' build.sh installs nlohmann/json into third_party/ from the
 * network when --third_lib_path has none: a build that failed there gets
 * the fix appended to its message.
 */
static void add_third_party_hint(json_t *error, const struct child_result *r,
                                 const char *third_lib_path)
{
        const char *message = json_string_value(json_object_get(error, "message"));
        char *hinted = NULL;

        if (!message || !((r->err.data && strcasestr(r->err.data, "third party packages")) ||
                          (r->out.data && strcasestr(r->out.data, "third party packages"))))
                return;
        if (asprintf(&hinted,
                     "%s(build.sh could not get its third-party packages, nlohmann/json: %s; "
                     "see docs/real-npus.md)",
                     message,
                     third_lib_path ? "check that ascend.third_lib_path has json/ inside"
                                    : "set ascend.third_lib_path to a folder holding json/, or "
                                      "--third-lib-path for ascendopt optimize") < 0)
                return;
        json_object_set_new(error, "message", json_string(hinted));
        free(hinted);
}

/* ------------------------------------------------------------ children */

static void on_child_done(const struct child_result *r, void *userdata);

static int start_tool(struct ascend_eval *e, const char *const *argv, const char *cwd,
                      const struct ascend_env *env)
{
        struct child_spec spec = {
                .argv = argv,
                .envp = (const char *const *)env->envp,
                .cwd = cwd ? cwd : e->work_dir,
                .timeout_s = e->options.timeout_s > 0 ? e->options.timeout_s : DEFAULT_TIMEOUT_S,
                .output_cap = OUTPUT_CAP,
        };

        return child_start(e->runner, &spec, on_child_done, e, &e->child);
}

/*
 * Delivers an infra_error from the loop through a trivial child, so that
 * no path calls done from inside ascend_eval_start.  Returns 1 (the step
 * is settled) or -errno.
 */
static int report_later(struct ascend_eval *e, json_t *error)
{
        const char *argv[] = { "true", NULL };
        struct child_spec spec = { .argv = argv, .timeout_s = 10 };
        int r;

        json_decref(e->pending_error);
        e->pending_error = error;
        e->step = STEP_REPORT;
        r = child_start(e->runner, &spec, on_child_done, e, &e->child);
        return r < 0 ? r : 1;
}

/* Resolves a program in the toolkit's environment; 1 when it is missing (reported). */
static int which(struct ascend_eval *e, const char *name, const char *const *extra, char *buf,
                 size_t size)
{
        char err[2048];

        if (ascend_env_which(e->env, name, extra, buf, size, err, sizeof(err)) == 0)
                return 0;
        return report_later(e,
                            error_json("infra_error", "toolchain incomplete: %s (toolkit %s)", err,
                                       e->toolkit.set_env ? e->toolkit.set_env
                                                          : "environment given by the caller"));
}

static int start_probe(struct ascend_eval *e)
{
        char smi[PATH_MAX];
        const char *argv[] = { smi, "info", NULL };
        int r = which(e, "npu-smi", NPU_HOST_SYSTEM_DIRS, smi, sizeof(smi));

        return r ? r : start_tool(e, argv, NULL, e->env);
}

static int start_msopgen(struct ascend_eval *e)
{
        struct ascend_argv argv = { 0 };
        char msopgen[PATH_MAX];
        int r;

        r = which(e, "msopgen", NULL, msopgen, sizeof(msopgen));
        if (r)
                return r;
        r = ascend_msopgen_argv(&e->project, msopgen, &argv);
        if (r == 0)
                r = start_tool(e, ascend_argv_view(&argv), NULL, e->env);
        ascend_argv_release(&argv);
        return r;
}

static int start_build(struct ascend_eval *e)
{
        struct ascend_argv argv = { 0 };
        char bash[PATH_MAX];
        struct ascend_env *env = NULL;
        int r;

        r = which(e, "bash", NPU_HOST_SYSTEM_DIRS, bash, sizeof(bash));
        if (r)
                return r;
        r = ascend_build_env(e->env, e->project.compute_unit, &env);
        if (r == 0)
                r = ascend_build_argv(&e->project, bash, e->options.third_lib_path, &argv);
        if (r == 0)
                r = start_tool(e, ascend_argv_view(&argv), e->project.root, env);
        ascend_argv_release(&argv);
        ascend_env_free(env);
        return r;
}

static int start_install(struct ascend_eval *e)
{
        struct ascend_argv argv = { 0 };
        int r;

        /* .run packages are self-extracting shell scripts; make sure it can run */
        chmod(e->package, 0755);
        r = rm_rf(e->install_dir);
        if (r < 0 && r != -ENOENT)
                return r;
        r = mkdir_p(e->install_dir);
        if (r == 0)
                r = ascend_install_argv(e->package, e->install_dir, &argv);
        if (r == 0)
                r = start_tool(e, ascend_argv_view(&argv), NULL, e->env);
        ascend_argv_release(&argv);
        return r;
}

static int start_harness_cmake(struct ascend_eval *e, bool build_step)
{
        struct ascend_argv argv = { 0 };
        char cmake[PATH_MAX];
        const char *home = ascend_env_get(e->env, "ASCEND_HOME_PATH");
        int r;

        if (!home)
                home = ascend_env_get(e->env, "ASCEND_TOOLKIT_HOME");
        if (!home)
                home = e->toolkit.root ? e->toolkit.root : "";
        r = which(e, "cmake", NPU_HOST_SYSTEM_DIRS, cmake, sizeof(cmake));
        if (r)
                return r;
        r = ascend_harness_cmake_argv(cmake, e->harness_dir, home, e->vendor, build_step, &argv);
        if (r == 0)
                r = start_tool(e, ascend_argv_view(&argv), e->harness_dir, e->env);
        ascend_argv_release(&argv);
        return r;
}

/* Where the running case's msprof output and outputs go: msprof/case_N, out/case_N. */
static int case_paths(struct ascend_eval *e)
{
        const struct npu_manifest *m = e->manifest;
        size_t index = e->runs[e->next_run].case_index;
        char dir[PATH_MAX];
        int r;

        if (format_path(e->msprof_dir, sizeof(e->msprof_dir), "%s/msprof/case_%zu", e->work_dir,
                        index) < 0 ||
            format_path(dir, sizeof(dir), "%s/out/case_%zu", e->work_dir, index) < 0)
                return -ENAMETOOLONG;
        for (size_t i = 0; i < m->n_outputs; i++)
                if (format_path(e->outputs[i], PATH_MAX, "%s/%s.bin", dir, m->outputs[i].name) < 0)
                        return -ENAMETOOLONG;
        r = rm_rf(dir);
        if (r < 0 && r != -ENOENT)
                return r;
        return mkdir_p(dir);
}

static int start_run(struct ascend_eval *e)
{
        const struct npu_manifest *m = e->manifest;
        const struct ascend_case_run *run = &e->runs[e->next_run];
        struct ascend_argv harness = { 0 }, argv = { 0 };
        char msprof[PATH_MAX], kernel[256];
        unsigned launches = e->options.launch_count ? e->options.launch_count : DEFAULT_LAUNCHES;
        unsigned warmup = e->options.warmup ? e->options.warmup : 1;
        int r;

        r = which(e, "msprof", NULL, msprof, sizeof(msprof));
        if (r)
                return r;
        r = case_paths(e);
        if (r < 0)
                return r;
        r = rm_rf(e->msprof_dir);
        if (r < 0 && r != -ENOENT)
                return r;
        r = mkdir_p(e->msprof_dir);
        if (r == 0) {
                e->run_env = ascend_env_free(e->run_env);
                r = ascend_run_env(e->env, e->vendor, &e->run_env);
        }
        r = r ? r : ascend_argv_add(&harness, "%s/build/%s", e->harness_dir, e->harness.target);
        r = r ? r : ascend_argv_add(&harness, "%d", e->options.device);
        r = r ? r : ascend_argv_add(&harness, "%zu", run->case_index);
        r = r ? r : ascend_argv_add(&harness, "%u", launches + warmup);
        for (size_t i = 0; r == 0 && i < m->n_inputs; i++)
                r = ascend_argv_add(&harness, "%s", run->inputs[i]);
        for (size_t i = 0; r == 0 && i < m->n_outputs; i++)
                r = ascend_argv_add(&harness, "%s", e->outputs[i]);
        if (r == 0)
                r = ascend_kernel_prefix(m->name, kernel, sizeof(kernel));
        if (r == 0)
                r = ascend_msprof_argv(msprof, e->msprof_dir, kernel, launches, warmup,
                                       ascend_argv_view(&harness), &argv);
        if (r == 0)
                r = start_tool(e, ascend_argv_view(&argv), NULL, e->run_env);
        ascend_argv_release(&harness);
        ascend_argv_release(&argv);
        return r;
}

/* ------------------------------------------------------------ step results */

static void advance(struct ascend_eval *e);

/* The probe: which SoC, and is the device someone else's right now? */
static bool check_device(struct ascend_eval *e, const struct child_result *r)
{
        struct ascend_npu_info *info = calloc(1, sizeof(*info));
        const struct ascend_npu *npu;
        const struct ascend_npu_process *proc;
        pid_t *ours = NULL;
        char err[1024], how[128];
        bool ok = false;

        if (!info) {
                finish_infra(e, "out of memory");
                return false;
        }
        if (r->exit_code != 0 || r->timed_out || r->signal) {
                finish_infra(e, "npu-smi info %s: %.2000s",
                             child_result_describe(r, how, sizeof(how)),
                             r->err.len ? r->err.data : r->out.data);
                goto out;
        }
        if (ascend_parse_npu_info(r->out.data, info, err, sizeof(err)) < 0) {
                finish_infra(e, "%s", err);
                goto out;
        }
        npu = ascend_npu_by_logic_id(info, e->options.device);
        if (!npu) {
                finish_infra(e, "device %d is not among the %zu NPUs npu-smi info lists",
                             e->options.device, info->n_npus);
                goto out;
        }
        if (!e->soc[0])
                snprintf(e->soc, sizeof(e->soc), "%s", npu->soc);
        ours = calloc(e->options.n_own_pids + 1, sizeof(*ours));
        if (!ours) {
                finish_infra(e, "out of memory");
                goto out;
        }
        ours[0] = getpid();
        for (size_t i = 0; i < e->options.n_own_pids; i++)
                ours[i + 1] = e->options.own_pids[i];
        proc = ascend_npu_foreign_process(info, npu->npu_id, npu->chip_id, ours,
                                          e->options.n_own_pids + 1);
        if (proc) {
                char mem[48] = "";
                if (proc->memory_mb >= 0)
                        snprintf(mem, sizeof(mem), ", %ld MB", proc->memory_mb);
                finish_infra(e,
                             "device %d (NPU %d chip %d) is busy: process %ld (%s%s) of someone "
                             "else runs on it; retry later",
                             e->options.device, npu->npu_id, npu->chip_id, proc->pid,
                             proc->name[0] ? proc->name : "unnamed", mem);
                goto out;
        }
        ok = true;
out:
        free(ours);
        free(info);
        return ok;
}

/*
 * The summary the sim gives over the measured cases: latency_us is the
 * geometric mean over the bench cases (every case when none is marked);
 * samples_us, iqr_us, block_dim, cycles, profile and bottleneck are the
 * first bench case's (else the first case's); outputs_sha256 digests every
 * case's outputs in order.
 */
static void summarise(struct ascend_eval *e)
{
        static const char *const copied[] = { "samples_us", "iqr_us",  "block_dim",
                                              "cycles",     "profile", "bottleneck" };
        const json_t *summary = NULL;
        struct sha256 digest;
        uint8_t bytes[SHA256_DIGEST_SIZE];
        char hex[SHA256_HEX_SIZE];
        double log_sum = 0;
        size_t n_bench = 0, n = 0, i;
        json_t *c;

        json_array_foreach(e->cases, i, c) n_bench += json_is_true(json_object_get(c, "bench"));
        json_array_foreach(e->cases, i, c)
        {
                const json_t *latency = json_object_get(c, "latency_us");
                if (n_bench && !json_is_true(json_object_get(c, "bench")))
                        continue;
                if (!summary)
                        summary = c;
                if (json_is_number(latency) && json_number_value(latency) > 0) {
                        log_sum += log(json_number_value(latency));
                        n++;
                }
        }
        if (n)
                json_object_set_new(e->result, "latency_us", json_real(exp(log_sum / (double)n)));
        for (size_t k = 0; summary && k < ARRAY_SIZE(copied); k++) {
                json_t *v = json_object_get(summary, copied[k]);
                if (v)
                        json_object_set(e->result, copied[k], v);
        }
        sha256_init(&digest);
        json_array_foreach(e->cases, i, c)
        {
                size_t j;
                json_t *o;
                json_array_foreach(json_object_get(c, "outputs"), j, o)
                {
                        const char *h = json_string_value(json_object_get(o, "sha256"));
                        if (h)
                                sha256_update(&digest, h, strlen(h));
                }
        }
        sha256_final(&digest, bytes);
        sha256_hex(bytes, hex);
        json_object_set_new(e->result, "outputs_sha256", json_string(hex));
}

/* An output's shape in a case: its own, else the first input's, as the harness does. */
static const json_t *output_shape(const struct npu_manifest *m, const struct npu_case *c,
                                  size_t output)
{
        const json_t *shape = json_object_get(c->shapes, m->outputs[output].name);

        if (!shape && m->n_inputs)
                shape = json_object_get(c->shapes, m->inputs[0].name);
        return shape;
}

static void on_run_done(struct ascend_eval *e, const struct child_result *r)
{
        const struct npu_manifest *m = e->manifest;
        const struct ascend_case_run *run = &e->runs[e->next_run];
        const struct npu_case *c = &m->cases[run->case_index];
        struct ascend_profile profile = { 0 };
        const char *match[] = { NULL, NULL };
        char kernel[256], err[2048], hex[SHA256_HEX_SIZE], *signature;
        json_t *outputs, *case_json;

        if (r->timed_out) {
                char how[128];
                finish(e, "timeout",
                       error_json("timeout", "case %s: msprof op running the harness %s", c->name,
                                  child_result_describe(r, how, sizeof(how))));
                return;
        }
        if (r->exit_code != 0 || r->signal) {
                /* the harness names the failing acl/aclnn call and its code */
                char what[512];
                snprintf(what, sizeof(what), "case %s: msprof op running the aclnn harness",
                         c->name);
                finish(e, "runtime_error", tool_error("runtime_error", what, r));
                return;
        }
        if (ascend_kernel_prefix(m->name, kernel, sizeof(kernel)) < 0) {
                finish_infra(e, "case %s: the operator's name \"%s\" is too long", c->name,
                             m->name);
                return;
        }
        match[0] = kernel;
        if (ascend_msprof_collect(e->msprof_dir, match, &profile, err, sizeof(err)) < 0) {
                finish_infra(e, "case %s: %s", c->name, err);
                return;
        }
        case_json = json_pack("{s:s, s:b, s:s, s:I}", "case", c->name, "bench", c->bench, "status",
                              "ok", "seed", (json_int_t)run->seed);
        outputs = json_array();
        if (!case_json || !outputs || ascend_profile_to_json(&profile, case_json) < 0) {
                ascend_profile_release(&profile);
                json_decref(case_json);
                json_decref(outputs);
                finish_infra(e, "out of memory");
                return;
        }
        ascend_profile_release(&profile);
        for (size_t i = 0; i < m->n_outputs; i++) {
                const json_t *shape = output_shape(m, c, i);
                json_t *o;
                if (file_sha256(e->outputs[i], hex) < 0) {
                        json_decref(outputs);
                        json_decref(case_json);
                        finish(e, "runtime_error",
                               error_json("runtime_error",
                                          "case %s: the harness exited 0 but wrote no output %s "
                                          "(%s)",
                                          c->name, m->outputs[i].name, e->outputs[i]));
                        return;
                }
                /* O* leaves shape out when the case gives none */
                o = json_pack("{s:s, s:s, s:s, s:s, s:O*}", "name", m->outputs[i].name, "dtype",
                              npu_dtype_name(m->outputs[i].dtype), "file", e->outputs[i], "sha256",
                              hex, "shape", shape);
                if (json_array_append_new(outputs, o) < 0) {
                        json_decref(outputs);
                        json_decref(case_json);
                        finish_infra(e, "out of memory");
                        return;
                }
        }
        json_object_set_new(case_json, "outputs", outputs);
        json_object_set(case_json, "attrs", c->attrs);
        signature = npu_bottleneck_signature(json_object_get(case_json, "profile"));
        if (signature)
                json_object_set_new(case_json, "bottleneck", json_string(signature));
        free(signature);
        json_array_append_new(e->cases, case_json);
        if (++e->next_run < e->n_runs) {
                advance(e);
                return;
        }
        summarise(e);
        finish(e, "ok", NULL);
}

static void on_child_done(const struct child_result *r, void *userdata)
{
        struct ascend_eval *e = userdata;
        char err[2048] = "";
        int ret;

        e->child = NULL;
        if (e->cancelled) {
                finish_infra(e, "cancelled");
                return;
        }
        switch (e->step) {
        case STEP_PROBE:
        case STEP_CHECK_BUSY:
                if (!check_device(e, r))
                        return;
                break;
        case STEP_MSOPGEN:
                e->build_s += r->wall_s;
                if (r->exit_code != 0 || r->timed_out || r->signal) {
                        finish(e, "infra_error", tool_error("infra_error", "msopgen gen", r));
                        return;
                }
                ret = ascend_project_overlay(e->manifest, &e->project, err, sizeof(err));
                if (ret < 0) {
                        finish_infra(e, "%s", err);
                        return;
                }
                break;
        case STEP_BUILD:
                e->build_s += r->wall_s;
                if (r->exit_code != 0 || r->timed_out || r->signal) {
                        json_t *error =
                            tool_error(r->timed_out ? "timeout" : "compile_error", "build.sh", r);
                        add_third_party_hint(error, r, e->options.third_lib_path);
                        finish(e, r->timed_out ? "timeout" : "compile_error", error);
                        return;
                }
                if (ascend_find_package(&e->project, e->package, sizeof(e->package), err,
                                        sizeof(err)) < 0) {
                        finish(e, "compile_error", error_json("compile_error", "%s", err));
                        return;
                }
                break;
        case STEP_INSTALL:
                e->build_s += r->wall_s;
                if (r->exit_code != 0 || r->timed_out || r->signal) {
                        finish(e, "infra_error",
                               tool_error("infra_error", "installing the .run package", r));
                        return;
                }
                if (ascend_find_vendor(e->install_dir, e->vendor, sizeof(e->vendor), err,
                                       sizeof(err)) < 0) {
                        finish_infra(e, "%s", err);
                        return;
                }
                break;
        case STEP_HARNESS_CONFIGURE:
        case STEP_HARNESS_BUILD:
                e->build_s += r->wall_s;
                if (r->exit_code != 0 || r->timed_out || r->signal) {
                        finish(e, "infra_error",
                               tool_error("infra_error", "building the aclnn harness", r));
                        return;
                }
                break;
        case STEP_RUN:
                e->run_s += r->wall_s;
                on_run_done(e, r);
                return;
        case STEP_REPORT: {
                json_t *error = e->pending_error;
                e->pending_error = NULL;
                finish(e, "infra_error", error);
                return;
        }
        case STEP_ENV:
        case STEP_DONE:
                return;
        }
        advance(e);
}

/* Writes the project and the harness once the environment is known. */
static bool prepare(struct ascend_eval *e)
{
        char err[2048], dir[PATH_MAX], **order = NULL;
        const char *root = e->toolkit.root;
        int r;

        if (!root)
                root = ascend_env_get(e->env, "ASCEND_HOME_PATH");
        if (!root)
                root = ascend_env_get(e->env, "ASCEND_TOOLKIT_HOME");
        r = ascend_project_materialise(e->manifest, e->options.repo_root, e->options.op_relpath,
                                       e->work_dir, e->soc, root ? root : "", &e->project, err,
                                       sizeof(err));
        if (r < 0) {
                finish_infra(e, "%s", err);
                return false;
        }
        /* aclnn takes attributes in OpDef order; fall back to the manifest's */
        r = ascend_opdef_attr_order(e->manifest, &order);
        if (r < 0) {
                finish_infra(e, "reading the OpDef's attributes: %s", strerror(-r));
                return false;
        }
        r = ascend_harness_generate(e->manifest, order[0] ? (const char *const *)order : NULL,
                                    &e->harness, err, sizeof(err));
        ascend_strv_free(order);
        if (r == -ENOTSUP) {
                finish(e, "unsupported", error_json("unsupported", "%s", err));
                return false;
        }
        if (r < 0) {
                finish_infra(e, "generating the aclnn harness: %s", err);
                return false;
        }
        if (format_path(dir, sizeof(dir), "%s", e->harness_dir) < 0) {
                finish_infra(e, "%s: path too long", e->harness_dir);
                return false;
        }
        if (ascend_harness_write(&e->harness, dir, err, sizeof(err)) < 0) {
                finish_infra(e, "%s", err);
                return false;
        }
        return true;
}

/* Starts the next step's child, or finishes.  Never calls itself. */
static void advance(struct ascend_eval *e)
{
        int r = 0;

        switch (e->step) {
        case STEP_ENV:
                e->step = STEP_PROBE;
                r = start_probe(e);
                break;
        case STEP_PROBE:
                if (!prepare(e))
                        return;
                if (e->project.kind == ASCEND_PROJECT_MSOPGEN) {
                        e->step = STEP_MSOPGEN;
                        r = start_msopgen(e);
                        break;
                }
                /* fall through */
        case STEP_MSOPGEN:
                e->step = STEP_BUILD;
                r = start_build(e);
                break;
        case STEP_BUILD:
                if (e->options.build_only) {
                        /* it compiles: no install, no device */
                        finish(e, "ok", NULL);
                        return;
                }
                e->step = STEP_INSTALL;
                r = start_install(e);
                break;
        case STEP_INSTALL:
                e->step = STEP_HARNESS_CONFIGURE;
                r = start_harness_cmake(e, false);
                break;
        case STEP_HARNESS_CONFIGURE:
                e->step = STEP_HARNESS_BUILD;
                r = start_harness_cmake(e, true);
                break;
        case STEP_HARNESS_BUILD:
                /* the device may have been taken while we built */
                e->step = STEP_CHECK_BUSY;
                r = start_probe(e);
                break;
        case STEP_CHECK_BUSY:
                e->step = STEP_RUN;
                r = start_run(e);
                break;
        case STEP_RUN:
                /* the next case: check again that nobody else took the device */
                e->step = STEP_CHECK_BUSY;
                r = start_probe(e);
                break;
        case STEP_REPORT:
        case STEP_DONE:
                return;
        }
        /* r > 0: the step already finished the evaluation (a tool is missing) */
        if (r < 0)
                finish_infra(e, "cannot start a child process: %s", strerror(-r));
}

static void on_env_loaded(int r, struct ascend_env *env, const char *message, void *userdata)
{
        struct ascend_eval *e = userdata;

        e->load = NULL;
        if (e->cancelled || r < 0) {
                ascend_env_free(env);
                finish_infra(e, "%s", e->cancelled ? "cancelled" : message);
                return;
        }
        e->env = env;
        advance(e);
}

int ascend_eval_start(struct child_runner *runner, const struct npu_manifest *manifest,
                      const struct ascend_eval_options *options, npu_sim_run_done_fn done,
                      void *userdata, struct ascend_eval **ret_eval)
{
        struct ascend_eval *e;
        char err[4096];
        int r;

        if (!runner || !manifest || !options || !done || options->device < 0 ||
            options->launch_count > 100 || options->n_cases > ASCEND_MAX_CASE_RUNS ||
            (options->n_cases && !options->cases))
                return -EINVAL;
        if (options->n_cases == 0 && (!options->inputs || options->case_index >= manifest->n_cases))
                return -EINVAL;
        for (size_t k = 0; k < options->n_cases; k++)
                if (options->cases[k].case_index >= manifest->n_cases || !options->cases[k].inputs)
                        return -EINVAL;
        for (size_t k = 0; k < (options->n_cases ? options->n_cases : 1); k++) {
                const char *const *inputs =
                    options->n_cases ? options->cases[k].inputs : options->inputs;
                for (size_t i = 0; i < manifest->n_inputs; i++)
                        if (!inputs[i])
                                return -EINVAL;
        }
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->n_runs = options->n_cases ? options->n_cases : 1;
        e->runs = calloc(e->n_runs, sizeof(*e->runs));
        e->cases = json_array();
        if (!e->runs || !e->cases) {
                r = -ENOMEM;
                goto fail;
        }
        if (options->n_cases) {
                memcpy(e->runs, options->cases, e->n_runs * sizeof(*e->runs));
        } else {
                e->runs[0].case_index = options->case_index;
                e->runs[0].inputs = options->inputs;
                e->runs[0].seed = options->seed;
        }
        e->runner = runner;
        e->manifest = manifest;
        e->options = *options;
        e->done = done;
        e->userdata = userdata;
        if (options->soc)
                snprintf(e->soc, sizeof(e->soc), "%s", options->soc);
        e->result =
            json_pack("{s:s, s:s, s:I, s:i}", "operator", manifest->name, "backend", "ascend",
                      "seed", (json_int_t)options->seed, "device", options->device);
        e->outputs = calloc(manifest->n_outputs, sizeof(*e->outputs));
        if (!e->result || !e->outputs) {
                r = -ENOMEM;
                goto fail;
        }
        if (options->work_dir) {
                snprintf(e->work_dir, sizeof(e->work_dir), "%s", options->work_dir);
                r = mkdir_p(e->work_dir);
        } else {
                const char *tmp = getenv("TMPDIR");
                snprintf(e->work_dir, sizeof(e->work_dir), "%s/ascendopt-ascend-XXXXXX",
                         tmp && *tmp ? tmp : "/tmp");
                r = mkdtemp(e->work_dir) ? 0 : -errno;
                e->work_dir_is_temporary = r == 0;
        }
        if (r < 0)
                goto fail;
        if (format_path(e->install_dir, sizeof(e->install_dir), "%s/vendor", e->work_dir) < 0 ||
            format_path(e->harness_dir, sizeof(e->harness_dir), "%s/harness", e->work_dir) < 0) {
                r = -ENAMETOOLONG;
                goto fail;
        }

        if (options->env) {
                r = ascend_env_copy(options->env, &e->env);
                if (r < 0)
                        goto fail;
                e->step = STEP_PROBE;
                r = start_probe(e);
                if (r > 0) /* finished: npu-smi missing, reported through done */
                        r = 0;
                if (r < 0)
                        goto fail;
        } else {
                e->step = STEP_ENV;
                r = ascend_toolkit_find(options->toolkit, getenv("ASCEND_HOME_PATH"),
                                        options->toolkit_defaults, &e->toolkit, err, sizeof(err));
                if (r == -ENOENT) {
                        /* a missing toolkit is a result, not a failure to start */
                        r = report_later(e, error_json("infra_error", "%s", err));
                        if (r < 0)
                                goto fail;
                } else if (r < 0) {
                        goto fail;
                } else {
                        r = ascend_env_load_start(runner, &e->toolkit, NULL, e->options.timeout_s,
                                                  on_env_loaded, e, &e->load);
                        if (r < 0)
                                goto fail;
                }
        }
        if (ret_eval)
                *ret_eval = e;
        return 0;
fail:
        if (!e->work_dir_is_temporary)
                e->work_dir[0] = '\0';
        eval_free(e);
        return r;
}

void ascend_eval_cancel(struct ascend_eval *e)
{
        if (!e)
                return;
        e->cancelled = true;
        ascend_env_load_cancel(e->load);
        child_cancel(e->child);
}
