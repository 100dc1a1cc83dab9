/* SPDX-License-Identifier: MIT */
/*
 * The custom-op project a candidate is built in, and the command lines of
 * the toolchain steps around it: build.sh, the .run installer, msopgen and
 * msprof op, plus the environment the harness runs in.  Everything here is
 * an argv list, never a shell string, so no path is ever quoted.
 */
#include "ascend-project.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_file(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------ argv */

int ascend_argv_add(struct ascend_argv *a, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (a->n + 1 >= ARRAY_SIZE(a->argv))
                return -E2BIG;
        va_start(ap, fmt);
        n = vasprintf(&a->argv[a->n], fmt, ap);
        va_end(ap);
        if (n < 0) {
                a->argv[a->n] = NULL;
                return -ENOMEM;
        }
        a->argv[++a->n] = NULL;
        return 0;
}

void ascend_argv_release(struct ascend_argv *a)
{
        if (!a)
                return;
        for (size_t i = 0; i < a->n; i++)
                free(a->argv[i]);
        memset(a, 0, sizeof(*a));
}

const char *const *ascend_argv_view(const struct ascend_argv *a)
{
        return (const char *const *)a->argv;
}

/* ------------------------------------------------------------ SoC */

/*
 * The compute unit is the SoC's family, which build.sh and CMakePresets.json
 * take (cann-ops' build.sh help lists ascend910b, ascend910_93 and
 * ascend310p): the base number, the series after an underscore, and the
 * family letter B or P.  What follows the family is the bin and the
 * variant and never part of it: Ascend910B2C, Ascend910B4-1 and Ascend910B1
 * are all ascend910b; Ascend910A and Ascend910ProB are ascend910.
 */
int ascend_compute_unit(const char *soc, char *buf, size_t size)
{
        char unit[64];
        size_t n = 0;
        const char *p;

        if (!soc || strncasecmp(soc, "Ascend", 6) != 0 || !isdigit((unsigned char)soc[6]))
                return -EINVAL;
        n = (size_t)snprintf(unit, sizeof(unit), "ascend");
        for (p = soc + 6; isdigit((unsigned char)*p) && n + 1 < sizeof(unit); p++)
                unit[n++] = *p;
        if (*p == '_' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
            n + 3 < sizeof(unit)) {
                /* Ascend910_9392 -> ascend910_93: the series, not the bin */
                unit[n++] = '_';
                unit[n++] = p[1];
                unit[n++] = p[2];
        } else if ((*p == 'B' || *p == 'b' || *p == 'P' || *p == 'p') &&
                   (!p[1] || isdigit((unsigned char)p[1]) || p[1] == '-') && n + 1 < sizeof(unit)) {
                /* B4, P3, B2C: the family letter; Pro in Ascend910ProB is not */
                unit[n++] = (char)tolower((unsigned char)*p);
        }
        unit[n] = '\0';
        return format_path(buf, size, "%s", unit);
}

/* ------------------------------------------------------------ copying */

/* Entries never copied out of a repository: VCS data and build output. */
static bool skipped_entry(const char *name)
{
        static const char *const names[] = { ".git", "build", "build_out", "output", ".cache" };

        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return true;
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
                if (strcmp(name, names[i]) == 0)
                        return true;
        return false;
}

/*
 * Copies the tree at from into to.  With skip_operators, every operator's
 * folder (npu_is_operator_dir) is left out: a cann-ops repository without
 * its 260 operators, but with everything its CMake reads (cmake/,
 * src/common, the CMakeLists.txt chain).  Symlinks are copied as symlinks.
 */
