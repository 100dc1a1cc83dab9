/* SPDX-License-Identifier: MIT */
/*
 * The memoizing evaluator in front of the backends (npu/backend.h: the
 * sim, or a real NPU through npu/ascend.h): candidate identity, the
 * candidate memo in the store, materialisation of a candidate's files in a
 * scratch directory, correctness against a reference result, and the
 * content-addressed record of every measured candidate's sources.
 */
#include "evaluator.h"
#include "backend.h"
#include "evaluator-internal.h"
#include "inputs.h"

#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_FILES      256
#define FILE_MAX_BYTES (4u << 20)

struct npu_evaluator {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;
        struct store *store;
        struct npu_evaluator_options options;
        char *scratch_dir;
        char *cache_dir;
        char *platform;
        char *toolkit;        /* ascend: the configured toolkit, or NULL */
        char *third_lib_path; /* ascend: build.sh --third_lib_path, or NULL */
        char context[SHA256_HEX_SIZE];
        struct npu_examples *examples; /* the example inputs, prepared once per operator */
        unsigned long long counter;
        unsigned long long runs; /* candidates handed to the backend */
};

/*
 * One file of a candidate: the base operator's bytes or an override, or
 * (shared) a file of the repository outside the operator that its build
 * reads, named relative to the repository's root.
 */
struct candidate_file {
        char path[PATH_MAX];
        char *text;
        size_t len;
        bool shared;
        bool golden; /* the Python a golden runs: where the example inputs come from */
};

struct candidate {
        struct candidate_file files[MAX_FILES];
        size_t n;
};

struct npu_job {
        struct npu_evaluator *evaluator;
        npu_evaluated_fn done;
        void *userdata;
        char identity[SHA256_HEX_SIZE];
        char dir[PATH_MAX];
        struct npu_manifest *manifest; /* of the materialised copy */
        struct npu_op_layout *layout;  /* the base's, then the materialised copy's */
        json_t *reference;
        json_t *memo;
        bool keep_outputs;
        bool skip_bench;
        bool build_only;
        double slow_after_us;
        uint64_t seed;
        json_t *files; /* {path: blob sha} */
        struct event *later;
        void *run;     /* the backend's build and run in flight; NULL on a memo hit and once done */
        bool coverage; /* run is a struct npu_sim_coverage (npu_host_coverage) */
        /* the request, kept while it waits for the example inputs (no overrides: c has them) */
        struct npu_request request;
        struct candidate *pending;     /* the candidate's files meanwhile */
        struct npu_example_wait *wait; /* the wait for the example inputs, or NULL */
        json_t *input_files;           /* the copies of the example inputs the backend reads */
        char why[1024];                /* the reason of a failure delivered from the loop */
        char work_dir[PATH_MAX];       /* the backend's, below dir */
        /* the launch memo's base (sim only; "" otherwise), and whether run is its probe */
        char launch_base[SHA256_HEX_SIZE];
        bool probing;
        json_t *probe_inputs; /* the probe's copies of the example inputs */
};

int npu_evaluator_new(struct child_runner *runner, const struct npu_sim_paths *paths,
                      struct store *store, const struct npu_evaluator_options *options,
                      struct npu_evaluator **ret_evaluator, char *err, size_t err_size)
{
        const struct npu_backend_ops *backend;
        struct npu_evaluator *e;
        int r;

        if (!runner || !store || !options || !options->base || !options->scratch_dir)
                return -EINVAL;
        backend = npu_backend_get(options->backend);
        if (backend->needs_sim_paths && !paths)
                return -EINVAL;
        if (backend->needs_platform && !options->platform) {
                snprintf(err, err_size,
                         "the %s backend needs the SoC of its devices (platform, e.g. "
                         "Ascend910B4)",
                         backend->name);
                return -EINVAL;
        }
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->runner = runner;
        e->paths = paths;
        e->store = store;
        e->options = *options;
        e->platform = strdup(options->platform ? options->platform : "Ascend910B2");
        e->scratch_dir = strdup(options->scratch_dir);
        e->cache_dir = options->cache_dir ? strdup(options->cache_dir) : NULL;
        e->toolkit = options->toolkit ? strdup(options->toolkit) : NULL;
        e->third_lib_path = options->third_lib_path ? strdup(options->third_lib_path) : NULL;
        if (!e->platform || !e->scratch_dir || (options->cache_dir && !e->cache_dir) ||
            (options->toolkit && !e->toolkit) || (options->third_lib_path && !e->third_lib_path)) {
                r = -ENOMEM;
                goto fail;
        }
        e->options.platform = e->platform;
        e->options.scratch_dir = e->scratch_dir;
        e->options.cache_dir = e->cache_dir;
        e->options.toolkit = e->toolkit;
        e->options.third_lib_path = e->third_lib_path;
        r = mkdir_p(e->scratch_dir);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot create: %s", e->scratch_dir, strerror(-r));
                goto fail;
        }
        /* children run elsewhere (and in a sandbox that binds by path): use absolute paths */
        {
                char *absolute = realpath(e->scratch_dir, NULL);
                if (!absolute) {
                        r = -errno;
                        goto fail;
                }
                free(e->scratch_dir);
                e->scratch_dir = absolute;
                e->options.scratch_dir = absolute;
        }
        if (e->cache_dir) {
                char *absolute;
                r = mkdir_p(e->cache_dir);
                absolute = r == 0 ? realpath(e->cache_dir, NULL) : NULL;
                if (!absolute) {
                        snprintf(err, err_size, "%s: cannot create the object cache", e->cache_dir);
                        r = r < 0 ? r : -errno;
                        goto fail;
                }
                free(e->cache_dir);
                e->cache_dir = absolute;
                e->options.cache_dir = absolute;
        }
        r = backend->context(e->paths, &e->options, e->context, err, err_size);
        if (r < 0)
                goto fail;
        {
                const struct npu_examples_options examples = {
                        .base = options->base,
                        .runner = runner,
                        .scratch_dir = e->scratch_dir,
                        .sandbox = options->sandbox,
                };
                r = npu_examples_new(&examples, &e->examples);
                if (r < 0)
                        goto fail;
        }
        *ret_evaluator = e;
        return 0;
fail:
        npu_evaluator_free(e);
        return r;
}

struct npu_evaluator *npu_evaluator_free(struct npu_evaluator *e)
{
        if (!e)
                return NULL;
        npu_examples_free(e->examples);
        free(e->scratch_dir);
        free(e->cache_dir);
        free(e->platform);
        free(e->toolkit);
        free(e->third_lib_path);
        free(e);
        return NULL;
}

