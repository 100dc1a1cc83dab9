/* SPDX-License-Identifier: MIT */
/*
 * One simulator run (struct npu_sim_run): compiles an operator's op_host sources and a
 * generated glue unit that includes its kernel against the clean-room
 * AscendC headers, links the simulator runtime (npu/sim-compile.c), then
 * runs each shape case and gathers the per-case result files into one
 * result JSON.  Every step is a child process on the runner; nothing here
 * blocks the event loop.
 */
#include "sim-internal.h"
#include "sim-run.h"
#include "inputs.h"

#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef ASCENDOPT_DATADIR
#define ASCENDOPT_DATADIR "/usr/local/share/ascendopt"
#endif

#define RESULT_MAX_BYTES (64u << 20)  /* a case's result.json */
#define CASE_TRACE_FILE  "trace.json" /* in case_N/, with a trace asked for */

/* ------------------------------------------------------------ paths */

static bool sim_root_ok(const char *root)
{
        char path[PATH_MAX];

        return format_path(path, sizeof(path), "%s/libascendsim.a", root) == 0 &&
               access(path, R_OK) == 0;
}

int npu_sim_paths_find(struct npu_sim_paths *ret)
{
        char candidate[PATH_MAX];
        const char *env = getenv("ASCENDOPT_SIM_DIR");
        const char *root = NULL;
        int r;

        memset(ret, 0, sizeof(*ret));
        if (env && *env) {
                if (!sim_root_ok(env))
                        return -ENOENT;
                root = env;
        } else {
                if (program_relative_path(candidate, sizeof(candidate), "sim") == 0 &&
                    sim_root_ok(candidate))
                        root = candidate;
                if (!root && sim_root_ok(ASCENDOPT_DATADIR "/sim"))
                        root = ASCENDOPT_DATADIR "/sim";
        }
        if (!root)
                return -ENOENT;
        ret->root = realpath(root, NULL);
        if (!ret->root)
                return -errno;
        /*
         * In a build tree include/ and platforms/ are links into the source
         * tree: resolve them, so that a sandbox binding only these paths
         * (with a private /tmp) still sees what they point to.
         */
        if ((r = format_path(candidate, sizeof(candidate), "%s/include", ret->root)) == 0)
                ret->include_dir = realpath(candidate, NULL);
        if (r == 0 &&
            (r = format_path(candidate, sizeof(candidate), "%s/platforms", ret->root)) == 0)
                ret->platforms_dir = realpath(candidate, NULL);
        if (r < 0 || !ret->include_dir || !ret->platforms_dir) {
                npu_sim_paths_release(ret);
                return r < 0 ? r : -ENOENT;
        }
        if (asprintf(&ret->library, "%s/libascendsim.a", ret->root) < 0) {
                npu_sim_paths_release(ret);
                return -ENOMEM;
        }
        return 0;
}

void npu_sim_paths_release(struct npu_sim_paths *paths)
{
        if (!paths)
                return;
        free(paths->root);
        free(paths->include_dir);
        free(paths->platforms_dir);
        free(paths->library);
        memset(paths, 0, sizeof(*paths));
}

/* ------------------------------------------------------------ helpers */