static int copy_tree(const char *from, const char *to, bool skip_operators, int depth, char *err,
                     size_t err_size)
{
        struct dirent *e;
        DIR *d;
        int r;

        if (depth > 32)
                return format_error(err, err_size, -ELOOP, "%s: nested too deeply", from);
        r = mkdir_p(to);
        if (r < 0)
                return format_error(err, err_size, r, "%s: cannot create: %s", to, strerror(-r));
        d = opendir(from);
        if (!d)
                return format_error(err, err_size, -errno, "%s: cannot read: %s", from,
                                    strerror(errno));
        while ((e = readdir(d))) {
                char src[PATH_MAX], dst[PATH_MAX];
                struct stat st;

                if (skipped_entry(e->d_name))
                        continue;
                if (format_path(src, sizeof(src), "%s/%s", from, e->d_name) < 0 ||
                    format_path(dst, sizeof(dst), "%s/%s", to, e->d_name) < 0) {
                        r = format_error(err, err_size, -ENAMETOOLONG, "%s/%s: path too long", from,
                                         e->d_name);
                        break;
                }
                if (lstat(src, &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (skip_operators && npu_is_operator_dir(src))
                                continue; /* another operator (ours is copied on its own) */
                        r = copy_tree(src, dst, skip_operators, depth + 1, err, err_size);
                } else if (S_ISREG(st.st_mode)) {
                        r = copy_file(src, dst, st.st_mode, false);
                        if (r < 0)
                                format_error(err, err_size, r, "copying %s to %s: %s", src, dst,
                                             strerror(-r));
                } else if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlink(src, target, sizeof(target) - 1);
                        if (n < 0)
                                continue;
                        target[n] = '\0';
                        unlink(dst);
                        if (symlink(target, dst) < 0)
                                r = format_error(err, err_size, -errno, "%s: cannot link: %s", dst,
                                                 strerror(errno));
                }
                if (r < 0)
                        break;
        }
        closedir(d);
        return r;
}

/* ------------------------------------------------------------ presets */

static int set_cache_variable(json_t *vars, const char *name, const char *type, const char *value)
{
        json_t *old = json_object_get(vars, name);
        int r;

        if (json_is_object(old))
                r = json_object_set_new(old, "value", json_string(value));
        else
                r = json_object_set_new(vars, name,
                                        json_pack("{s:s, s:s}", "type", type, "value", value));
        return r < 0 ? -ENOMEM : 0;
}