const char *npu_evaluator_context(const struct npu_evaluator *e)
{
        return e->context;
}

const char *npu_evaluator_platform(const struct npu_evaluator *e)
{
        return e->platform;
}

char *npu_evaluator_platform_facts(const struct npu_evaluator *e)
{
        /* the ascend backend has no simulator files, so no platform file to read */
        return e->paths ? npu_platform_facts(e->paths->platforms_dir, e->platform) : NULL;
}

/* ------------------------------------------------------------ candidates */

static void candidate_release(struct candidate *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->files[i].text);
        c->n = 0;
}

/* The regular files below root/sub, op_kernel's subfolders included; links are not followed. */
static int add_base_files(struct candidate *c, const char *root, const char *sub, int depth)
{
        char dir[PATH_MAX];
        char *names[MAX_FILES];
        size_t n = 0;
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (format_path(dir, sizeof(dir), "%s/%s", root, sub) < 0)
                return -ENAMETOOLONG;
        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((e = readdir(d)) && n < MAX_FILES)
                if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
                        n++;
        closedir(d);
        for (size_t i = 0; i < n; i++) {
                char full[PATH_MAX];
                struct stat st;
                struct candidate_file *f;
                if (r < 0 || format_path(full, sizeof(full), "%s/%s", dir, names[i]) < 0 ||
                    lstat(full, &st) < 0) {
                        free(names[i]);
                        continue;
                }
                if (S_ISDIR(st.st_mode) && depth < 4) {
                        char deeper[PATH_MAX];
                        if (format_path(deeper, sizeof(deeper), "%s/%s", sub, names[i]) == 0)
                                r = add_base_files(c, root, deeper, depth + 1);
                        free(names[i]);
                        continue;
                }
                if (!S_ISREG(st.st_mode)) {
                        free(names[i]);
                        continue;
                }
                if (c->n == MAX_FILES) {
                        log_error("%s: more than %d files under op_host/ and op_kernel/, the most "
                                  "an operator may have (each is copied into every candidate)",
                                  root, MAX_FILES);
                        r = -E2BIG;
                        free(names[i]);
                        continue;
                }
                if (st.st_size > (off_t)FILE_MAX_BYTES) {
                        log_error("%s: %lld bytes, over the %u MiB an operator's file may have "
                                  "(each is copied into every candidate); keep data out of "
                                  "op_host/ and op_kernel/",
                                  full, (long long)st.st_size, FILE_MAX_BYTES >> 20);
                        r = -EFBIG;
                        free(names[i]);
                        continue;
                }
                f = &c->files[c->n];
                r = format_path(f->path, sizeof(f->path), "%s/%s", sub, names[i]);
                if (r == 0)
                        r = read_text_file(full, FILE_MAX_BYTES, &f->text, &f->len);
                if (r == 0)
                        c->n++;
                free(names[i]);
        }
        return r;
}

/* Adds root/path, a golden's Python, unless the candidate has it already. */
static int add_golden_file(struct candidate *c, const char *root, const char *path)
{
        struct candidate_file *f = &c->files[c->n];
        char full[PATH_MAX];
        int r;

        for (size_t i = 0; i < c->n; i++)
                if (strcmp(c->files[i].path, path) == 0) {
                        c->files[i].golden = true;
                        return 0;
                }
        if (c->n == MAX_FILES)
                return -E2BIG;
        r = format_path(full, sizeof(full), "%s/%s", root, path);
        if (r == 0)
                r = format_path(f->path, sizeof(f->path), "%s", path);
        if (r == 0)
                r = read_text_file(full, FILE_MAX_BYTES, &f->text, &f->len);
        if (r == 0) {
                f->golden = true;
                c->n++;
        }
        return r;
}

/*
 * The Python files the manifest's goldens run: an msOpSt expectation
 * function's file, and an example's gen_data.py with the modules beside it
 * that it may import.  The example's inputs come from them, so they belong
 * to the candidate (and its identity) as its sources do.
 */
static int add_golden_files(struct candidate *c, const struct npu_manifest *m)
{
        int r = 0;

        for (size_t i = 0; r == 0 && i < m->n_cases; i++) {
                const json_t *golden = m->cases[i].golden;
                const char *function = json_string_value(json_object_get(golden, "function"));
                const char *example = json_string_value(json_object_get(golden, "example"));
                const char *colon = function ? strrchr(function, ':') : NULL;
                char path[PATH_MAX], dir[PATH_MAX];
                struct dirent *e;
                DIR *d;

                if (colon) {
                        snprintf(path, sizeof(path), "%.*s", (int)(colon - function), function);
                        r = add_golden_file(c, m->dir, path);
                        continue;
                }
                if (!example || format_path(dir, sizeof(dir), "%s/%s", m->dir, example) < 0)
                        continue;
                d = opendir(dir);
                while (d && r == 0 && (e = readdir(d))) {
                        size_t len = strlen(e->d_name);
                        if (e->d_name[0] == '.' || len < 4 || strcmp(e->d_name + len - 3, ".py"))
                                continue;
                        if (format_path(path, sizeof(path), "%s/%s", example, e->d_name) == 0)
                                r = add_golden_file(c, m->dir, path);
                }
                if (d)
                        closedir(d);
        }
        return r;
}

static int compare_files(const void *a, const void *b)
{
        return strcmp(((const struct candidate_file *)a)->path,
                      ((const struct candidate_file *)b)->path);
}

/*
 * The base operator's files with the overrides applied, sorted by path,
 * then the repository's files its build reads (layout), which candidates
 * never change.
 */
static int candidate_load(const struct npu_request *req, const struct npu_op_layout *layout,
                          struct candidate *c)
{
        const char *root = req->manifest->dir;
        char manifest[PATH_MAX];
        size_t own;
        int r;

