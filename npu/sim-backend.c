/* SPDX-License-Identifier: MIT */
/*
 * The sim backend's entry (npu/backend.h): its identity context, a digest
 * of the compiler and flags, the simulator's headers and library and the
 * platform file, and its start, one npu_sim_run of the materialised
 * candidate with the evaluator's object cache.
 */
#include "backend.h"
#include "evaluator.h"
#include "sim-run.h"

#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/*
 * Precompiling the host prelude takes about 1.7 s and saves about 0.3 s
 * per host unit: an evaluator builds it for its cache from its fifth
 * evaluation on (an episode, a daemon), and one that evaluates a few
 * candidates (a test, a quick look) only uses one already there.
 */
#define PRELUDE_AFTER 4

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
                                npu_backend_hash_file(s, full);
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

int npu_sim_context(const struct npu_sim_paths *paths, const char *platform, double jitter_pct,
                    char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size)
{
        char platform_path[PATH_MAX], version[128];
        struct sha256 s;
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct stat st;
        int r;

        if (format_path(platform_path, sizeof(platform_path), "%s/%s.json", paths->platforms_dir,
                        platform) < 0)
                return format_error(err, err_size, -ENAMETOOLONG, "platform %s: %s: path too long",
                                    platform, paths->platforms_dir);
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
        npu_backend_hash_file(&s, platform_path);
        npu_backend_hash_file(&s, paths->library);
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

static int sim_context(const struct npu_sim_paths *paths,
                       const struct npu_evaluator_options *options,
                       char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size)
{
        return npu_sim_context(paths, options->platform, options->jitter_pct, ret_context, err,
                               err_size);
}

/* The simulated NPU: one build and a run of every case, in the sandbox. */
static int start_sim(const struct npu_backend_candidate *c, npu_backend_done_fn done,
                     void *userdata, void **ret_run)
{
        const struct npu_evaluator_options *e = c->options;
        const struct npu_request *req = c->request;
        struct npu_sim_run_options options = { 0 };
        struct npu_sim_run *run;
        int r;

        options.platform = e->platform;
        options.seed = req->seed;
        options.only_case = -1;
        options.skip_bench = req->skip_bench;
        options.build_only = req->build_only;
        options.slow_after_us = req->slow_after_us;
        if (e->jitter_pct > 0) {
                options.jitter_pct = e->jitter_pct;
                options.jitter_seed = req->seed ^ strtoull(c->identity + 48, NULL, 16);
        }
        options.timeout_s = e->timeout_s;
        options.limits = e->limits;
        options.work_dir = c->work_dir;
        options.keep_work_dir = true;
        options.sandbox = e->sandbox;
        options.permissive = e->permissive;
        options.cache_dir = e->cache_dir;
        options.cache_salt = c->context;
        options.build_prelude = c->runs > PRELUDE_AFTER;
        options.layout = c->layout;
        options.input_files = c->input_files;
        options.no_input_dump = true; /* the evaluator compares outputs only */
        r = npu_sim_run_start(c->runner, c->paths, c->manifest, &options, done, userdata, &run);
        if (r == 0)
                *ret_run = run;
        return r;
}

static void cancel_sim(void *run)
{
        npu_sim_run_cancel(run);
}

const struct npu_backend_ops npu_backend_sim = {
        .name = "sim",
        .needs_sim_paths = true,
        .needs_platform = false,
        .context = sim_context,
        .start = start_sim,
        .cancel = cancel_sim,
};