/* Points every configure preset at our SoC and toolkit. */
static int patch_presets(const struct ascend_project *p, char *err, size_t err_size)
{
        char path[PATH_MAX];
        json_error_t error;
        json_t *doc, *presets, *preset;
        size_t i;
        int r = 0;

        if (format_path(path, sizeof(path), "%s/CMakePresets.json", p->root) < 0)
                return format_error(err, err_size, -ENAMETOOLONG, "%s: path too long", p->root);
        doc = json_load_file(path, 0, &error);
        if (!doc)
                return format_error(err, err_size, -EINVAL, "%s:%d: %s", path, error.line,
                                    error.text);
        presets = json_object_get(doc, "configurePresets");
        if (!json_is_array(presets) || json_array_size(presets) == 0) {
                r = format_error(err, err_size, -EINVAL,
                                 "%s: no configurePresets to set ASCEND_COMPUTE_UNIT in", path);
                goto out;
        }
        json_array_foreach(presets, i, preset)
        {
                json_t *vars = json_object_get(preset, "cacheVariables");
                if (!json_is_object(vars)) {
                        vars = json_object();
                        if (json_object_set_new(preset, "cacheVariables", vars) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                }
                if ((r = set_cache_variable(vars, "ASCEND_COMPUTE_UNIT", "STRING",
                                            p->compute_unit)) < 0 ||
                    (r = set_cache_variable(vars, "ASCEND_CANN_PACKAGE_PATH", "PATH",
                                            p->toolkit_root)) < 0)
                        break;
        }
        if (r < 0) {
                r = format_error(err, err_size, r, "%s: out of memory", path);
                goto out;
        }
        if (json_dump_file(doc, path, JSON_INDENT(4) | JSON_PRESERVE_ORDER) < 0)
                r = format_error(err, err_size, -EIO, "%s: cannot write", path);
out:
        json_decref(doc);
        return r;
}

/* ------------------------------------------------------------ materialising */

bool ascend_is_cann_ops_root(const char *dir)
{
        char path[PATH_MAX];

        return format_path(path, sizeof(path), "%s/build.sh", dir) == 0 && is_file(path) &&
               format_path(path, sizeof(path), "%s/CMakePresets.json", dir) == 0 && is_file(path) &&
               format_path(path, sizeof(path), "%s/cmake", dir) == 0 && is_dir(path);
}

static bool is_same_dir(const char *a, const char *b)
{
        struct stat sa, sb;

        return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
               sa.st_ino == sb.st_ino;
}

static const char *msopgen_type(enum npu_dtype dtype)
{
        /* UNTESTED ON HARDWARE: msopgen's spelling of each type */
        switch (dtype) {
        case NPU_FLOAT16:
                return "fp16";
        case NPU_FLOAT32:
                return "float";
        case NPU_BFLOAT16:
                return "bf16";
        default:
                return npu_dtype_name(dtype);
        }
}

static json_t *msopgen_tensors(const struct npu_tensor *t, size_t n)
{
        json_t *list = json_array();

        for (size_t i = 0; i < n; i++)
                if (json_array_append_new(list,
                                          json_pack("{s:s, s:s, s:[s], s:[s]}", "name", t[i].name,
                                                    "param_type", "required", "format", "ND",
                                                    "type", msopgen_type(t[i].dtype))) < 0) {
                        json_decref(list);
                        return NULL; /* json_pack below fails on it */
                }
        return list;
}

static const char *msopgen_attr_type(const json_t *v)
{
        if (json_is_boolean(v))
                return "bool";
        if (json_is_integer(v))
                return "int";
        if (json_is_real(v))
                return "float";
        if (json_is_string(v))
                return "string";
        if (json_is_array(v)) {
                const json_t *first = json_array_get(v, 0);
                return json_is_real(first)      ? "listFloat"
                       : json_is_boolean(first) ? "listBool"
                                                : "listInt";
        }
        return "string";
}

/* project/op.json: what msopgen needs to name the skeleton's files. */
static int write_msopgen_description(const struct npu_manifest *m, const char *path, char *err,
                                     size_t err_size)
{
        json_t *attrs = json_array(), *doc;
        const json_t *manifest_attrs = json_object_get(m->doc, "attrs");
        const char *key;
        json_t *value;
        int r = 0;

        json_object_foreach((json_t *)manifest_attrs, key, value)
        {
                if (json_array_append_new(attrs, json_pack("{s:s, s:s, s:s, s:O}", "name", key,
                                                           "param_type", "optional", "type",
                                                           msopgen_attr_type(value),
                                                           "default_value", value)) < 0) {
                        json_decref(attrs);
                        return -ENOMEM;
                }
        }
        doc = json_pack("[{s:s, s:o, s:o, s:o}]", "op", m->name, "input_desc",
                        msopgen_tensors(m->inputs, m->n_inputs), "output_desc",
                        msopgen_tensors(m->outputs, m->n_outputs), "attr", attrs);
        if (!doc)
                return -ENOMEM;
        if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
                r = format_error(err, err_size, -EIO, "%s: cannot write", path);
        json_decref(doc);
        return r;
}

int ascend_project_materialise(const struct npu_manifest *m, const char *repo_root,
                               const char *op_relpath, const char *scratch, const char *soc,
                               const char *toolkit_root, struct ascend_project *ret, char *err,
                               size_t err_size)
{
        struct ascend_project *p = calloc(1, sizeof(*p));
        char root[PATH_MAX], relpath[PATH_MAX], project_dir[PATH_MAX];
        char *parts[32] = { 0 }, *save = NULL, *tok;
        size_t n_parts = 0;
        const char *base;
        int r;

        if (!p)
                return -ENOMEM;
        if (!m || !scratch || !soc || !toolkit_root) {
                r = -EINVAL;
                goto out;
        }
        r = ascend_compute_unit(soc, p->compute_unit, sizeof(p->compute_unit));
        if (r < 0) {
                format_error(err, err_size, r,
                             "SoC \"%s\" is not a CANN SoC version such as Ascend910B4", soc);
                goto out;
        }
        snprintf(p->soc, sizeof(p->soc), "%s", soc);
        snprintf(p->toolkit_root, sizeof(p->toolkit_root), "%s", toolkit_root);
        base = strrchr(m->dir, '/') ? strrchr(m->dir, '/') + 1 : m->dir;
        if (format_path(project_dir, sizeof(project_dir), "%s/project", scratch) < 0) {
                r = format_error(err, err_size, -ENAMETOOLONG, "%s: path too long", scratch);
                goto out;
        }
        r = rm_rf(project_dir);
        if (r < 0 && r != -ENOENT) {
                format_error(err, err_size, r, "%s: cannot remove: %s", project_dir, strerror(-r));
                goto out;
        }
        r = mkdir_p(project_dir);
        if (r < 0) {
                format_error(err, err_size, r, "%s: cannot create: %s", project_dir, strerror(-r));
                goto out;
        }

        root[0] = relpath[0] = '\0';
        if (repo_root) {
                if (!ascend_is_cann_ops_root(repo_root)) {
                        r = format_error(err, err_size, -ENOENT,
                                         "%s: not a cann-ops style repository (needs build.sh, "
                                         "CMakePresets.json and cmake/)",
                                         repo_root);
                        goto out;
                }
                if (!realpath(repo_root, root))
                        snprintf(root, sizeof(root), "%s", repo_root);
        } else if (npu_find_repo_root(m->dir, root, sizeof(root)) < 0 ||
                   !ascend_is_cann_ops_root(root) || is_same_dir(root, m->dir)) {
                /* the repository the sim reads the operator in (.git or an
                 * export's marker), when it builds with cann-ops' build.sh */
                root[0] = '\0';
        }
        if (root[0] && op_relpath) {
                snprintf(relpath, sizeof(relpath), "%s", op_relpath);
        } else if (root[0]) {
                char dir[PATH_MAX];
                size_t len = strlen(root);
                if (!realpath(m->dir, dir) || strncmp(dir, root, len) != 0 || dir[len] != '/') {
                        r = format_error(err, err_size, -EINVAL,
                                         "%s is not inside %s; say where the operator sits in "
                                         "the repository",
                                         m->dir, root);
                        goto out;
                }
                snprintf(relpath, sizeof(relpath), "%s", dir + len + 1);
        }

        if (root[0]) {
                /* the repository less every operator's folder, then the candidate's files */
                char op_in_project[PATH_MAX];
                p->kind = ASCEND_PROJECT_OWN;
                for (tok = strtok_r(relpath, "/", &save); tok && n_parts + 1 < ARRAY_SIZE(parts);
                     tok = strtok_r(NULL, "/", &save))
                        if (strcmp(tok, ".") != 0 && *tok)
                                parts[n_parts++] = tok;
                if (n_parts == 0) {
                        r = format_error(err, err_size, -EINVAL,
                                         "%s: the operator cannot be the repository root", root);
                        goto out;
                }
                r = copy_tree(root, project_dir, true, 0, err, err_size);
                if (r < 0)
                        goto out;
                snprintf(p->root, sizeof(p->root), "%s", project_dir);
                snprintf(op_in_project, sizeof(op_in_project), "%s", project_dir);
                for (size_t i = 0; i < n_parts; i++) {
                        size_t len = strlen(op_in_project);
                        snprintf(op_in_project + len, sizeof(op_in_project) - len, "/%s", parts[i]);
                }
                r = rm_rf(op_in_project);
                if (r < 0 && r != -ENOENT)
                        goto out;
                r = copy_tree(m->dir, op_in_project, false, 0, err, err_size);
                if (r < 0)
                        goto out;
                snprintf(p->op_dir, sizeof(p->op_dir), "%s", op_in_project);
                snprintf(p->op_dir_name, sizeof(p->op_dir_name), "%s", parts[n_parts - 1]);
                r = patch_presets(p, err, err_size);
                if (r < 0)
                        goto out;
        } else {
                char path[PATH_MAX];
                p->kind = ASCEND_PROJECT_MSOPGEN;
                if (format_path(p->root, sizeof(p->root), "%s/CustomOp", project_dir) < 0 ||
                    format_path(p->op_dir, sizeof(p->op_dir), "%s", p->root) < 0 ||
                    format_path(path, sizeof(path), "%s/op.json", project_dir) < 0) {
                        r = format_error(err, err_size, -ENAMETOOLONG, "%s: path too long",
                                         project_dir);
                        goto out;
                }
                snprintf(p->op_dir_name, sizeof(p->op_dir_name), "%s", base);
                r = write_msopgen_description(m, path, err, err_size);
                if (r < 0)
                        goto out;
        }
        *ret = *p;
out:
        if (r == -ENOMEM)
                format_error(err, err_size, r, "materialising %s: out of memory", m->dir);
        free(p);
        return r;
}

/* Removes the skeleton's sources (not its CMakeLists.txt) from dir. */
static int remove_sources(const char *dir)
{
        struct dirent *e;
        DIR *d = opendir(dir);

        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((e = readdir(d))) {
                char path[PATH_MAX];
                if (skipped_entry(e->d_name) || strcmp(e->d_name, "CMakeLists.txt") == 0)
                        continue;
                if (format_path(path, sizeof(path), "%s/%s", dir, e->d_name) == 0)
                        rm_rf(path);
        }
        closedir(d);
        return 0;
}

int ascend_project_overlay(const struct npu_manifest *m, struct ascend_project *p, char *err,
                           size_t err_size)
{
        static const char *const subdirs[] = { "op_host", "op_kernel" };
        int r;

        if (p->kind != ASCEND_PROJECT_MSOPGEN)
                return 0;
        if (!is_dir(p->root))
                return format_error(err, err_size, -ENOENT, "msopgen made no project at %s",
                                    p->root);
        for (size_t i = 0; i < ARRAY_SIZE(subdirs); i++) {
                char from[PATH_MAX], to[PATH_MAX], keep[PATH_MAX];
                if (format_path(from, sizeof(from), "%s/%s", m->dir, subdirs[i]) < 0)
                        return format_error(err, err_size, -ENAMETOOLONG, "%s: path too long",
                                            m->dir);
                if (format_path(to, sizeof(to), "%s/%s", p->root, subdirs[i]) < 0 ||
                    format_path(keep, sizeof(keep), "%s/CMakeLists.txt", to) < 0)
                        return format_error(err, err_size, -ENAMETOOLONG, "%s: path too long",
                                            p->root);
                r = remove_sources(to);
                if (r < 0)
                        return format_error(err, err_size, r, "%s: %s", to, strerror(-r));
                /* our CMakeLists.txt, if any, must not replace the skeleton's */
                if (is_file(keep)) {
                        char saved[PATH_MAX];
                        if (format_path(saved, sizeof(saved), "%s/.CMakeLists.txt.skeleton",
                                        p->root) < 0)
                                return format_error(err, err_size, -ENAMETOOLONG,
                                                    "%s: path too long", p->root);
                        if (rename(keep, saved) < 0)
                                return format_error(err, err_size, -errno, "%s: %s", keep,
                                                    strerror(errno));
                        r = copy_tree(from, to, false, 0, err, err_size);
                        if (rename(saved, keep) < 0 && r == 0)
                                r = format_error(err, err_size, -errno, "%s: %s", keep,
                                                 strerror(errno));
                } else {
                        r = copy_tree(from, to, false, 0, err, err_size);
                }
                if (r < 0)
                        return r;
        }
        return patch_presets(p, err, err_size);
}

/* ------------------------------------------------------------ commands */

int ascend_msopgen_argv(const struct ascend_project *p, const char *msopgen,
                        struct ascend_argv *ret)
{
        struct ascend_argv a = { 0 };
        char project_dir[PATH_MAX];
        char *slash;
        int r;

        snprintf(project_dir, sizeof(project_dir), "%s", p->root);
        slash = strrchr(project_dir, '/');
        if (slash)
                *slash = '\0';
        r = ascend_argv_add(&a, "%s", msopgen);
        if (!r)
                r = ascend_argv_add(&a, "gen");
        if (!r)
                r = ascend_argv_add(&a, "-i");
        if (!r)
                r = ascend_argv_add(&a, "%s/op.json", project_dir);
        if (!r)
                r = ascend_argv_add(&a, "-c");
        if (!r)
                r = ascend_argv_add(&a, "ai_core-%s", p->soc);
        if (!r)
                r = ascend_argv_add(&a, "-lan");
        if (!r)
                r = ascend_argv_add(&a, "cpp");
        if (!r)
                r = ascend_argv_add(&a, "-out");
        if (!r)
                r = ascend_argv_add(&a, "%s", p->root);
        if (r < 0) {
                ascend_argv_release(&a);
                return r;
        }
        *ret = a;
        return 0;
}

int ascend_build_argv(const struct ascend_project *p, const char *bash, const char *third_lib_path,
                      struct ascend_argv *ret)
{
        struct ascend_argv a = { 0 };
        int r;

        r = ascend_argv_add(&a, "%s", bash ? bash : "bash");
        if (!r)
                r = ascend_argv_add(&a, "build.sh");
        if (!r && p->kind == ASCEND_PROJECT_OWN) {
                r = ascend_argv_add(&a, "-n");
                if (!r)
                        r = ascend_argv_add(&a, "%s", p->op_dir_name);
                if (!r && third_lib_path)
                        r = ascend_argv_add(&a, "--third_lib_path");
                if (!r && third_lib_path)
                        r = ascend_argv_add(&a, "%s", third_lib_path);
        }
        if (r < 0) {
                ascend_argv_release(&a);
                return r;
        }
        *ret = a;
        return 0;
}

/* The newest .run file in dir, if newer than *newest: into buf, and *found. */
static void newest_package(const char *dir, char *buf, size_t size, struct timespec *newest,
                           bool *found)
{
        struct dirent *e;
        DIR *d = opendir(dir);

        if (!d)
                return;
        while ((e = readdir(d))) {
                char path[PATH_MAX];
                struct stat st;
                size_t len = strlen(e->d_name);
                if (len < 5 || strcmp(e->d_name + len - 4, ".run") != 0)
                        continue;
                if (format_path(path, sizeof(path), "%s/%s", dir, e->d_name) < 0 ||
                    stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (*found &&
                    (st.st_mtim.tv_sec < newest->tv_sec || (st.st_mtim.tv_sec == newest->tv_sec &&
                                                            st.st_mtim.tv_nsec <= newest->tv_nsec)))
                        continue;
                if (format_path(buf, size, "%s", path) == 0) {
                        *newest = st.st_mtim;
                        *found = true;
                }
        }
        closedir(d);
}

int ascend_find_package(const struct ascend_project *p, char *buf, size_t size, char *err,
                        size_t err_size)
{
        static const char *const dirs[] = { "build_out", "build" };
        struct timespec newest = { 0 };
        bool found = false;

        for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
                char dir[PATH_MAX];
                if (format_path(dir, sizeof(dir), "%s/%s", p->root, dirs[i]) < 0)
                        return format_error(err, err_size, -ENAMETOOLONG, "%s/%s: path too long",
                                            p->root, dirs[i]);
                newest_package(dir, buf, size, &newest, &found);
        }
        if (!found)
                return format_error(err, err_size, -ENOENT,
                                    "build.sh succeeded but left no .run package in %s/build_out "
                                    "or %s/build",
                                    p->root, p->root);
        return 0;
}

int ascend_install_argv(const char *package, const char *install_path, struct ascend_argv *ret)
{
        struct ascend_argv a = { 0 };
        int r;

        r = ascend_argv_add(&a, "%s", package);
        if (!r)
                r = ascend_argv_add(&a, "--quiet");
        if (!r)
                r = ascend_argv_add(&a, "--install-path=%s", install_path);
        if (r < 0) {
                ascend_argv_release(&a);
                return r;
        }
        *ret = a;
        return 0;
}

int ascend_find_vendor(const char *install_path, char *buf, size_t size, char *err, size_t err_size)
{
        char dir[PATH_MAX], seen[1024] = "";
        struct dirent *e;
        size_t found = 0;
        DIR *d;

        if (format_path(dir, sizeof(dir), "%s/vendors", install_path) < 0)
                return format_error(err, err_size, -ENAMETOOLONG, "%s: path too long",
                                    install_path);
        d = opendir(dir);
        if (!d)
                return format_error(err, err_size, -ENOENT, "the installer made no %s directory",
                                    dir);
        while ((e = readdir(d))) {
                char lib[PATH_MAX];
                if (e->d_name[0] == '.')
                        continue;
                snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s",
                         seen[0] ? ", " : "", e->d_name);
                if (format_path(lib, sizeof(lib), "%s/%s/op_api/lib", dir, e->d_name) < 0 ||
                    !is_dir(lib))
                        continue;
                if (found++ == 0 && format_path(buf, size, "%s/%s", dir, e->d_name) < 0) {
                        closedir(d);
                        return format_error(err, err_size, -ENAMETOOLONG, "%s/%s: path too long",
                                            dir, e->d_name);
                }
        }
        closedir(d);
        if (found != 1)
                return format_error(err, err_size, found ? -EEXIST : -ENOENT,
                                    "%s: expected one vendor with op_api/lib, found %zu (%s)", dir,
                                    found, seen[0] ? seen : "empty");
        return 0;
}