        c->n = 0;
        r = add_base_files(c, root, "op_host", 0);
        if (r == 0)
                r = add_base_files(c, root, "op_kernel", 0);
        if (r == 0 && format_path(manifest, sizeof(manifest), "%s/ascendopt.json", root) == 0) {
                struct candidate_file *f = &c->files[c->n];
                snprintf(f->path, sizeof(f->path), "ascendopt.json");
                r = read_text_file(manifest, FILE_MAX_BYTES, &f->text, &f->len);
                c->n += r == 0;
        }
        if (r == 0)
                r = add_golden_files(c, req->manifest);
        for (size_t i = 0; r == 0 && i < req->n_overrides; i++) {
                const struct npu_override *o = &req->overrides[i];
                struct candidate_file *f = NULL;
                if (!o->path || !o->text || strstr(o->path, "..") || o->path[0] == '/') {
                        r = -EINVAL;
                        break;
                }
                for (size_t j = 0; j < c->n && !f; j++)
                        if (strcmp(c->files[j].path, o->path) == 0)
                                f = &c->files[j];
                if (!f) {
                        if (c->n == MAX_FILES) {
                                r = -E2BIG;
                                break;
                        }
                        f = &c->files[c->n++];
                        snprintf(f->path, sizeof(f->path), "%s", o->path);
                        f->text = NULL;
                }
                free(f->text);
                f->text = strdup(o->text);
                f->len = f->text ? strlen(f->text) : 0;
                if (!f->text)
                        r = -ENOMEM;
        }
        own = c->n;
        for (size_t i = 0; r == 0 && layout && i < layout->n_shared_files; i++) {
                struct candidate_file *f = &c->files[c->n];
                char full[PATH_MAX];
                if (c->n == MAX_FILES) {
                        r = -E2BIG;
                        break;
                }
                r = format_path(full, sizeof(full), "%s/%s", layout->repo_root,
                                layout->shared_files[i]);
                if (r == 0)
                        r = format_path(f->path, sizeof(f->path), "%s", layout->shared_files[i]);
                if (r == 0)
                        r = read_text_file(full, FILE_MAX_BYTES, &f->text, &f->len);
                if (r == 0) {
                        f->shared = true;
                        c->n++;
                }
        }
        if (r < 0) {
                candidate_release(c);
                return r;
        }
        qsort(c->files, own, sizeof(*c->files), compare_files);
        return 0;
}

/*
 * Whether f is one of the operator's op_host translation units, which reach
 * the kernel only through its launch.  The compile cache assumes the same:
 * the kernel unit's key hashes op_host's headers, never its units.
 */
static bool is_host_unit(const struct candidate_file *f)
{
        static const char *const headers[] = { ".h", ".hpp", ".hh", ".inc" };
        size_t len = strlen(f->path);

        if (f->shared || strncmp(f->path, "op_host/", 8) != 0)
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(headers); i++) {
                size_t n = strlen(headers[i]);
                if (len > n && strcmp(f->path + len - n, headers[i]) == 0)
                        return false;
        }
        return true;
}

/*
 * The digest of the context, every file (each op_host unit left out when
 * without_host_units) and, for an operator whose cases come from examples,
 * where each example case's inputs came from (origin), so that a result on
 * seeded inputs is never served for one on the example's, nor the other
 * way round.  Results from before example inputs ran in the evaluator had
 * no origin, so none of them is served either.  tag, when not NULL, comes
 * first and keeps one kind of digest apart from another.
 */
static void files_digest(const struct npu_evaluator *e, const struct candidate *c,
                         const char *origin, const char *tag, bool without_host_units,
                         char hex[SHA256_HEX_SIZE])
{
        struct sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];
        char length[32];

        sha256_init(&s);
        if (tag)
                sha256_update(&s, tag, strlen(tag) + 1);
        sha256_update(&s, e->context, SHA256_HEX_SIZE - 1);
        if (origin)
                sha256_update(&s, origin, strlen(origin) + 1);
        for (size_t i = 0; i < c->n; i++) {
                if (without_host_units && is_host_unit(&c->files[i]))
                        continue;
                snprintf(length, sizeof(length), "%zu", c->files[i].len);
                /* a repository file is named apart from any of the operator's */
                if (c->files[i].shared)
                        sha256_update(&s, "@repo/", 6);
                sha256_update(&s, c->files[i].path, strlen(c->files[i].path) + 1);
                sha256_update(&s, length, strlen(length) + 1);
                sha256_update(&s, c->files[i].text, c->files[i].len);
        }
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
}

/* The identity: every file. */
static void candidate_digest(const struct npu_evaluator *e, const struct candidate *c,
                             const char *origin, char hex[SHA256_HEX_SIZE])
{
        files_digest(e, c, origin, NULL, false, hex);
}

/*
 * The key of a candidate's example inputs: the manifest and the golden's
 * Python, the files they come from, which no candidate changes.
 */
static void examples_key(const struct candidate *c, char hex[SHA256_HEX_SIZE])
{
        struct sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];
        char length[32];

        sha256_init(&s);
        sha256_update(&s, "ascendopt example inputs 1", 27);
        for (size_t i = 0; i < c->n; i++) {
                const struct candidate_file *f = &c->files[i];
                if (f->shared || (!f->golden && strcmp(f->path, "ascendopt.json") != 0))
                        continue;
                snprintf(length, sizeof(length), "%zu", f->len);
                sha256_update(&s, f->path, strlen(f->path) + 1);
                sha256_update(&s, length, strlen(length) + 1);
                sha256_update(&s, f->text, f->len);
        }
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
}

/* The example inputs prepared for the candidate c, or NULL: none yet, or no examples. */
static const struct npu_example_set *prepared_examples(const struct npu_evaluator *e,
                                                       const struct npu_manifest *m,
                                                       const struct candidate *c)
{
        char key[SHA256_HEX_SIZE];

        if (!npu_manifest_has_examples(m))
                return NULL;
        examples_key(c, key);
        return npu_examples_peek(e->examples, key);
}

int npu_candidate_identity(const struct npu_evaluator *e, const struct npu_request *req,
                           char hex[SHA256_HEX_SIZE])
{
        struct candidate *c = calloc(1, sizeof(*c));
        struct npu_op_layout *layout = NULL;
        char *expected = NULL;
        int r;

        if (!c)
                return -ENOMEM;
        r = npu_op_layout_read(req->manifest->dir, NULL, &layout, NULL, 0);
        if (r == 0)
                r = candidate_load(req, layout, c);
        if (r == 0 && npu_manifest_has_examples(req->manifest)) {
                /* as the preparation came out, or as it comes out when it works */
                const struct npu_example_set *set = prepared_examples(e, req->manifest, c);
                expected = set ? strdup(npu_example_set_origin(set))
                               : npu_examples_expected_origin(req->manifest);
                if (!expected)
                        r = -ENOMEM;
        }
        if (r == 0)
                candidate_digest(e, c, expected, hex);
        free(expected);
        candidate_release(c);
        free(c);
        npu_op_layout_free(layout);
        return r;
}

