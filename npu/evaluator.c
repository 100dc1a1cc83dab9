/* SPDX-License-Identifier: MIT */
/*
 * The memoizing evaluator in front of the backends (the sim, or a real NPU
 * through npu/ascend.h): candidate identity, the candidate memo in the
 * store, materialisation of a candidate's files in a scratch directory, the
 * seeded inputs for a backend that needs them as files, correctness
 * against a reference result, and the content-addressed record of every
 * measured candidate's sources.
 */
#include "evaluator.h"
#include "inputs.h"

#include "ascend.h"

#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#define MAX_FILES      256
#define FILE_MAX_BYTES (4u << 20)

extern char **environ;

struct npu_evaluator {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;
        struct store *store;
        struct npu_evaluator_options options;
        char *scratch_dir;
        char *cache_dir;
        char *platform;
        char *toolkit; /* ascend: the configured toolkit, or NULL */
        char context[SHA256_HEX_SIZE];
        unsigned long long counter;
        unsigned sim_compiles; /* simulator evaluations started: when to precompile */
};

/*
 * Precompiling the host prelude takes about 1.7 s and saves about 0.3 s
 * per host unit: an evaluator builds it for its cache from its fifth
 * evaluation on (an episode, a daemon), and one that evaluates a few
 * candidates (a test, a quick look) only uses one already there.
 */
#define PRELUDE_AFTER 4

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
        struct npu_sim_run *sim;       /* the build and run in flight, NULL on a memo hit */
        struct ascend_eval *ascend; /* the same on a real NPU */
        json_t *case_inputs;        /* ascend: {case: [{name, dtype, shape, file}]} */
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
        json_t **input_lists; /* per run, written by the thread */
        int inputs_r;
        char inputs_err[1024];
};

/* ------------------------------------------------------------ reading */

static void hash_file(struct sha256 *s, const char *path)
{
        uint8_t buf[65536];
        size_t n;
        FILE *f = fopen(path, "re");

        if (!f)
                return;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                sha256_update(s, buf, n);
        fclose(f);
}