static double now_s(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ evaluation */

static void eval_free(struct npu_sim_run *e)
{
        if (!e)
                return;
        npu_op_layout_free(e->own_layout);
        if (e->work_dir_is_temporary && !e->options.keep_work_dir && e->work_dir[0])
                rm_rf(e->work_dir);
        json_decref(e->result);
        json_decref(e->cases);
        json_decref(e->compile_error);
        free(e);
}

/* Whether a failure says the disk was full (a compiler's or the run's ENOSPC). */
static bool out_of_space(const json_t *error, const json_t *cases)
{
        static const char needle[] = "No space left on device";
        const char *message = json_string_value(json_object_get(error, "message"));
        size_t i;
        json_t *c;

        if (message && strstr(message, needle))
                return true;
        json_array_foreach(cases, i, c)
        {
                message =
                    json_string_value(json_object_get(json_object_get(c, "error"), "message"));
                if (message && strstr(message, needle))
                        return true;
        }
        return false;
}

void sim_run_finish(struct npu_sim_run *e, const char *status, json_t *error)
{
        json_t *result = e->result;
        struct sha256 digest;
        uint8_t bytes[SHA256_DIGEST_SIZE];
        char hex[SHA256_HEX_SIZE];
        const json_t *summary_case = NULL;
        size_t i;
        json_t *c;

        e->step = STEP_DONE;
        if (strcmp(status, "ok") != 0 && strcmp(status, "infra_error") != 0 &&
            out_of_space(error, e->cases)) {
                /* the disk failed, not the operator: retried later, never cached */
                json_t *why = json_pack("{s:s, s:s+}", "kind", "infra_error", "message",
                                        "out of disk space while evaluating: ",
                                        json_string_value(json_object_get(error, "message"))
                                            ?: "a case failed writing");
                if (why) { /* else out of memory: the error it had stays */
                        json_decref(error);
                        error = why;
                }
                status = "infra_error";
        }
        json_object_set_new(result, "status", json_string(status));
        if (error)
                json_object_set_new(result, "error", error);
        json_object_set_new(result, "compile_s", json_real(e->compile_s));
        json_object_set_new(result, "run_s", json_real(e->run_s));
        json_object_set_new(result, "compile_cache_hits", json_integer(e->cache_hits));

        /* Summary fields come from the first bench case that ran, else the first. */
        json_array_foreach(e->cases, i, c)
        {
                if (!summary_case)
                        summary_case = c;
                if (json_is_true(json_object_get(c, "bench"))) {
                        summary_case = c;
                        break;
                }
        }
        /* An operator's latency is the geometric mean over its bench cases
         * (every case when none is marked), once the model reports them. */
        {
                double log_sum = 0, roof_sum = 0;
                size_t n = 0, n_roof = 0, n_bench = 0;
                json_array_foreach(e->cases, i, c) n_bench +=
                    json_is_true(json_object_get(c, "bench"));
                json_array_foreach(e->cases, i, c)
                {
                        const json_t *lat = json_object_get(c, "latency_us");
                        const json_t *roof = json_object_get(c, "roofline_us");
                        if (n_bench && !json_is_true(json_object_get(c, "bench")))
                                continue;
                        if (json_is_number(lat) && json_number_value(lat) > 0) {
                                log_sum += log(json_number_value(lat));
                                n++;
                        }
                        if (json_is_number(roof) && json_number_value(roof) > 0) {
                                roof_sum += log(json_number_value(roof));
                                n_roof++;
                        }
                }
                if (n && strcmp(status, "ok") == 0)
                        json_object_set_new(result, "latency_us",
                                            json_real(exp(log_sum / (double)n)));
                if (n_roof && n_roof == n && strcmp(status, "ok") == 0) {
                        double roofline = exp(roof_sum / (double)n_roof);
                        json_object_set_new(result, "roofline_us", json_real(roofline));
                        json_object_set_new(result, "roofline_fraction",
                                            json_real(roofline / exp(log_sum / (double)n)));
                }
        }
        /* the categorical signature Stage II retrieves by, per case and overall */
        json_array_foreach(e->cases, i, c)
        {
                char *signature = npu_bottleneck_signature(json_object_get(c, "profile"));
                if (signature)
                        json_object_set_new(c, "bottleneck", json_string(signature));
                free(signature);
        }
        if (summary_case) {
                json_t *bottleneck = json_object_get(summary_case, "bottleneck");
                json_t *profile = json_object_get(summary_case, "profile");
                if (bottleneck)
                        json_object_set(result, "bottleneck", bottleneck);
                if (profile)
                        json_object_set(result, "profile", profile);
        }
        if (summary_case) {
                json_object_set(result, "block_dim", json_object_get(summary_case, "block_dim"));
                json_object_set(result, "tiling_key", json_object_get(summary_case, "tiling_key"));
        }
        /* One digest over every case's outputs, in order, names included. */
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
        if (json_array_size(e->cases) && strcmp(status, "ok") == 0)
                json_object_set_new(result, "outputs_sha256", json_string(hex));

        /* output files die with a temporary work dir: do not point at them */
        if (e->work_dir_is_temporary && !e->options.keep_work_dir)
                json_array_foreach(e->cases, i, c)
                {
                        size_t j;
                        json_t *o;
                        json_array_foreach(json_object_get(c, "outputs"), j, o)
                        {
                                json_object_del(o, "file");
                                json_object_del(o, "written_file");
                        }
                }
        json_object_set(result, "cases", e->cases);
        /* elements no path of the kernel wrote: on an NPU they hold garbage */
        if (strcmp(status, "ok") == 0 && npu_unwritten_warnings(result) < 0)
                log_error("%s: out of memory listing the unwritten outputs", e->manifest->name);
        if (!e->work_dir_is_temporary || e->options.keep_work_dir)
                json_object_set_new(result, "work_dir", json_string(e->work_dir));

        e->result = NULL;
        e->done(result, e->userdata);
        eval_free(e);
}

void sim_run_fail(struct npu_sim_run *e, const char *status, json_t *error)
{
        if (!error) {
                log_error("%s: out of memory saying why the evaluation ends (%s)",
                          e->manifest->name, status);
                status = "infra_error";
        }
        sim_run_finish(e, status, error);
}

static void on_step_done(const struct child_result *r, void *userdata);

int sim_run_start_child(struct npu_sim_run *e, const char *const *argv, bool sandboxed, size_t slot)
{
        /* the whole repository only when the build reads files outside the operator */
        const char *ro_paths[] = { npu_op_layout_uses_repo(e->layout) ? e->layout->repo_root
                                                                      : e->manifest->dir,
                                   e->paths->root,
                                   e->paths->include_dir,
                                   e->paths->platforms_dir,
                                   e->inputs_dir,
                                   e->pch_dir[0] ? e->pch_dir : NULL,
                                   NULL };
        struct child_spec spec = {
                .argv = argv,
                .cwd = e->work_dir,
                .limits = child_limits_or_defaults(e->options.limits),
                .timeout_s = e->options.timeout_s > 0 ? e->options.timeout_s : 120,
                .output_cap = 256 * 1024,
                .sandbox_dir = sandboxed ? e->work_dir : NULL,
                .sandbox_ro_paths = ro_paths,
                /* compiles and links share the CPU with everything else on the
                 * machine: capped by the runner and niced; runs are not, their
                 * timing is the measurement */
                .throttled = e->step != STEP_RUN,
                .nice = e->step != STEP_RUN ? NPU_COMPILE_NICE : 0,
        };

        return child_start(e->runner, &spec, on_step_done, e, &e->children[slot]);
}

static json_t *load_platform(struct npu_sim_run *e, char *err, size_t size)
{
        char path[PATH_MAX];
        json_error_t error;
        json_t *p;

        if (format_path(path, sizeof(path), "%s/%s.json", e->paths->platforms_dir,
                        e->options.platform) < 0) {
                snprintf(err, size, "platform %s: %s: path too long", e->options.platform,
                         e->paths->platforms_dir);
                return NULL;
        }
        p = json_load_file(path, JSON_REJECT_DUPLICATES, &error);
        if (!p)
                snprintf(err, size, "platform %s: %.512s: %s", e->options.platform, path,
                         error.text);
        return p;
}

/*
 * The case's tensors with dtypes and shapes, in manifest order.  An output
 * the case gives no shape keeps none: the operator's InferShape decides.
 * An input the case gives null is absent (left out of the spec); a ref
 * output is the input of its name and has no shape of its own.
 */
static json_t *case_tensors(const struct npu_manifest *m, const struct npu_case *c, bool inputs,
                            const json_t *input_files)
{
        const json_t *files = json_object_get(input_files, c->name);
        const struct npu_tensor *list = inputs ? m->inputs : m->outputs;
        size_t n = inputs ? m->n_inputs : m->n_outputs;
        json_t *out = json_array();

        for (size_t i = 0; i < n; i++) {
                const json_t *shape = json_object_get(c->shapes, list[i].name);
                json_t *t;
                if (inputs && json_is_null(shape))
                        continue;
                t = json_pack("{s:s, s:s}", "name", list[i].name, "dtype",
                              npu_dtype_name(list[i].dtype));
                if (!t) {
                        json_decref(out);
                        return NULL;
                }
                if (list[i].ref)
                        json_object_set_new(t, "ref", json_true());
                else if (shape)
                        json_object_set(t, list[i].is_list ? "list" : "shape", (json_t *)shape);
                if (inputs && json_object_get(files, list[i].name))
                        json_object_set(t, "data_files", json_object_get(files, list[i].name));
                if (json_array_append_new(out, t) < 0) {
                        json_decref(out);
                        return NULL;
                }
        }
        return out;
}

static int start_run(struct npu_sim_run *e, char *err, size_t err_size)
{
        const struct npu_manifest *m = e->manifest;
        const struct npu_case *c = &m->cases[e->next_case];
        char spec_path[PATH_MAX], out_dir[PATH_MAX], program[PATH_MAX];
        const char *argv[] = { program, spec_path, out_dir, NULL };
        json_t *spec, *platform, *permissive = json_array();
        int r;

        platform = load_platform(e, err, err_size);
        if (!platform) {
                json_decref(permissive);
                return -ENOENT;
        }
        for (const char *const *p = e->options.permissive; p && *p; p++)
                json_array_append_new(permissive, json_string(*p));
        spec = json_pack(
            "{s:s, s:s, s:s, s:o, s:o, s:O, s:I, s:O, s:b, s:o, s:o}", "op", m->name, "kernel",
            m->kernel, "case", c->name, "inputs", case_tensors(m, c, true, e->options.input_files),
            "outputs", case_tensors(m, c, false, NULL), "attrs", c->attrs, "seed",
            (json_int_t)(e->options.seed + e->next_case), "input_ranges", c->input_ranges,
            "auto_sync", m->auto_sync, "platform", platform, "permissive", permissive);
        if (!spec)
                return -ENOMEM;
        if (e->options.trace_path) {
                size_t traced = 0;
                if (e->options.only_case >= 0)
                        traced = (size_t)e->options.only_case;
                else
                        for (size_t k = 0; k < m->n_cases; k++)
                                if (m->cases[k].bench) {
                                        traced = k;
                                        break;
                                }
                /* written inside the case's folder, the one the sandbox may
                 * write, and copied to where it was asked for once the run ends */
                if (traced == e->next_case &&
                    format_path(out_dir, sizeof(out_dir), "%s/case_%zu/" CASE_TRACE_FILE,
                                e->work_dir, e->next_case) == 0)
                        json_object_set_new(spec, "trace_path", json_string(out_dir));
        }
        if (e->options.jitter_pct > 0) {
                json_object_set_new(spec, "jitter_pct", json_real(e->options.jitter_pct));
                json_object_set_new(
                    spec, "jitter_seed",
                    json_integer((json_int_t)(e->options.jitter_seed + e->next_case)));
        }
        if (e->options.slow_after_us > 0 && m->cases[e->next_case].bench)
                json_object_set_new(spec, "slow_after_us", json_real(e->options.slow_after_us));
        json_object_set_new(spec, "max_gm_bytes", json_integer((json_int_t)NPU_MAX_CASE_BYTES));
        if (e->options.host_coverage || e->options.tiling_only)
                json_object_set_new(spec, "tiling_only", json_true());
        if (e->options.host_coverage || e->options.tiling_only || e->options.no_input_dump)
                json_object_set_new(spec, "dump_inputs", json_false());
        if (e->options.max_instructions || m->max_instructions)
                json_object_set_new(spec, "max_instructions",
                                    json_integer((json_int_t)(e->options.max_instructions
                                                                  ? e->options.max_instructions
                                                                  : m->max_instructions)));
        if (format_path(spec_path, sizeof(spec_path), "%s/case_%zu.json", e->inputs_dir,
                        e->next_case) < 0) {
                json_decref(spec);
                return format_error(err, err_size, -ENAMETOOLONG, "%.512s: path too long",
                                    e->inputs_dir);
        }
        if (format_path(out_dir, sizeof(out_dir), "%s/case_%zu", e->work_dir, e->next_case) < 0 ||
            format_path(program, sizeof(program), "%s/operator", e->work_dir) < 0) {
                json_decref(spec);
                return format_error(err, err_size, -ENAMETOOLONG, "%.512s: path too long",
                                    e->work_dir);
        }
        {
                char *text = json_dumps(spec, JSON_INDENT(1));
                r = text ? write_file_exclusive(spec_path, text, strlen(text), 0644) : -ENOMEM;
                free(text);
        }
        json_decref(spec);
        if (r == 0)
                r = mkdir_p(out_dir);
        if (r < 0) {
                snprintf(err, err_size, "%.512s: cannot write the case spec: %s", spec_path,
                         strerror(-r));
                return r;
        }
        return sim_run_start_child(e, argv, e->options.sandbox, 0);
}

/* The hash of a file a sandboxed run wrote, read without following links. */
static int file_sha256(const char *path, char hex[SHA256_HEX_SIZE])
{
        int fd = open_no_symlinks(path, O_RDONLY | O_NONBLOCK, 0);
        struct sha256 s;
        uint8_t buf[65536], digest[SHA256_DIGEST_SIZE];
        struct stat st;
        ssize_t n;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL;
        }
        sha256_init(&s);
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                sha256_update(&s, buf, (size_t)n);
        close(fd);
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
        return 0;
}