/*
 * Writes the candidate's files: the operator's under op_dir, creating
 * op_host/ and op_kernel/, and the repository's it reads under root
 * (NULL: only the operator's).
 */
static int candidate_write(const struct candidate *c, const char *root, const char *op_dir)
{
        for (size_t i = 0; i < c->n; i++) {
                char path[PATH_MAX], parent[PATH_MAX];
                char *slash;
                FILE *f;
                int r;
                if (c->files[i].shared && !root)
                        continue;
                r = format_path(path, sizeof(path), "%s/%s", c->files[i].shared ? root : op_dir,
                                c->files[i].path);
                if (r < 0)
                        return r;
                snprintf(parent, sizeof(parent), "%s", path);
                slash = strrchr(parent, '/');
                if (slash) {
                        *slash = '\0';
                        r = mkdir_p(parent);
                        if (r < 0)
                                return r;
                }
                f = fopen(path, "we");
                if (!f)
                        return -errno;
                if (fwrite(c->files[i].text, 1, c->files[i].len, f) != c->files[i].len) {
                        fclose(f);
                        return -EIO;
                }
                if (fclose(f) != 0)
                        return -errno;
        }
        return 0;
}

/* The operator's own files, where the example inputs are prepared (npu_examples_write_fn). */
static int write_own_files(const char *dir, void *ctx)
{
        return candidate_write(ctx, NULL, dir);
}

/* ------------------------------------------------------------ evaluation */

static void evaluation_free(struct npu_job *ev)
{
        if (!ev)
                return;
        if (ev->pending) {
                candidate_release(ev->pending);
                free(ev->pending);
        }
        json_decref(ev->input_files);
        json_decref(ev->probe_inputs);
        if (!ev->keep_outputs && ev->dir[0])
                rm_rf(ev->dir);
        npu_op_layout_free(ev->layout);
        if (ev->later)
                event_free(ev->later);
        npu_manifest_free(ev->manifest);
        json_decref(ev->reference);
        json_decref(ev->memo);
        json_decref(ev->files);
        free(ev);
}

static void deliver_memo(evutil_socket_t fd, short what, void *arg)
{
        struct npu_job *ev = arg;
        json_t *result = ev->memo;

        (void)fd;
        (void)what;
        ev->memo = NULL;
        ev->done(result, true, ev->userdata);
        evaluation_free(ev);
}

/* The result as stored: no paths into scratch directories. */
static json_t *storable(const json_t *result)
{
        json_t *copy = json_deep_copy(result), *c;
        size_t i;

        json_object_del(copy, "work_dir");
        json_object_del(copy, "scratch_dir");
        json_array_foreach(json_object_get(copy, "cases"), i, c)
        {
                size_t j;
                json_t *o;
                json_array_foreach(json_object_get(c, "outputs"), j, o)
                {
                        json_object_del(o, "file");
                        json_object_del(o, "written_file");
                }
                json_array_foreach(json_object_get(c, "inputs"), j, o) json_object_del(o, "file");
        }
        return copy;
}

static void on_coverage_done(json_t *coverage, const char *error, void *userdata)
{
        struct npu_job *ev = userdata;
        json_t *result;

        ev->run = NULL;
        if (coverage)
                result = json_pack("{s:s, s:o}", "status", "ok", "coverage", coverage);
        else
                result = json_pack("{s:s, s:{s:s, s:s}}", "status", "infra_error", "error", "kind",
                                   "infra_error", "message", error ? error : "failed");
        if (!result)
                result = json_pack("{s:s}", "status", "infra_error"); /* NULL: out of memory */
        rm_rf(ev->dir);
        ev->dir[0] = '\0';
        ev->done(result, false, ev->userdata);
        evaluation_free(ev);
}

/*
 * The operator's example inputs, as its evaluations prepared them, copied
 * into dir for the coverage run: a tiling that reads an input's values
 * must run on the inputs its cases name.  *ret stays NULL when the
 * manifest has no examples or they are not prepared yet (the run is then
 * on seeded inputs, as before the first evaluation).
 */
static int coverage_inputs(const struct npu_evaluator *e, const struct npu_manifest *m,
                           const char *dir, json_t **ret)
{
        const struct npu_request req = { .manifest = m };
        struct candidate *c = calloc(1, sizeof(*c));
        struct npu_op_layout *layout = NULL;
        const struct npu_example_set *set;
        char inputs[PATH_MAX], err[1024] = "";
        int r;

        *ret = NULL;
        if (!c)
                return -ENOMEM;
        r = npu_op_layout_read(m->dir, NULL, &layout, NULL, 0);
        if (r == 0)
                r = candidate_load(&req, layout, c);
        set = r == 0 ? prepared_examples(e, m, c) : NULL;
        if (set) {
                r = format_path(inputs, sizeof(inputs), "%s/example_inputs", dir);
                if (r == 0)
                        r = npu_example_set_copy(set, m, inputs, ret, err, sizeof(err));
                if (r < 0)
                        log_warning("%s: the host code's coverage runs on seeded inputs: %s",
                                    m->name, *err ? err : strerror(-r));
        }
        candidate_release(c);
        free(c);
        npu_op_layout_free(layout);
        return r;
}

int npu_host_coverage(struct npu_evaluator *e, const struct npu_manifest *manifest,
                      npu_evaluated_fn done, void *userdata, struct npu_job **ret_job)
{
        struct npu_sim_run_options options = {
                .platform = e->options.backend == NPU_BACKEND_SIM ? e->platform : NULL,
                .timeout_s = e->options.timeout_s,
                .limits = e->options.limits,
                .sandbox = e->options.sandbox,
                .permissive = e->options.permissive,
                .only_case = -1,
        };
        struct npu_job *ev;
        int r;

        if (!e || !manifest || !done)
                return -EINVAL;
        if (!e->paths)
                return -ENOTSUP;
        ev = calloc(1, sizeof(*ev));
        if (!ev)
                return -ENOMEM;
        ev->evaluator = e;
        ev->done = done;
        ev->userdata = userdata;
        ev->coverage = true;
        r = format_path(ev->dir, sizeof(ev->dir), "%s/coverage-%llu", e->scratch_dir, ++e->counter);
        if (r == 0) {
                rm_rf(ev->dir);
                if (mkdir_p(ev->dir) == 0 &&
                    coverage_inputs(e, manifest, ev->dir, &ev->input_files) == 0)
                        options.input_files =
                            json_object_size(ev->input_files) ? ev->input_files : NULL;
                r = npu_sim_coverage_start(e->runner, e->paths, manifest, &options, ev->dir,
                                           on_coverage_done, ev,
                                           (struct npu_sim_coverage **)&ev->run);
        }
        if (r < 0) {
                rm_rf(ev->dir);
                ev->dir[0] = '\0';
                json_decref(ev->input_files);
                free(ev);
                return r;
        }
        if (ret_job)
                *ret_job = ev;
        return 0;
}