static int compare_strings(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Hashes every regular file below dir, by sorted relative path. */
static void hash_tree(struct sha256 *s, const char *dir, const char *rel)
{
        char path[PATH_MAX], child_rel[PATH_MAX];
        char *names[1024];
        size_t n = 0;
        struct dirent *e;
        DIR *d;

        if (format_path(path, sizeof(path), "%s%s%s", dir, rel[0] ? "/" : "", rel) < 0)
                return;
        d = opendir(path);
        if (!d)
                return;
        while ((e = readdir(d)) && n < ARRAY_SIZE(names))
                if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
                        n++;
        closedir(d);
        qsort(names, n, sizeof(*names), compare_strings);
        for (size_t i = 0; i < n; i++) {
                struct stat st;
                char full[PATH_MAX];
                if (format_path(child_rel, sizeof(child_rel), "%s%s%s", rel, rel[0] ? "/" : "",
                                names[i]) == 0 &&
                    format_path(full, sizeof(full), "%s/%s", dir, child_rel) == 0 &&
                    stat(full, &st) == 0) {
                        if (S_ISDIR(st.st_mode)) {
                                hash_tree(s, dir, child_rel);
                        } else if (S_ISREG(st.st_mode)) {
                                sha256_update(s, child_rel, strlen(child_rel) + 1);
                                hash_file(s, full);
                        }
                }
                free(names[i]);
        }
}

/* The compiler's version, asked once: "12.2.0" for GCC 12. */
static int compiler_version(char *buf, size_t size)
{
        char *argv[] = { (char *)npu_sim_compile_flags[0], "-dumpfullversion", "-dumpversion",
                         NULL };
        posix_spawn_file_actions_t actions;
        int pipe_fds[2], status = 0, r;
        pid_t pid;
        ssize_t n;

        if (pipe2(pipe_fds, O_CLOEXEC) < 0)
                return -errno;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
        r = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        close(pipe_fds[1]);
        if (r != 0) {
                close(pipe_fds[0]);
                return -r;
        }
        n = read(pipe_fds[0], buf, size - 1);
        close(pipe_fds[0]);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return -EIO;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

/*
 * Files whose contents say which CANN toolkit this is, relative to its
 * root (ascend-toolkit/latest).  The install info and the per-component
 * version.info files are what the CANN installation guide tells users to
 * read for the version; UNTESTED ON HARDWARE: which of them a given CANN
 * release has (the fake toolkit has version.cfg).
 */
static const char *const toolkit_version_files[] = {
        "version.cfg",
        "x86_64-linux/ascend_toolkit_install.info",
        "aarch64-linux/ascend_toolkit_install.info",
        "compiler/version.info",
        "runtime/version.info",
        "opp/version.info",
        NULL,
};

/*
 * The identity context of the ascend backend: the backend, the SoC, the
 * toolkit's version files and the launch counts, besides the evaluator's
 * version.  The toolkit root comes from the loaded environment when one is
 * given, else from the config / ASCEND_HOME_PATH / the defaults.
 */
static int ascend_context(struct npu_evaluator *e, char *err, size_t err_size)
{
        const struct ascend_env *env = e->options.ascend_env;
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
                r = ascend_toolkit_find(e->toolkit, getenv("ASCEND_HOME_PATH"), NULL, &toolkit, err,
                                        err_size);
                if (r < 0)
                        return r;
                root = toolkit.root;
        }
        sha256_init(&s);
        sha256_update(&s, "ascendopt-evaluator", 20);
        snprintf(version, sizeof(version), " v%d ascend %s launches %u warmup %u",
                 NPU_EVALUATOR_VERSION, e->platform, e->options.launch_count, e->options.warmup);
        sha256_update(&s, version, strlen(version) + 1);
        for (const char *const *f = toolkit_version_files; *f; f++) {
                struct stat st;
                if (format_path(path, sizeof(path), "%s/%s", root, *f) < 0 || stat(path, &st) < 0 ||
                    !S_ISREG(st.st_mode))
                        continue;
                sha256_update(&s, *f, strlen(*f) + 1);
                hash_file(&s, path);
                found++;
        }
        if (!found) {
                snprintf(err, err_size,
                         "the CANN toolkit in %s has no version file (looked for %s, %s and "
                         "<arch>-linux/ascend_toolkit_install.info), so its results could not be "
                         "told from another toolkit's",
                         root, toolkit_version_files[0], toolkit_version_files[3]);
                r = -ENOENT;
                goto out;
        }
        sha256_final(&s, digest);
        sha256_hex(digest, e->context);
out:
        ascend_toolkit_release(&toolkit);
        return r;
}

int npu_sim_context(const struct npu_sim_paths *paths, const char *platform, double jitter_pct,
                    char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size)
{
        char platform_path[PATH_MAX], version[128];
        struct sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct stat st;
        int r;

        format_path(platform_path, sizeof(platform_path), "%s/%s.json", paths->platforms_dir,
                    platform);
        if (stat(platform_path, &st) < 0) {
                snprintf(err, err_size, "platform %s: no %s; known platforms live in %s", platform,
                         platform_path, paths->platforms_dir);
                return -ENOENT;
        }
        r = compiler_version(version, sizeof(version));
        if (r < 0) {
                snprintf(err, err_size, "cannot run %s to learn its version: %s",
                         npu_sim_compile_flags[0], strerror(-r));
                return r;
        }

        /* Everything a result depends on besides the operator's own files. */
        sha256_init(&s);
        sha256_update(&s, "ascendopt-evaluator", 20);
        snprintf(version + strlen(version), sizeof(version) - strlen(version), " v%d sim %s",
                 NPU_EVALUATOR_VERSION, gnu_get_libc_version());
        sha256_update(&s, version, strlen(version) + 1);
        for (size_t i = 0; i < NPU_SIM_COMPILE_FLAGS; i++)
                sha256_update(&s, npu_sim_compile_flags[i], strlen(npu_sim_compile_flags[i]) + 1);
        for (size_t i = 0; i < NPU_SIM_COMPILE_FLAGS; i++)
                sha256_update(&s, npu_sim_host_compile_flags[i],
                              strlen(npu_sim_host_compile_flags[i]) + 1);
        sha256_update(&s, npu_sim_kernel_flag, strlen(npu_sim_kernel_flag) + 1);
        hash_file(&s, platform_path);
        hash_file(&s, paths->library);
        hash_tree(&s, paths->include_dir, "");
        if (jitter_pct > 0) {
                char jitter[64];
                snprintf(jitter, sizeof(jitter), "jitter %.6g", jitter_pct);
                sha256_update(&s, jitter, strlen(jitter) + 1);
        }
        sha256_final(&s, digest);
        sha256_hex(digest, ret_context);
        return 0;
}

struct backend;
static const struct backend *backend_of(enum npu_backend backend);
static bool backend_needs_sim_paths(enum npu_backend backend);
static bool backend_needs_platform(enum npu_backend backend);
static int backend_context(struct npu_evaluator *e, char *err, size_t err_size);

int npu_evaluator_new(struct child_runner *runner, const struct npu_sim_paths *paths,
                      struct store *store, const struct npu_evaluator_options *options,
                      struct npu_evaluator **ret_evaluator, char *err, size_t err_size)
{
        struct npu_evaluator *e;
        int r;

        if (!runner || !store || !options || !options->base || !options->scratch_dir)
                return -EINVAL;
        if (backend_needs_sim_paths(options->backend) && !paths)
                return -EINVAL;
        if (backend_needs_platform(options->backend) && !options->platform) {
                snprintf(err, err_size,
                         "the ascend backend needs the SoC of its devices (platform, e.g. "
                         "Ascend910B4)");
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
        if (!e->platform || !e->scratch_dir || (options->cache_dir && !e->cache_dir) ||
            (options->toolkit && !e->toolkit)) {
                r = -ENOMEM;
                goto fail;
        }
        e->options.platform = e->platform;
        e->options.scratch_dir = e->scratch_dir;
        e->options.cache_dir = e->cache_dir;
        e->options.toolkit = e->toolkit;
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
        r = backend_context(e, err, err_size);
        if (r < 0)
                goto fail;
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
        free(e->scratch_dir);
        free(e->cache_dir);
        free(e->platform);
        free(e->toolkit);
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
        return npu_platform_facts(e->paths->platforms_dir, e->platform);
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

static void candidate_digest(const struct npu_evaluator *e, const struct candidate *c,
                             char hex[SHA256_HEX_SIZE])
{
        struct sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];
        char length[32];

        sha256_init(&s);
        sha256_update(&s, e->context, SHA256_HEX_SIZE - 1);
        for (size_t i = 0; i < c->n; i++) {
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

int npu_candidate_identity(const struct npu_evaluator *e, const struct npu_request *req,
                           char hex[SHA256_HEX_SIZE])
{
        struct candidate *c = calloc(1, sizeof(*c));
        struct npu_op_layout *layout = NULL;
        int r;

        if (!c)
                return -ENOMEM;
        r = npu_op_layout_read(req->manifest->dir, NULL, &layout, NULL, 0);
        if (r == 0)
                r = candidate_load(req, layout, c);
        if (r == 0)
                candidate_digest(e, c, hex);
        candidate_release(c);
        free(c);
        npu_op_layout_free(layout);
        return r;
}

/*
 * Writes the candidate's files: the operator's under op_dir, creating
 * op_host/ and op_kernel/, and the repository's it reads under root.
 */
static int candidate_write(const struct candidate *c, const char *root, const char *op_dir)
{
        for (size_t i = 0; i < c->n; i++) {
                char path[PATH_MAX], parent[PATH_MAX];
                char *slash;
                FILE *f;
                int r = format_path(path, sizeof(path), "%s/%s", c->files[i].shared ? root : op_dir,
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

/* ------------------------------------------------------------ evaluation */

static void evaluation_free(struct npu_job *ev)
{
        if (!ev)
                return;
        if (!ev->keep_outputs && ev->dir[0])
                rm_rf(ev->dir);
        npu_op_layout_free(ev->layout);
        if (ev->later)
                event_free(ev->later);
        npu_manifest_free(ev->manifest);
        json_decref(ev->reference);
        json_decref(ev->memo);
        json_decref(ev->files);
        if (ev->inputs_running) /* only on a failed start: the thread is short */
                pthread_join(ev->inputs_thread, NULL);
        if (ev->inputs_event)
                event_free(ev->inputs_event);
        if (ev->inputs_fd >= 0)
                close(ev->inputs_fd);
        for (size_t i = 0; ev->input_lists && i < ev->n_runs; i++)
                json_decref(ev->input_lists[i]);
        free(ev->input_lists);
        json_decref(ev->case_inputs);
        free(ev->runs);
        free(ev->input_files);
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
                json_array_foreach(json_object_get(c, "outputs"), j, o) json_object_del(o, "file");
                json_array_foreach(json_object_get(c, "inputs"), j, o) json_object_del(o, "file");
        }
        return copy;
}

void npu_job_cancel(struct npu_job *ev)
{
        if (ev && ev->sim)
                npu_sim_run_cancel(ev->sim);
        if (ev && ev->ascend)
                ascend_eval_cancel(ev->ascend);
        if (ev && ev->inputs_running)
                atomic_store(&ev->inputs_cancelled, true);
}

static void on_backend_done(json_t *result, void *userdata)
{
        struct npu_job *ev = userdata;
        struct npu_evaluator *e = ev->evaluator;
        const char *status = json_string_value(json_object_get(result, "status"));
        char err[1024];
        size_t i;
        json_t *c;

        ev->sim = NULL;
        ev->ascend = NULL;
        /* the inputs the evaluator generated, as the sim's cases record theirs */
        json_array_foreach(json_object_get(result, "cases"), i, c)
        {
                json_t *inputs = json_object_get(
                    ev->case_inputs, json_string_value(json_object_get(c, "case")) ?: "");
                if (inputs && !json_object_get(c, "inputs"))
                        json_object_set(c, "inputs", inputs);
        }

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
                json_object_set_new(result, "error",
                                    json_pack("{s:s, s:s}", "kind", "infra_error", "message", err));
        }
        status = json_string_value(json_object_get(result, "status"));
        if (status && strcmp(status, "infra_error") != 0 && !ev->skip_bench && !ev->build_only) {
                struct store_batch *b = store_batch_new(e->store);
                json_t *stored = storable(result);
                if (b && stored && store_candidate_put(b, ev->identity, stored) == 0)
                        store_batch_commit(b);
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

/* Ends an ascend evaluation that never reached the backend, from the loop. */
static void ascend_failed(struct npu_job *ev, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void ascend_failed(struct npu_job *ev, const char *fmt, ...)
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
        on_backend_done(result, ev);
}

/*
 * The inputs of every case, written by a worker thread: a bench case's
 * tensors run to hundreds of MB, far beyond what the loop may spend.  The
 * thread touches only its own files and JSON, and the manifest nobody
 * writes meanwhile; an eventfd brings the loop back.
 */
static void *write_inputs(void *arg)
{
        struct npu_job *ev = arg;
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
        struct npu_job *ev = arg;
        struct npu_evaluator *e = ev->evaluator;
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
        options.env = e->options.ascend_env;
        options.soc = e->platform;
        options.device = ev->device;
        options.cases = ev->runs;
        options.n_cases = ev->n_runs;
        options.launch_count = e->options.launch_count;
        options.warmup = e->options.warmup;
        options.seed = ev->seed;
        options.timeout_s = e->options.timeout_s;
        options.work_dir = ev->work_dir;
        options.keep_work_dir = true;
        options.build_only = ev->build_only;
        r = ascend_eval_start(e->runner, m, &options, on_backend_done, ev, &ev->ascend);
        if (r < 0)
                ascend_failed(ev, "cannot start the ascend backend: %s", strerror(-r));
}

/*
 * The real NPU: the seeded inputs of every case are written as files (the
 * harness reads them) on a worker thread; then the candidate is built and
 * installed once and each case measured on the leased device.
 */
static int start_ascend(struct npu_evaluator *e, struct npu_job *ev,
                        const struct npu_request *req, const char *work_dir)
{
        const struct npu_manifest *m = ev->manifest;
        int r;

        (void)e;
        ev->device = req->device;
        snprintf(ev->work_dir, sizeof(ev->work_dir), "%s", work_dir);
        ev->case_inputs = json_object();
        ev->runs = calloc(m->n_cases, sizeof(*ev->runs));
        ev->input_files = calloc(m->n_cases * (m->n_inputs + 1), sizeof(*ev->input_files));
        ev->input_lists = calloc(m->n_cases, sizeof(*ev->input_lists));
        if (!ev->case_inputs || !ev->runs || !ev->input_files || !ev->input_lists)
                return -ENOMEM;
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
        if (ev->inputs_fd < 0)
                return -errno;
        ev->inputs_event =
            event_new(e->options.base, ev->inputs_fd, EV_READ, on_inputs_written, ev);
        if (!ev->inputs_event || event_add(ev->inputs_event, NULL) < 0)
                return -ENOMEM;
        r = -pthread_create(&ev->inputs_thread, NULL, write_inputs, ev);
        if (r < 0)
                return r;
        ev->inputs_running = true;
        return 0;
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

/* The simulated NPU: one build and a run of every case, in the sandbox. */
static int start_sim(struct npu_evaluator *e, struct npu_job *ev,
                     const struct npu_request *req, const char *work_dir)
{
        struct npu_sim_run_options options = { 0 };

        options.platform = e->platform;
        options.seed = req->seed;
        options.only_case = -1;
        options.skip_bench = req->skip_bench;
        options.build_only = req->build_only;
        options.slow_after_us = req->slow_after_us;
        if (e->options.jitter_pct > 0) {
                options.jitter_pct = e->options.jitter_pct;
                options.jitter_seed = req->seed ^ strtoull(ev->identity + 48, NULL, 16);
        }
        options.timeout_s = e->options.timeout_s;
        options.limits = e->options.limits;
        options.work_dir = work_dir;
        options.keep_work_dir = true;
        options.sandbox = e->options.sandbox;
        options.permissive = e->options.permissive;
        options.cache_dir = e->cache_dir;
        options.cache_salt = e->context;
        options.build_prelude = ++e->sim_compiles > PRELUDE_AFTER;
        options.layout = ev->layout;
        return npu_sim_run_start(e->runner, e->paths, ev->manifest, &options, on_backend_done, ev,
                              &ev->sim);
}

static int sim_context(struct npu_evaluator *e, char *err, size_t err_size)
{
        return npu_sim_context(e->paths, e->platform, e->options.jitter_pct, e->context, err,
                               err_size);
}

/*
 * The backends, by enum npu_backend and by name: what each needs, the
 * context part of every identity, and how a candidate is measured.
 */
struct backend {
        const char *name;
        bool needs_sim_paths; /* the simulator's headers and runtime */
        bool needs_platform;  /* the SoC must be given: it cannot be defaulted */
        int (*context)(struct npu_evaluator *e, char *err, size_t err_size);
        int (*start)(struct npu_evaluator *e, struct npu_job *ev,
                     const struct npu_request *req, const char *work_dir);
};

static const struct backend backends[] = {
        [NPU_BACKEND_SIM] = { "sim", true, false, sim_context, start_sim },
        [NPU_BACKEND_ASCEND] = { "ascend", false, true, ascend_context, start_ascend },
};

static const struct backend *backend_of(enum npu_backend backend)
{
        return &backends[(size_t)backend < ARRAY_SIZE(backends) ? backend : NPU_BACKEND_SIM];
}

const char *npu_backend_name(enum npu_backend backend)
{
        return backend_of(backend)->name;
}

static bool backend_needs_sim_paths(enum npu_backend backend)
{
        return backend_of(backend)->needs_sim_paths;
}

static bool backend_needs_platform(enum npu_backend backend)
{
        return backend_of(backend)->needs_platform;
}

static int backend_context(struct npu_evaluator *e, char *err, size_t err_size)
{
        return backend_of(e->options.backend)->context(e, err, err_size);
}

int npu_backend_from_name(const char *name, enum npu_backend *ret)
{
        for (size_t i = 0; name && i < ARRAY_SIZE(backends); i++)
                if (strcmp(backends[i].name, name) == 0) {
                        *ret = (enum npu_backend)i;
                        return 0;
                }
        return -EINVAL;
}

int npu_evaluate(struct npu_evaluator *e, const struct npu_request *req, npu_evaluated_fn done,
                 void *userdata, struct npu_job **ret_job)
{
        struct npu_job *ev = NULL;
        struct npu_op_layout *materialised = NULL;
        struct candidate *c = NULL;
        char root[PATH_MAX], op_dir[PATH_MAX], work_dir[PATH_MAX], err[1024];
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
        ev->inputs_fd = -1;
        ev->done = done;
        ev->userdata = userdata;
        ev->seed = req->seed;
        ev->keep_outputs = req->keep_outputs;
        ev->skip_bench = req->skip_bench;
        ev->build_only = req->build_only;
        ev->slow_after_us = req->slow_after_us;
        ev->reference = req->reference ? json_incref((json_t *)req->reference) : NULL;
        r = npu_op_layout_read(req->manifest->dir, NULL, &ev->layout, err, sizeof(err));
        if (r == 0)
                r = candidate_load(req, ev->layout, c);
        if (r < 0)
                goto fail;
        candidate_digest(e, c, ev->identity);

        if (!req->bypass_memo && !req->skip_bench && !req->build_only &&
            store_candidate_get(e->store, ev->identity, &ev->memo) == 0 &&
            !slow_memo_too_strict(&ev->memo, req->slow_after_us)) {
                ev->later = evtimer_new(e->options.base, deliver_memo, ev);
                if (!ev->later) {
                        r = -ENOMEM;
                        goto fail;
                }
                struct timeval now = { 0, 0 };
                evtimer_add(ev->later, &now);
                candidate_release(c);
                free(c);
                if (ret_job)
                        *ret_job = ev;
                return 0;
        }

        ev->files = store_sources(e, c);
        if (!ev->files) {
                r = -EIO;
                goto fail;
        }
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
        if (r == 0) {
                rm_rf(ev->dir);
                r = candidate_write(c, root, op_dir);
        }
        if (r < 0)
                goto fail;
        r = npu_manifest_load(op_dir, &ev->manifest, err, sizeof(err));
        if (r < 0)
                goto fail;
        r = backend_of(e->options.backend)->start(e, ev, req, work_dir);
        if (r < 0)
                goto fail;
        candidate_release(c);
        free(c);
        if (ret_job)
                *ret_job = ev;
        return 0;
fail:
        if (c)
                candidate_release(c);
        free(c);
        evaluation_free(ev);
        return r;
}