int ascend_kernel_prefix(const char *op_type, char *buf, size_t size)
{
        if (!op_type || !*op_type)
                return -EINVAL;
        return format_path(buf, size, "%s_", op_type);
}

int ascend_msprof_argv(const char *msprof, const char *out_dir, const char *kernel,
                       unsigned launch_count, unsigned warmup, const char *const *harness_argv,
                       struct ascend_argv *ret)
{
        struct ascend_argv a = { 0 };
        int r;

        if (!harness_argv || !harness_argv[0] || launch_count < 1 || launch_count > 100)
                return -EINVAL;
        r = ascend_argv_add(&a, "%s", msprof);
        if (!r)
                r = ascend_argv_add(&a, "op");
        if (!r)
                r = ascend_argv_add(&a, "--output=%s", out_dir);
        if (!r)
                r = ascend_argv_add(&a, "--kernel-name=%s", kernel);
        if (!r)
                r = ascend_argv_add(&a, "--launch-count=%u", launch_count);
        if (!r && warmup)
                r = ascend_argv_add(&a, "--launch-skip-before-match=%u", warmup);
        for (const char *const *h = harness_argv; !r && *h; h++)
                r = ascend_argv_add(&a, "%s", *h);
        if (r < 0) {
                ascend_argv_release(&a);
                return r;
        }
        *ret = a;
        return 0;
}