static void launch_note(const struct npu_job *ev, json_t *stored);

static void on_backend_done(json_t *result, void *userdata)
{
        struct npu_job *ev = userdata;
        struct npu_evaluator *e = ev->evaluator;
        const char *status = json_string_value(json_object_get(result, "status"));
        char err[1024];

        ev->run = NULL;
        json_object_set_new(result, "identity", json_string(ev->identity));
        if (ev->keep_outputs)
                json_object_set_new(result, "scratch_dir", json_string(ev->dir));
        json_object_set_new(result, "context", json_string(e->context));
        json_object_set(result, "files", ev->files);
        if (status && strcmp(status, "slow") == 0)
                json_object_set_new(result, "slow_after_us", json_real(ev->slow_after_us));
        if (status && strcmp(status, "ok") == 0 && ev->reference && !ev->build_only &&
            npu_compare_results(ev->manifest, result, ev->reference, err, sizeof(err)) < 0) {
                /* the reference could not be read: say so rather than guess */
                json_object_set_new(result, "status", json_string("infra_error"));
                if (json_object_set_new(
                        result, "error",
                        json_pack("{s:s, s:s}", "kind", "infra_error", "message", err)) < 0)
                        log_error("%s: out of memory; the reference: %s", ev->manifest->name, err);
        }
        status = json_string_value(json_object_get(result, "status"));
        if (status && strcmp(status, "infra_error") != 0 && !ev->skip_bench && !ev->build_only) {
                struct store_batch *b = store_batch_new(e->store);
                json_t *stored = storable(result);
                if (stored)
                        launch_note(ev, stored);
                if (b && stored && store_candidate_put(b, ev->identity, stored) == 0) {
                        if (store_launch_put(b, ev->identity, stored) < 0)
                                log_warning("%s: cannot file the candidate under its launch",
                                            ev->manifest->name);
                        store_batch_commit(b);
                }
                json_decref(stored);
                store_batch_free(b);
        }
        ev->done(result, false, ev->userdata);
        evaluation_free(ev);
}

/* Records the candidate's texts as blobs and returns {path: sha}. */
static json_t *store_sources(struct npu_evaluator *e, const struct candidate *c)
{
        struct store_batch *b = store_batch_new(e->store);
        json_t *files = json_object();

        if (!b || !files) {
                store_batch_free(b);
                json_decref(files);
                return NULL;
        }
        for (size_t i = 0; i < c->n; i++) {
                char hex[SHA256_HEX_SIZE];
                /* the repository's files are part of the identity, not of the operator */
                if (c->files[i].shared)
                        continue;
                store_blob_put(b, c->files[i].text, c->files[i].len, hex);
                json_object_set_new(files, c->files[i].path, json_string(hex));
        }
        if (store_batch_commit(b) < 0) {
                json_decref(files);
                files = NULL;
        }
        store_batch_free(b);
        return files;
}

/*
 * A memoized slow result answers only "is it slower than L?" for the limit
 * L it ran under: a request with no limit, or a higher one, runs again.
 */
static bool slow_memo_too_strict(json_t **memo, double slow_after_us)
{
        double limit = json_number_value(json_object_get(*memo, "slow_after_us"));

        if (strcmp(json_string_value(json_object_get(*memo, "status")) ?: "", "slow") != 0)
                return false;
        if (slow_after_us > 0 && slow_after_us <= limit)
                return false;
        /* dropped here, so that the evaluation does not release it a second time */
        json_decref(*memo);
        *memo = NULL;
        return true;
}

/* ------------------------------------------------------------ the launch memo */

/*
 * The launch memo's base: the candidate's identity without its op_host
 * units.  Two candidates with the same base build the same kernel object
 * from the same manifest; with the same launches too, they measure alike.
 */
static void launch_base(const struct npu_evaluator *e, const struct candidate *c,
                        const char *origin, char hex[SHA256_HEX_SIZE])
{
        files_digest(e, c, origin, "ascendopt launch base 1", true, hex);
}

/*
 * The digest of a launch: of the base and of every case's launch (its
 * name and launch_sha256, in the manifest's order).  -ENOENT when a case
 * did not run as far as its launch.
 */
static int launch_digest(const char *base, const struct npu_manifest *m, const json_t *result,
                         char hex[SHA256_HEX_SIZE])
{
        const json_t *cases = json_object_get(result, "cases");
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;

        if (!base[0] || json_array_size(cases) != m->n_cases || m->n_cases == 0)
                return -ENOENT;
        sha256_init(&s);
        sha256_update(&s, base, SHA256_HEX_SIZE - 1);
        for (size_t i = 0; i < m->n_cases; i++) {
                const json_t *c = json_array_get(cases, i);
                const char *name = json_string_value(json_object_get(c, "case"));
                const char *launch = json_string_value(json_object_get(c, "launch_sha256"));
                if (!name || strcmp(name, m->cases[i].name) != 0 || !launch ||
                    strlen(launch) != SHA256_HEX_SIZE - 1)
                        return -ENOENT;
                sha256_update(&s, name, strlen(name) + 1);
                sha256_update(&s, launch, SHA256_HEX_SIZE - 1);
        }
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
        return 0;
}

/*
 * Notes in a result to be stored which launch it measured ("launch": its
 * key and base), so that the store files it under them here
 * (store_launch_put) and in any store its memo is merged into.
 */
static void launch_note(const struct npu_job *ev, json_t *stored)
{
        char hex[SHA256_HEX_SIZE];

        if (launch_digest(ev->launch_base, ev->manifest, stored, hex) < 0)
                return;
        if (json_object_set_new(stored, "launch",
                                json_pack("{s:s, s:s}", "key", hex, "base", ev->launch_base)) < 0)
                log_warning("%s: cannot remember the candidate's launch (out of memory)",
                            ev->manifest->name);
}