/*
 * Reads case_N/result.json written by the (sandboxed) runtime; NULL when
 * it is missing or no JSON object.  It is read without following links,
 * and the output files it names must be plain names in case_N/.
 */
static json_t *read_case_result(struct npu_sim_run *e)
{
        char path[PATH_MAX], file[PATH_MAX], hex[SHA256_HEX_SIZE], *text = NULL;
        json_t *r, *outputs, *o;
        size_t i, len;

        if (format_path(path, sizeof(path), "%s/case_%zu/result.json", e->work_dir, e->next_case) <
                0 ||
            read_untrusted_file(path, RESULT_MAX_BYTES, &text, &len) < 0)
                return NULL;
        r = json_loadb(text, len, 0, NULL);
        free(text);
        if (!r || !json_is_object(r)) {
                json_decref(r);
                return NULL;
        }
        outputs = json_object_get(r, "outputs");
        json_array_foreach(outputs, i, o)
        {
                /* the output's bytes, and the bits of the elements it wrote when it left some */
                static const char *const keys[] = { "file", "written_file" };
                for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
                        const char *f = json_string_value(json_object_get(o, keys[k]));
                        if (!f)
                                continue;
                        if (!f[0] || strchr(f, '/') || strcmp(f, ".") == 0 ||
                            strcmp(f, "..") == 0 ||
                            format_path(file, sizeof(file), "%s/case_%zu/%s", e->work_dir,
                                        e->next_case, f) < 0) {
                                json_object_del(o, keys[k]);
                                continue;
                        }
                        json_object_set_new(o, keys[k], json_string(file));
                        if (k == 0 && file_sha256(file, hex) == 0)
                                json_object_set_new(o, "sha256", json_string(hex));
                }
        }
        /* what the launch got from the host code, as a digest (the launch memo's) */
        {
                const char *f = json_string_value(json_object_get(r, "launch_file"));
                if (f && strcmp(f, "launch.bin") == 0 &&
                    format_path(file, sizeof(file), "%s/case_%zu/%s", e->work_dir, e->next_case,
                                f) == 0 &&
                    file_sha256(file, hex) == 0)
                        json_object_set_new(r, "launch_sha256", json_string(hex));
                json_object_del(r, "launch_file");
        }
        return r;
}

