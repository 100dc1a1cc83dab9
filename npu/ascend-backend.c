/* SPDX-License-Identifier: MIT */
/*
 * The ascend backend's entry (npu/backend.h): its identity context (the
 * SoC, the CANN toolkit's version files, the launch counts), and its
 * start: the seeded inputs of every case written as files, which the
 * aclnn harness reads (a case that runs on its example's inputs reads the
 * copies the evaluator made, as the sim does), then one build of the
 * candidate and a measured run of each case on the leased device
 * (npu/ascend.c).
 */
#include "backend.h"
#include "evaluator.h"
#include "inputs.h"
#include "ascend.h"
#include "host.h"

#include "common/common.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

/*
 * The identity context of the ascend backend: the backend, the SoC, the
 * toolkit's version files and the launch counts, besides the evaluator's
 * version.  The toolkit root comes from the loaded environment when one is
 * given, else from the config / ASCEND_HOME_PATH / the defaults.
 */
static int ascend_context(const struct npu_sim_paths *paths,
                          const struct npu_evaluator_options *options,
                          char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size)
{
        const struct ascend_env *env = options->ascend_env;
        struct ascend_toolkit toolkit = { 0 };
        const char *root = NULL;
        char version[128], path[PATH_MAX];
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;
        size_t found = 0;
        int r = 0;

        if (env) {
                root = ascend_env_get(env, "ASCEND_HOME_PATH");
                if (!root)
                        root = ascend_env_get(env, "ASCEND_TOOLKIT_HOME");
        }
        if (!root) {
                r = ascend_toolkit_find(options->toolkit, getenv("ASCEND_HOME_PATH"), NULL,
                                        &toolkit, err, err_size);
                if (r < 0)
                        return r;
                root = toolkit.root;
        }
        sha256_init(&s);
        sha256_update(&s, "ascendopt-evaluator", 20);
        snprintf(version, sizeof(version), " v%d ascend %s launches %u warmup %u",
                 NPU_EVALUATOR_VERSION, options->platform, options->launch_count, options->warmup);
        sha256_update(&s, version, strlen(version) + 1);
        for (const char *const *f = npu_host_toolkit_version_files; *f; f++) {
                struct stat st;
                if (format_path(path, sizeof(path), "%s/%s", root, *f) < 0 || stat(path, &st) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                sha256_update(&s, *f, strlen(*f) + 1);
                npu_backend_hash_file(&s, path);
                found++;
        }
        if (!found) {
                snprintf(err, err_size,
                         "the CANN toolkit in %s has no version file (looked for %s, %s and "
                         "<arch>-linux/ascend_toolkit_install.info), so its results could not be "
                         "told from another toolkit's",
                         root, npu_host_toolkit_version_files[0],
                         npu_host_toolkit_version_files[3]);
                r = -ENOENT;
                goto out;
        }
        sha256_final(&s, digest);
        sha256_hex(digest, ret_context);
out:
        ascend_toolkit_release(&toolkit);
        return r;
}

/* One candidate on the real NPU, from its inputs to its result. */
struct ascend_job {
        struct child_runner *runner;
        const struct npu_evaluator_options *options; /* the evaluator's */
        const struct npu_manifest *manifest;         /* of the materialised copy */
        npu_backend_done_fn done;
        void *userdata;
        char dir[PATH_MAX]; /* the candidate's scratch directory */
        /* the repository the operator came from, when cann-ops' build.sh
         * builds it there: its build files go into the candidate's project */
        char repo_root[PATH_MAX];
        char op_relpath[PATH_MAX];
        uint64_t seed;
        bool build_only;
        struct ascend_eval *ascend; /* the build and runs in flight */
        json_t *case_inputs;        /* {case: [{name, dtype, shape, file}]} */
        struct ascend_case_run *runs;
        size_t n_runs;
        const char **input_files; /* runs[i].inputs point in here */
        int device;
        char work_dir[PATH_MAX];
        /* the inputs' worker thread and its answer */
        pthread_t inputs_thread;
        bool inputs_running;
        atomic_bool inputs_cancelled;
        int inputs_fd;
        struct event *inputs_event;
        json_t **input_lists;  /* per run, written by the thread */
        json_t *example_files; /* {case: {input: [paths]}}: the example inputs' copies */
        int inputs_r;
        char inputs_err[1024];
};

static void job_free(struct ascend_job *ev)
{
        if (!ev)
                return;
        if (ev->inputs_running) /* only on a failed start: the thread is short */
                pthread_join(ev->inputs_thread, NULL);
        if (ev->inputs_event)
                event_free(ev->inputs_event);
        if (ev->inputs_fd >= 0)
                close(ev->inputs_fd);
        for (size_t i = 0; ev->input_lists && i < ev->n_runs; i++)
                json_decref(ev->input_lists[i]);
        free(ev->input_lists);
        json_decref(ev->example_files);
        json_decref(ev->case_inputs);
        free(ev->runs);
        free(ev->input_files);
        free(ev);
}

/* Hands the result on, with the inputs the cases ran on, and lets go of the job. */
static void on_ascend_done(json_t *result, void *userdata)
{
        struct ascend_job *ev = userdata;
        npu_backend_done_fn done = ev->done;
        void *done_userdata = ev->userdata;
        size_t i;
        json_t *c;

        ev->ascend = NULL;
        /* the inputs the evaluator generated, as the sim's cases record theirs */
        json_array_foreach(json_object_get(result, "cases"), i, c)
        {
                json_t *inputs = json_object_get(
                    ev->case_inputs, json_string_value(json_object_get(c, "case")) ?: "");
                if (inputs && !json_object_get(c, "inputs"))
                        json_object_set(c, "inputs", inputs);
        }
        job_free(ev);
        done(result, done_userdata);
}

/* Ends an ascend evaluation that never reached the backend, from the loop. */
static void ascend_failed(struct ascend_job *ev, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void ascend_failed(struct ascend_job *ev, const char *fmt, ...)
{
        char message[2048];
        va_list ap;
        json_t *result;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        result =
            json_pack("{s:s, s:s, s:s, s:I, s:{s:s, s:s}, s:[]}", "operator", ev->manifest->name,
                      "backend", "ascend", "status", "infra_error", "seed", (json_int_t)ev->seed,
                      "error", "kind", "infra_error", "message", message, "cases");
        if (!result) {
                /* nothing sensible is left to tell; the caller must still hear */
                result = json_object();
                json_object_set_new(result, "status", json_string("infra_error"));
        }
        on_ascend_done(result, ev);
}

/*
 * The records [{name, dtype, shape, file}] of a case that runs on its
 * example's inputs (files: {input: [paths]}), in the order
 * npu_inputs_write gives them; nothing is generated.
 */
static int example_inputs(const struct npu_manifest *m, size_t case_index, const json_t *files,
                          json_t **ret, char *err, size_t err_size)
{
        const struct npu_case *c = &m->cases[case_index];
        json_t *list = json_array();

        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_inputs; i++) {
                const struct npu_tensor *t = &m->inputs[i];
                const json_t *shape = json_object_get(c->shapes, t->name);
                const json_t *paths = json_object_get(files, t->name);
                size_t n = t->is_list ? json_array_size(shape) : 1;

                if (json_is_null(shape))
                        continue; /* absent */
                if (json_array_size(paths) != n) {
                        json_decref(list);
                        return format_error(err, err_size, -EINVAL,
                                            "case %s: the example gives %zu files for input %s, "
                                            "which has %zu tensors",
                                            c->name, json_array_size(paths), t->name, n);
                }
                for (size_t j = 0; j < n; j++) {
                        json_t *entry = json_pack("{s:s, s:s, s:O, s:O}", "name", t->name, "dtype",
                                                  npu_dtype_name(t->dtype), "shape",
                                                  t->is_list ? json_array_get(shape, j) : shape,
                                                  "file", json_array_get(paths, j));
                        if (!entry || json_array_append_new(list, entry) < 0) {
                                json_decref(list);
                                return -ENOMEM;
                        }
                }
        }
        *ret = list;
        return 0;
}

/*
 * The inputs of every case, written by a worker thread: a bench case's
 * tensors run to hundreds of MB, far beyond what the loop may spend.  The
 * thread touches only its own files and JSON, and the manifest nobody
 * writes meanwhile; an eventfd brings the loop back.
 */
static void *write_inputs(void *arg)
{
        struct ascend_job *ev = arg;
        const uint64_t one = 1;
        ssize_t n;

        ev->inputs_r = 0;
        for (size_t i = 0; i < ev->n_runs && ev->inputs_r == 0; i++) {
                size_t k = ev->runs[i].case_index;
                char dir[PATH_MAX];
                if (atomic_load(&ev->inputs_cancelled)) {
                        ev->inputs_r = -ECANCELED;
                        snprintf(ev->inputs_err, sizeof(ev->inputs_err), "cancelled");
                        break;
                }
                const json_t *example =
                    json_object_get(ev->example_files, ev->manifest->cases[k].name);
                if (example) {
                        ev->inputs_r = example_inputs(ev->manifest, k, example, &ev->input_lists[i],
                                                      ev->inputs_err, sizeof(ev->inputs_err));
                        continue;
                }
                ev->inputs_r = format_path(dir, sizeof(dir), "%s/inputs/case_%zu", ev->dir, k);
                if (ev->inputs_r == 0)
                        ev->inputs_r = npu_inputs_write(ev->manifest, k, ev->runs[i].seed, dir,
                                                        &ev->input_lists[i], ev->inputs_err,
                                                        sizeof(ev->inputs_err));
                else
                        snprintf(ev->inputs_err, sizeof(ev->inputs_err),
                                 "the scratch path is too long");
        }
        do
                n = write(ev->inputs_fd, &one, sizeof(one));
        while (n < 0 && errno == EINTR);
        return NULL;
}

/* Back on the loop with the inputs: one build and a measured run per case. */
static void on_inputs_written(evutil_socket_t fd, short what, void *arg)
{
        struct ascend_job *ev = arg;
        const struct npu_evaluator_options *e = ev->options;
        const struct npu_manifest *m = ev->manifest;
        struct ascend_eval_options options = { 0 };
        size_t stride = m->n_inputs + 1;
        int r;

        (void)fd;
        (void)what;
        pthread_join(ev->inputs_thread, NULL);
        ev->inputs_running = false;
        if (atomic_load(&ev->inputs_cancelled)) {
                ascend_failed(ev, "cancelled");
                return;
        }
        if (ev->inputs_r < 0) {
                ascend_failed(ev, "writing the inputs: %s", ev->inputs_err);
                return;
        }
        for (size_t n = 0; n < ev->n_runs; n++) {
                const struct npu_case *c = &m->cases[ev->runs[n].case_index];
                json_t *list = ev->input_lists[n], *entry;
                size_t j;

                json_object_set(ev->case_inputs, c->name, list);
                for (size_t i = 0; i < m->n_inputs; i++) {
                        json_array_foreach(list, j, entry)
                        {
                                if (strcmp(json_string_value(json_object_get(entry, "name")),
                                           m->inputs[i].name) == 0) {
                                        ev->input_files[n * stride + i] =
                                            json_string_value(json_object_get(entry, "file"));
                                        break;
                                }
                        }
                        if (!ev->input_files[n * stride + i]) {
                                ascend_failed(ev, "%s: case %s gives input %s no shape", m->source,
                                              c->name, m->inputs[i].name);
                                return;
                        }
                }
                ev->runs[n].inputs = &ev->input_files[n * stride];
        }
        options.toolkit = e->toolkit;
        options.third_lib_path = e->third_lib_path;
        options.repo_root = ev->repo_root[0] ? ev->repo_root : NULL;
        options.op_relpath = ev->op_relpath[0] ? ev->op_relpath : NULL;
        options.env = e->ascend_env;
        options.soc = e->platform;
        options.device = ev->device;
        options.cases = ev->runs;
        options.n_cases = ev->n_runs;
        options.launch_count = e->launch_count;
        options.warmup = e->warmup;
        options.seed = ev->seed;
        options.timeout_s = e->timeout_s;
        options.work_dir = ev->work_dir;
        options.keep_work_dir = true;
        options.build_only = ev->build_only;
        r = ascend_eval_start(ev->runner, m, &options, on_ascend_done, ev, &ev->ascend);
        if (r < 0)
                ascend_failed(ev, "cannot start the ascend backend: %s", strerror(-r));
}

/*
 * The real NPU: the seeded inputs of every case are written as files (the
 * harness reads them) on a worker thread; then the candidate is built and
 * installed once and each case measured on the leased device.
 */
static int start_ascend(const struct npu_backend_candidate *c, npu_backend_done_fn done,
                        void *userdata, void **ret_run)
{
        const struct npu_manifest *m = c->manifest;
        const struct npu_request *req = c->request;
        struct ascend_job *ev = calloc(1, sizeof(*ev));
        int r;

        if (!ev)
                return -ENOMEM;
        ev->inputs_fd = -1;
        ev->runner = c->runner;
        ev->options = c->options;
        ev->manifest = m;
        ev->done = done;
        ev->userdata = userdata;
        ev->seed = req->seed;
        ev->build_only = req->build_only;
        snprintf(ev->dir, sizeof(ev->dir), "%s", c->dir);
        /* the candidate's scratch copy has only the files its sources read;
         * build.sh, cmake/ and the rest are the original repository's */
        if (npu_find_repo_root(req->manifest->dir, ev->repo_root, sizeof(ev->repo_root)) < 0 ||
            !ascend_is_cann_ops_root(ev->repo_root) || !c->layout || !c->layout->op_relpath[0] ||
            format_path(ev->op_relpath, sizeof(ev->op_relpath), "%s", c->layout->op_relpath) < 0)
                ev->repo_root[0] = ev->op_relpath[0] = '\0';
        ev->device = req->device;
        snprintf(ev->work_dir, sizeof(ev->work_dir), "%s", c->work_dir);
        ev->case_inputs = json_object();
        ev->runs = calloc(m->n_cases, sizeof(*ev->runs));
        ev->input_files = calloc(m->n_cases * (m->n_inputs + 1), sizeof(*ev->input_files));
        ev->input_lists = calloc(m->n_cases, sizeof(*ev->input_lists));
        /* the thread's own copy: nothing on the loop touches it meanwhile */
        ev->example_files = c->input_files ? json_deep_copy(c->input_files) : NULL;
        if (!ev->case_inputs || !ev->runs || !ev->input_files || !ev->input_lists ||
            (c->input_files && !ev->example_files)) {
                r = -ENOMEM;
                goto fail;
        }
        for (size_t k = 0; k < m->n_cases; k++) {
                /* a quick check leaves out the bench cases, unless nothing would be left */
                if (req->skip_bench && m->cases[k].bench &&
                    !(k + 1 == m->n_cases && ev->n_runs == 0))
                        continue;
                ev->runs[ev->n_runs].case_index = k;
                ev->runs[ev->n_runs].seed = req->seed + k; /* the sim's per-case seed */
                ev->n_runs++;
        }
        ev->inputs_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (ev->inputs_fd < 0) {
                r = -errno;
                goto fail;
        }
        ev->inputs_event =
            event_new(c->options->base, ev->inputs_fd, EV_READ, on_inputs_written, ev);
        if (!ev->inputs_event || event_add(ev->inputs_event, NULL) < 0) {
                r = -ENOMEM;
                goto fail;
        }
        r = -pthread_create(&ev->inputs_thread, NULL, write_inputs, ev);
        if (r < 0)
                goto fail;
        ev->inputs_running = true;
        *ret_run = ev;
        return 0;
fail:
        job_free(ev);
        return r;
}

static void cancel_ascend(void *run)
{
        struct ascend_job *ev = run;

        if (ev->ascend)
                ascend_eval_cancel(ev->ascend);
        if (ev->inputs_running)
                atomic_store(&ev->inputs_cancelled, true);
}

const struct npu_backend_ops npu_backend_ascend = {
        .name = "ascend",
        .needs_sim_paths = false,
        .needs_platform = true,
        .context = ascend_context,
        .start = start_ascend,
        .cancel = cancel_ascend,
};