/*
 * The result measured for the probe's launches, made this candidate's
 * (its identity and files, "launch_of" the measured one's), or NULL when
 * none was measured or it answers only for a stricter slow limit.
 */
static json_t *launch_served(struct npu_job *ev, const json_t *probe)
{
        struct npu_evaluator *e = ev->evaluator;
        char hex[SHA256_HEX_SIZE], key[sizeof(STORE_LAUNCH_PREFIX) + SHA256_HEX_SIZE];
        const char *measured;
        json_t *pointer = NULL, *memo = NULL;

        if (launch_digest(ev->launch_base, ev->manifest, probe, hex) < 0)
                return NULL;
        snprintf(key, sizeof(key), STORE_LAUNCH_PREFIX "%s", hex);
        if (store_get_json(e->store, STORE_CANDIDATES, key, &pointer) < 0)
                return NULL;
        measured = json_string_value(json_object_get(pointer, "identity"));
        if (!measured || store_candidate_get(e->store, measured, &memo) < 0 ||
            slow_memo_too_strict(&memo, ev->slow_after_us)) {
                json_decref(pointer);
                return NULL;
        }
        json_object_set_new(memo, "launch_of", json_string(measured));
        json_object_set_new(memo, "identity", json_string(ev->identity));
        json_object_set(memo, "files", ev->files);
        json_decref(pointer);
        return memo;
}

static int start_backend(struct npu_job *ev);
static void deliver_failure(evutil_socket_t fd, short what, void *arg);

/* The probe ended: its launches were measured before (a memo hit), or the candidate runs. */
static void on_probe_done(json_t *probe, void *userdata)
{
        struct npu_job *ev = userdata;
        struct npu_evaluator *e = ev->evaluator;
        const char *status = json_string_value(json_object_get(probe, "status"));
        bool cancelled = false;
        json_t *served = NULL;
        int r;

        ev->run = NULL;
        ev->probing = false;
        if (status && strcmp(status, "ok") == 0)
                served = launch_served(ev, probe);
        else if (status && strcmp(status, "infra_error") == 0)
                cancelled = true; /* cancelled, or out of space: the run would fail alike */
        if (served) {
                struct store_batch *b = store_batch_new(e->store);
                json_t *stored = storable(served);
                /* under its own identity too: a report reads a best's result by it */
                if (b && stored && store_candidate_put(b, ev->identity, stored) == 0)
                        store_batch_commit(b);
                json_decref(stored);
                store_batch_free(b);
                json_decref(probe);
                /* served by this probe, not stored: a later exact hit on it costs no probe */
                json_object_set_new(served, "launch_probe", json_true());
                ev->done(served, true, ev->userdata);
                evaluation_free(ev);
                return;
        }
        if (cancelled) {
                const char *why =
                    json_string_value(json_object_get(json_object_get(probe, "error"), "message"));
                snprintf(ev->why, sizeof(ev->why), "%s", why ? why : "cancelled");
                json_decref(probe);
                deliver_failure(-1, 0, ev);
                return;
        }
        /* a probe that fails (a tiling error, a compile error) says nothing the run won't */
        json_decref(probe);
        r = start_backend(ev);
        if (r < 0) {
                format_error(ev->why, sizeof(ev->why), r, "cannot start the %s backend: %s",
                             npu_backend_get(e->options.backend)->name, strerror(-r));
                log_error("%s: %s", ev->request.manifest->dir, ev->why);
                deliver_failure(-1, 0, ev);
        }
}

/*
 * Starts the probe when the request asks for the launch memo and a
 * measured candidate had this one's base: 1 when started, 0 when the
 * candidate should just run, -errno.
 */
static int launch_probe_start(struct npu_job *ev, const struct npu_example_set *set)
{
        struct npu_evaluator *e = ev->evaluator;
        const struct npu_request *req = &ev->request;
        struct npu_sim_run_options options = {
                .platform = e->options.platform,
                .seed = req->seed,
                .only_case = -1,
                .timeout_s = e->options.timeout_s,
                .limits = e->options.limits,
                .keep_work_dir = true,
                .sandbox = e->options.sandbox,
                .permissive = e->options.permissive,
                .cache_dir = e->cache_dir,
                .cache_salt = e->context,
                .layout = ev->layout,
                .tiling_only = true,
        };
        char marker[sizeof(STORE_LAUNCH_BASE_PREFIX) + SHA256_HEX_SIZE];
        char probe_dir[PATH_MAX], inputs[PATH_MAX], err[1024];
        json_t *seen = NULL;
        int r;

        if (!req->launch_memo || !ev->launch_base[0] || req->bypass_memo || req->skip_bench ||
            req->build_only)
                return 0;
        snprintf(marker, sizeof(marker), STORE_LAUNCH_BASE_PREFIX "%s", ev->launch_base);
        if (store_get_json(e->store, STORE_CANDIDATES, marker, &seen) < 0)
                return 0;
        json_decref(seen);
        r = format_path(probe_dir, sizeof(probe_dir), "%s/probe", ev->dir);
        if (r == 0)
                r = format_path(inputs, sizeof(inputs), "%s/example_inputs", probe_dir);
        if (r < 0)
                return r;
        /* copies of its own: a sandboxed run reads only below its work directory */
        if (set) {
                r = npu_example_set_copy(set, ev->manifest, inputs, &ev->probe_inputs, err,
                                         sizeof(err));
                if (r < 0) {
                        log_warning("%s: the candidate runs without a launch probe: %s",
                                    ev->manifest->name, err);
                        return 0;
                }
        }
        options.work_dir = probe_dir;
        options.input_files = json_object_size(ev->probe_inputs) ? ev->probe_inputs : NULL;
        r = npu_sim_run_start(e->runner, e->paths, ev->manifest, &options, on_probe_done, ev,
                              (struct npu_sim_run **)&ev->run);
        if (r < 0)
                return r;
        ev->probing = true;
        return 1;
}

/*
 * The evaluation from its identity on: served from the memo, or
 * materialised, given the example inputs (set; NULL when its cases have
 * none) and started on the backend.  The candidate c is the caller's to
 * release; err says why it failed.
 */