int ascend_run_env(const struct ascend_env *base, const char *vendor_dir,
                   struct ascend_env **ret_env)
{
        struct ascend_env *env = NULL;
        char value[PATH_MAX];
        int r;

        if (!base || !vendor_dir)
                return -EINVAL;
        r = ascend_env_copy(base, &env);
        if (r < 0)
                return r;
        ascend_env_unset(env, "ASCEND_RT_VISIBLE_DEVICES");
        r = format_path(value, sizeof(value), "%s/op_api/lib", vendor_dir);
        if (!r)
                r = ascend_env_prepend(env, "LD_LIBRARY_PATH", value);
        if (!r)
                r = ascend_env_prepend(env, "ASCEND_CUSTOM_OPP_PATH", vendor_dir);
        if (r < 0) {
                ascend_env_free(env);
                return r;
        }
        *ret_env = env;
        return 0;
}

int ascend_build_env(const struct ascend_env *base, const char *compute_unit,
                     struct ascend_env **ret_env)
{
        struct ascend_env *env = NULL;
        int r;

        if (!base || !compute_unit)
                return -EINVAL;
        r = ascend_env_copy(base, &env);
        if (r < 0)
                return r;
        ascend_env_unset(env, "ASCEND_CUSTOM_OPP_PATH");
        r = ascend_env_set(env, "ASCEND_COMPUTE_UNIT", compute_unit);
        if (r < 0) {
                ascend_env_free(env);
                return r;
        }
        *ret_env = env;
        return 0;
}