/*
 * The operator's own last words: the last line its host code printed (an
 * OP_LOGE or a printf before the tiling returned a failure), to stderr or
 * to stdout, with control characters shown as '?'.  "" when it printed none.
 */
static void last_printed_line(const struct child_result *r, char *buf, size_t size)
{
        const struct child_output *outs[] = { &r->err, &r->out };

        buf[0] = '\0';
        for (size_t i = 0; i < ARRAY_SIZE(outs) && !buf[0]; i++) {
                const char *d = outs[i]->data, *end, *start;
                size_t n = 0;
                if (!d || !outs[i]->len)
                        continue;
                end = d + outs[i]->len;
                while (end > d && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
                        end--;
                for (start = end; start > d && start[-1] != '\n';)
                        start--;
                for (; start < end && n + 1 < size; start++)
                        buf[n++] = (unsigned char)*start < 0x20 || *start == 0x7f ? '?' : *start;
                buf[n] = '\0';
        }
}

/* A tiling that fails says why only in what it printed: the message says it too. */
static void add_printed_reason(json_t *error, const struct child_result *r)
{
        const char *kind = json_string_value(json_object_get(error, "kind"));
        const char *message = json_string_value(json_object_get(error, "message"));
        char line[300], *joined = NULL;

        if (!kind || !message || strcmp(kind, "tiling_error") != 0)
                return;
        last_printed_line(r, line, sizeof(line));
        if (!line[0] || asprintf(&joined, "%s; it printed: %s", message, line) < 0)
                return;
        json_object_set_new(error, "message", json_string(joined));
        free(joined);
}

/* Files a run may leave in its work directory; past it, the tree is not even walked further. */
#define SCRATCH_MAX_ENTRIES 100000

/*
 * Whether the run that just ended left more in the work directory than
 * limits.scratch_bytes (or SCRATCH_MAX_ENTRIES files); the evaluation then
 * ends as the operator's runtime_error, naming the limit.  Each file was
 * capped by RLIMIT_FSIZE while it ran; this bounds their sum.
 */
static bool scratch_exceeded(struct npu_sim_run *e)
{
        uint64_t limit = child_limits_or_defaults(e->options.limits).scratch_bytes, bytes = 0,
                 entries = 0;
        char message[256];

        if (dir_usage(e->work_dir, limit, SCRATCH_MAX_ENTRIES, &bytes, &entries) < 0)
                return false;
        if (bytes > limit)
                snprintf(message, sizeof(message),
                         "the work directory holds more than %" PRIu64 " MiB after case %zu: "
                         "past the scratch limit (episode.rlimits.scratch_mb, eval --scratch-mb)",
                         limit >> 20, e->next_case);
        else if (entries > SCRATCH_MAX_ENTRIES)
                snprintf(message, sizeof(message),
                         "the work directory holds more than %d entries (or is nested deeper than "
                         "%d) after case %zu: past the scratch limit",
                         SCRATCH_MAX_ENTRIES, DIR_USAGE_MAX_DEPTH, e->next_case);
        else
                return false;
        sim_run_fail(e, "runtime_error",
                     json_pack("{s:s, s:s}", "kind", "runtime_error", "message", message));
        return true;
}

/*
 * Copies the case's trace from its folder to the path the caller asked
 * for, and names that path in the case's profile.  A run asked for a
 * trace it cannot deliver fails, naming the file: nothing is left for
 * the user to find missing afterwards.  0 also when the case has none.
 */
static int copy_case_trace(struct npu_sim_run *e, json_t *case_result)
{
        json_t *profile = json_object_get(case_result, "profile");
        char from[PATH_MAX];
        int r;

        if (!e->options.trace_path || !json_object_get(profile, "trace_path"))
                return 0;
        r = format_path(from, sizeof(from), "%s/case_%zu/" CASE_TRACE_FILE, e->work_dir,
                        e->next_case);
        if (r == 0)
                r = copy_file(from, e->options.trace_path, 0644, true);
        if (r < 0) {
                char message[PATH_MAX + 128];
                snprintf(message, sizeof(message), "cannot write the trace to %s: %s",
                         e->options.trace_path, strerror(-r));
                sim_run_fail(e, "runtime_error",
                             json_pack("{s:s, s:s}", "kind", "runtime_error", "message", message));
                return r;
        }
        json_object_set_new(profile, "trace_path", json_string(e->options.trace_path));
        return 0;
}

static void on_run_done(struct npu_sim_run *e, const struct child_result *r)
{
        const struct npu_case *c = &e->manifest->cases[e->next_case];
        char what[128];
        json_t *case_result;
        const char *status;

        if (r->timed_out) {
                sim_run_fail(e, "timeout",
                             json_pack("{s:s, s:s}", "kind", "timeout", "message",
                                       child_result_describe(r, what, sizeof(what))));
                return;
        }
        case_result = read_case_result(e);
        if (!case_result) {
                char message[2048];
                snprintf(message, sizeof(message), "case %s: the simulated run %s: %.1500s",
                         c->name, child_result_describe(r, what, sizeof(what)),
                         r->err.data && r->err.len ? r->err.data : "(no output)");
                sim_run_fail(e, "runtime_error",
                             json_pack("{s:s, s:s}", "kind", "runtime_error", "message", message));
                return;
        }
        json_object_set_new(case_result, "case", json_string(c->name));
        json_object_set_new(case_result, "bench", json_boolean(c->bench));
        if (copy_case_trace(e, case_result) < 0) {
                json_decref(case_result);
                return;
        }
        json_array_append(e->cases, case_result);
        status = json_string_value(json_object_get(case_result, "status"));
        if (!status || strcmp(status, "ok") != 0) {
                json_t *error = json_object_get(case_result, "error");
                if (error)
                        add_printed_reason(error, r);
                sim_run_finish(e, status ? status : "runtime_error",
                               error ? json_incref(error) : NULL);
                json_decref(case_result);
                return;
        }
        json_decref(case_result);
        sim_run_advance(e);
}

/* Clears the slot a finished child had and says which it was. */
static size_t forget_child(struct npu_sim_run *e, const struct child *child)
{
        for (size_t i = 0; i < ARRAY_SIZE(e->children); i++) {
                if (e->children[i] && e->children[i] == child) {
                        e->children[i] = NULL;
                        return i;
                }
        }
        return ARRAY_SIZE(e->children);
}

static void on_step_done(const struct child_result *r, void *userdata)
{
        struct npu_sim_run *e = userdata;
        size_t slot = forget_child(e, r->child);

        if (e->cancelled) {
                if ((e->step == STEP_COMPILE || e->step == STEP_PRECOMPILE) &&
                    --e->compiles_pending > 0)
                        return;
                sim_run_fail(e, "infra_error",
                             json_pack("{s:s, s:s+}", "kind", "infra_error", "message",
                                       e->cancel_errno == ENOSPC
                                           ? "out of disk space while evaluating: "
                                       : e->cancel_errno ? "cannot start the compiles: "
                                                         : "cancelled",
                                       e->cancel_errno ? strerror(e->cancel_errno) : ""));
                return;
        }
        switch (e->step) {
        case STEP_PRECOMPILE:
                sim_precompile_done(e, r, slot);
                return;
        case STEP_COMPILE:
                sim_compile_done(e, r, slot);
                return;
        case STEP_LINK:
                sim_link_done(e, r);
                return;
        case STEP_RUN:
                e->run_s += r->wall_s;
                if (!scratch_exceeded(e))
                        on_run_done(e, r);
                return;
        case STEP_DONE:
                return;
        }
}

/* Starts the next step, or finishes. */
void sim_run_advance(struct npu_sim_run *e)
{
        char err[1024] = "";
        int r = 0;

        switch (e->step) {
        case STEP_PRECOMPILE:
                r = sim_compiles_start(e);
                break;
        case STEP_COMPILE:
                e->step = STEP_LINK;
                r = sim_link_start(e);
                break;
        case STEP_LINK:
                if (e->options.build_only) {
                        sim_run_finish(e, "ok", NULL);
                        return;
                }
                e->step = STEP_RUN;
                e->next_case = e->options.only_case >= 0 ? (size_t)e->options.only_case : 0;
                while (e->options.only_case < 0 && e->options.skip_bench &&
                       e->next_case < e->manifest->n_cases &&
                       e->manifest->cases[e->next_case].bench)
                        e->next_case++;
                if (e->next_case >= e->manifest->n_cases) {
                        sim_run_finish(e, "ok", NULL);
                        return;
                }
                r = start_run(e, err, sizeof(err));
                break;
        case STEP_RUN:
                do
                        e->next_case++;
                while (e->options.only_case < 0 && e->options.skip_bench &&
                       e->next_case < e->manifest->n_cases &&
                       e->manifest->cases[e->next_case].bench);
                if (e->options.only_case >= 0 || e->next_case >= e->manifest->n_cases) {
                        sim_run_finish(e, "ok", NULL);
                        return;
                }
                r = start_run(e, err, sizeof(err));
                break;
        case STEP_DONE:
                return;
        }
        if (r < 0) {
                if (!err[0])
                        snprintf(err, sizeof(err), "cannot start a child process: %s",
                                 child_strerror(r));
                sim_run_fail(e, "infra_error",
                             json_pack("{s:s, s:s}", "kind", "infra_error", "message", err));
        }
}

/*
 * The work directory without links in its path (files sandboxed children
 * write there are read without following any), and inputs/ below it,
 * made afresh for what the evaluation hands its children.
 */
static int make_inputs_dir(struct npu_sim_run *e)
{
        char real[PATH_MAX];
        int r;

        if (!realpath(e->work_dir, real))
                return -errno;
        snprintf(e->work_dir, sizeof(e->work_dir), "%s", real);
        if (format_path(e->inputs_dir, sizeof(e->inputs_dir), "%s/inputs", e->work_dir) < 0)
                return -ENAMETOOLONG;
        r = rm_rf(e->inputs_dir);
        if (r < 0 && r != -ENOENT)
                return r;
        return mkdir(e->inputs_dir, 0755) < 0 ? -errno : 0;
}

/*
 * The operator's layout: the options' (an episode's candidate, laid out
 * like its base), else read from the manifest's folder and its repository.
 */
static int find_layout(struct npu_sim_run *e, char *err, size_t err_size)
{
        int r;

        if (e->options.layout) {
                e->layout = e->options.layout;
        } else {
                r = npu_op_layout_read(e->manifest->dir, NULL, &e->own_layout, err, err_size);
                if (r < 0)
                        return r;
                e->layout = e->own_layout;
        }
        if (e->layout->n_host_units > MAX_HOST_SOURCES) {
                snprintf(err, err_size, "%s: %zu host units, more than the limit of %d",
                         e->manifest->dir, e->layout->n_host_units, MAX_HOST_SOURCES);
                return -E2BIG;
        }
        e->n_host_sources = e->layout->n_host_units;
        return 0;
}

int npu_sim_run_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                      const struct npu_manifest *manifest,
                      const struct npu_sim_run_options *options, npu_sim_run_done_fn done,
                      void *userdata, struct npu_sim_run **ret_eval)
{
        struct npu_sim_run *e;
        int r;

        if (!runner || !paths || !manifest || !options || !done)
                return -EINVAL;
        if (options->only_case >= (int)manifest->n_cases)
                return -ERANGE;
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->runner = runner;
        e->paths = paths;
        e->manifest = manifest;
        e->options = *options;
        if (!e->options.platform)
                e->options.platform = "Ascend910B2";
        e->done = done;
        e->userdata = userdata;
        e->started = now_s();
        e->result = json_pack("{s:s, s:s, s:s, s:I}", "operator", manifest->name, "backend", "sim",
                              "platform", e->options.platform, "seed", (json_int_t)e->options.seed);
        e->cases = json_array();
        if (!e->result || !e->cases) {
                r = -ENOMEM;
                goto fail;
        }
        if (options->work_dir) {
                snprintf(e->work_dir, sizeof(e->work_dir), "%s", options->work_dir);
                r = mkdir_p(e->work_dir);
        } else {
                const char *tmp = getenv("TMPDIR");
                snprintf(e->work_dir, sizeof(e->work_dir), "%s/ascendopt-eval-XXXXXX",
                         tmp && *tmp ? tmp : "/tmp");
                r = mkdtemp(e->work_dir) ? 0 : -errno;
                e->work_dir_is_temporary = r == 0;
        }
        if (r < 0)
                goto fail;
        r = make_inputs_dir(e);
        if (r < 0)
                goto fail;
        r = find_layout(e, NULL, 0);
        if (r < 0)
                goto fail;
        r = sim_precompile_start(e);
        if (r == 0)
                r = sim_compiles_start(e);
        if (r < 0)
                goto fail;
        if (ret_eval)
                *ret_eval = e;
        return 0;
fail:
        if (!e->work_dir_is_temporary)
                e->work_dir[0] = '\0';
        eval_free(e);
        return r;
}

void npu_sim_run_cancel(struct npu_sim_run *e)
{
        if (!e)
                return;
        e->cancelled = true;
        for (size_t i = 0; i < ARRAY_SIZE(e->children); i++)
                child_cancel(e->children[i]);
}