static int evaluation_start(struct npu_job *ev, const struct candidate *c,
                            const struct npu_example_set *set, char *err, size_t err_size)
{
        struct npu_evaluator *e = ev->evaluator;
        const struct npu_request *req = &ev->request;
        struct npu_op_layout *materialised = NULL;
        char root[PATH_MAX], op_dir[PATH_MAX], work_dir[PATH_MAX], inputs[PATH_MAX];
        int r;

        candidate_digest(e, c, set ? npu_example_set_origin(set) : NULL, ev->identity);
        if (e->options.backend == NPU_BACKEND_SIM && e->paths)
                launch_base(e, c, set ? npu_example_set_origin(set) : NULL, ev->launch_base);
        if (!req->bypass_memo && !req->skip_bench && !req->build_only &&
            store_candidate_get(e->store, ev->identity, &ev->memo) == 0 &&
            !slow_memo_too_strict(&ev->memo, req->slow_after_us)) {
                struct timeval now = { 0, 0 };
                ev->later = evtimer_new(e->options.base, deliver_memo, ev);
                if (!ev->later)
                        return -ENOMEM;
                evtimer_add(ev->later, &now);
                return 0;
        }

        ev->files = store_sources(e, c);
        if (!ev->files)
                return format_error(err, err_size, -EIO, "cannot record the candidate's sources");
        /* the operator alone at DIR/op, or with the repository files it reads at DIR/repo */
        r = format_path(ev->dir, sizeof(ev->dir), "%s/%.16s-%llu", e->scratch_dir, ev->identity,
                        ++e->counter);
        if (r == 0)
                r = format_path(root, sizeof(root), "%s/%s", ev->dir,
                                npu_op_layout_uses_repo(ev->layout) ? "repo" : "op");
        if (r == 0)
                r = npu_op_layout_rebase(ev->layout, root, &materialised);
        if (r == 0) {
                npu_op_layout_free(ev->layout);
                ev->layout = materialised;
                r = format_path(op_dir, sizeof(op_dir), "%s", materialised->op_dir);
        }
        if (r == 0)
                r = format_path(work_dir, sizeof(work_dir), "%s/work", ev->dir);
        if (r == 0)
                r = format_path(inputs, sizeof(inputs), "%s/example_inputs", work_dir);
        if (r == 0) {
                rm_rf(ev->dir);
                r = candidate_write(c, root, op_dir);
        }
        if (r < 0)
                return format_error(err, err_size, r, "%s: cannot write the candidate: %s",
                                    ev->dir[0] ? ev->dir : e->scratch_dir, strerror(-r));
        r = npu_manifest_load(op_dir, &ev->manifest, err, err_size);
        if (r < 0)
                return r;
        /* copies in the work directory, the one folder the sandboxed run may read them in */
        if (set && !req->build_only) {
                r = npu_example_set_copy(set, ev->manifest, inputs, &ev->input_files, err,
                                         err_size);
                if (r < 0)
                        return r;
        }
        snprintf(ev->work_dir, sizeof(ev->work_dir), "%s", work_dir);
        r = launch_probe_start(ev, set);
        if (r > 0)
                return 0;
        if (r == 0)
                r = start_backend(ev);
        if (r < 0)
                return format_error(err, err_size, r, "cannot start the %s backend: %s",
                                    npu_backend_get(e->options.backend)->name, strerror(-r));
        return 0;
}

/* Hands the materialised candidate to the evaluator's backend. */
static int start_backend(struct npu_job *ev)
{
        struct npu_evaluator *e = ev->evaluator;
        const struct npu_backend_candidate candidate = {
                .runner = e->runner,
                .paths = e->paths,
                .options = &e->options,
                .context = e->context,
                .runs = ++e->runs,
                .identity = ev->identity,
                .request = &ev->request,
                .manifest = ev->manifest,
                .layout = ev->layout,
                .dir = ev->dir,
                .work_dir = ev->work_dir,
                .input_files = json_object_size(ev->input_files) ? ev->input_files : NULL,
        };

        return npu_backend_get(e->options.backend)
            ->start(&candidate, on_backend_done, ev, &ev->run);
}

/* Ends an evaluation that failed after npu_evaluate returned, from the loop. */
static void deliver_failure(evutil_socket_t fd, short what, void *arg)
{
        struct npu_job *ev = arg;
        json_t *result;

        (void)fd;
        (void)what;
        result = json_pack("{s:s, s:s, s:I, s:{s:s, s:s}, s:[]}", "operator",
                           ev->request.manifest->name, "status", "infra_error", "seed",
                           (json_int_t)ev->seed, "error", "kind", "infra_error", "message",
                           ev->why[0] ? ev->why : "the evaluation failed", "cases");
        if (!result) {
                result = json_object();
                json_object_set_new(result, "status", json_string("infra_error"));
        }
        ev->done(result, false, ev->userdata);
        evaluation_free(ev);
}

/* Delivers the failure in ev->why soon, from the loop. */
static void fail_later(struct npu_job *ev)
{
        struct timeval now = { 0, 0 };

        if (ev->later)
                event_free(ev->later);
        ev->later = evtimer_new(ev->evaluator->options.base, deliver_failure, ev);
        if (ev->later) {
                evtimer_add(ev->later, &now);
                return;
        }
        /* out of memory: from here, which is the loop (never npu_evaluate) */
        deliver_failure(-1, 0, ev);
}

/* The example inputs are ready: the evaluation goes on (npu_examples_ready_fn). */
static void on_examples_ready(const struct npu_example_set *set, void *userdata)
{
        struct npu_job *ev = userdata;
        struct candidate *c = ev->pending;
        int r;

        ev->wait = NULL;
        if (!set) {
                /* cancelled while it waited, and the preparation is over */
                snprintf(ev->why, sizeof(ev->why), "cancelled");
                deliver_failure(-1, 0, ev);
                return;
        }
        ev->pending = NULL;
        r = evaluation_start(ev, c, set, ev->why, sizeof(ev->why));
        candidate_release(c);
        free(c);
        if (r < 0) {
                if (!ev->why[0])
                        format_error(ev->why, sizeof(ev->why), r, "%s", strerror(-r));
                log_error("%s: %s", ev->request.manifest->dir, ev->why);
                fail_later(ev);
        }
}

void npu_job_cancel(struct npu_job *ev)
{
        if (!ev)
                return;
        if (ev->wait) {
                /* waiting for the example inputs: nothing of its own runs yet */
                if (npu_examples_cancel(ev->wait) == 1)
                        return; /* on_examples_ready hears of it */
                ev->wait = NULL;
                snprintf(ev->why, sizeof(ev->why), "cancelled");
                fail_later(ev);
                return;
        }
        if (ev->run && ev->coverage)
                npu_sim_coverage_cancel(ev->run);
        else if (ev->run && ev->probing)
                npu_sim_run_cancel(ev->run);
        else if (ev->run)
                npu_backend_get(ev->evaluator->options.backend)->cancel(ev->run);
}

int npu_evaluate(struct npu_evaluator *e, const struct npu_request *req, npu_evaluated_fn done,
                 void *userdata, struct npu_job **ret_job)
{
        struct npu_job *ev = NULL;
        struct candidate *c = NULL;
        const struct npu_example_set *set = NULL;
        char err[1024] = "";
        int r;

        if (!e || !req || !req->manifest || !done)
                return -EINVAL;
        ev = calloc(1, sizeof(*ev));
        c = calloc(1, sizeof(*c));
        if (!ev || !c) {
                r = -ENOMEM;
                goto fail;
        }
        ev->evaluator = e;
        ev->done = done;
        ev->userdata = userdata;
        ev->seed = req->seed;
        ev->keep_outputs = req->keep_outputs;
        ev->skip_bench = req->skip_bench;
        ev->build_only = req->build_only;
        ev->slow_after_us = req->slow_after_us;
        ev->reference = req->reference ? json_incref((json_t *)req->reference) : NULL;
        ev->request = *req;
        /* the candidate's files carry the overrides from here on */
        ev->request.overrides = NULL;
        ev->request.n_overrides = 0;
        ev->request.reference = ev->reference;
        r = npu_op_layout_read(req->manifest->dir, NULL, &ev->layout, err, sizeof(err));
        if (r == 0)
                r = candidate_load(req, ev->layout, c);
        if (r < 0)
                goto fail;
        if (npu_manifest_has_examples(req->manifest)) {
                /* the example cases run on the example's inputs: prepared once, shared */
                char key[SHA256_HEX_SIZE];
                examples_key(c, key);
                r = npu_examples_get(e->examples, key, write_own_files, c, on_examples_ready, ev,
                                     &set, &ev->wait);
                if (r < 0) {
                        if (!*err)
                                format_error(err, sizeof(err), r,
                                             "cannot prepare the example inputs: %s", strerror(-r));
                        goto fail;
                }
                if (r == 0) {
                        ev->pending = c;
                        if (ret_job)
                                *ret_job = ev;
                        return 0;
                }
        }
        r = evaluation_start(ev, c, set, err, sizeof(err));
        if (r < 0)
                goto fail;
        candidate_release(c);
        free(c);
        if (ret_job)
                *ret_job = ev;
        return 0;
fail:
        /* the caller sees only -errno: the reason goes to the log */
        if (*err)
                log_error("%s: %s", req->manifest->dir, err);
        if (c)
                candidate_release(c);
        free(c);
        evaluation_free(ev);
        return r;
}

/* ------------------------------------------------------------ the OpDef */

/*
 * A describe the evaluator started: memoized by the operator's identity
 * (its files, the manifest and the context: what the host code is built
 * from and run with), run in a scratch directory of its own otherwise.
 */
struct npu_describe_job {
        struct npu_evaluator *evaluator;
        npu_describe_done_fn done;
        void *userdata;
        char key[16 + SHA256_HEX_SIZE];
        char work_dir[PATH_MAX];
        struct npu_describe *describe; /* in flight */
        struct event *later;           /* a memo hit's delivery */
        json_t *memo;
};

static void describe_job_free(struct npu_describe_job *job)
{
        if (job->later)
                event_free(job->later);
        json_decref(job->memo);
        free(job);
}

static void deliver_description(evutil_socket_t fd, short what, void *arg)
{
        struct npu_describe_job *job = arg;
        json_t *description = job->memo;

        (void)fd;
        (void)what;
        job->memo = NULL;
        job->done(description, NULL, job->userdata);
        describe_job_free(job);
}

static void on_job_described(json_t *description, const char *error, void *userdata)
{
        struct npu_describe_job *job = userdata;
        struct store_batch *b;

        job->describe = NULL;
        rm_rf(job->work_dir);
        if (description && (b = store_batch_new(job->evaluator->store))) {
                if (store_batch_put_json(b, STORE_CANDIDATES, job->key, description) == 0)
                        store_batch_commit(b);
                store_batch_free(b);
        }
        job->done(description, error, job->userdata);
        describe_job_free(job);
}

int npu_evaluator_describe(struct npu_evaluator *e, const struct npu_manifest *manifest,
                           npu_describe_done_fn done, void *userdata,
                           struct npu_describe_job **ret_job)
{
        const struct npu_request req = { .manifest = manifest };
        struct npu_describe_job *job;
        char identity[SHA256_HEX_SIZE];
        int r;

        if (e->options.backend != NPU_BACKEND_SIM || !e->paths)
                return -EOPNOTSUPP;
        r = npu_candidate_identity(e, &req, identity);
        if (r < 0)
                return r;
        job = calloc(1, sizeof(*job));
        if (!job)
                return -ENOMEM;
        job->evaluator = e;
        job->done = done;
        job->userdata = userdata;
        snprintf(job->key, sizeof(job->key), "opdef/%s", identity);
        if (store_get_json(e->store, STORE_CANDIDATES, job->key, &job->memo) == 0) {
                struct timeval now = { 0, 0 };
                job->later = evtimer_new(e->options.base, deliver_description, job);
                if (!job->later || evtimer_add(job->later, &now) < 0) {
                        describe_job_free(job);
                        return -ENOMEM;
                }
        } else {
                if (format_path(job->work_dir, sizeof(job->work_dir), "%s/describe-%llu-XXXXXX",
                                e->scratch_dir, ++e->counter) < 0) {
                        describe_job_free(job);
                        return -ENAMETOOLONG;
                }
                if (!mkdtemp(job->work_dir)) {
                        r = -errno;
                        describe_job_free(job);
                        return r;
                }
                r = npu_sim_describe_start(e->runner, e->paths, manifest->dir, job->work_dir,
                                           e->options.timeout_s, on_job_described, job,
                                           &job->describe);
                if (r < 0) {
                        rm_rf(job->work_dir);
                        describe_job_free(job);
                        return r;
                }
        }
        if (ret_job)
                *ret_job = job;
        return 0;
}

void npu_describe_job_cancel(struct npu_describe_job *job)
{
        /* a memo hit is delivered on the next turn of the loop anyway */
        if (job && job->describe)
                npu_sim_describe_cancel(job->describe);
}
