/* SPDX-License-Identifier: MIT */
/*
 * Where an operator's sources are and what compiles them, read from the
 * repository around it.  An operator is a folder inside its repository
 * (cann-ops keeps shared headers in src/common/inc and some tiling code in
 * src/common/src), and that repository's CMake says which sources build
 * the OpDef, the tiling function and InferShape, and which folders they
 * include.  This file reads just enough CMake for that (set, add_subdirectory,
 * target_sources, target_include_directories, target_link_libraries and
 * add_ops_compile_options), falls back to the folder's layout where there is
 * no CMake to read, and follows #include lines to find the repository files
 * a build reads: they travel with every candidate and are part of its
 * identity.
 */
#include "manifest.h"

#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMAKE_MAX_BYTES  (1u << 20)
#define SOURCE_MAX_BYTES (4u << 20)
#define MAX_VARS         256
#define MAX_ARGS         512
#define MAX_IFACE_LIBS   64
#define MAX_SCAN_DEPTH   6 /* folders below the root searched for common/inc */

/* ------------------------------------------------------------ small helpers */

static bool is_dir(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Whether path is root itself or lies below it (both absolute and resolved). */
static bool path_within(const char *path, const char *root)
{
        size_t n = strlen(root);

        if (strcmp(root, "/") == 0)
                return true;
        return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A growable list of strings with a hard limit. */
struct list {
        char **items;
        size_t n, max;
};

static bool list_has(const struct list *l, const char *s)
{
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->items[i], s) == 0)
                        return true;
        return false;
}

/* Adds a copy of s unless it is there: 0, or -E2BIG past the limit, -ENOMEM. */
static int list_add(struct list *l, const char *s)
{
        char **grown;

        if (list_has(l, s))
                return 0;
        if (l->n == l->max)
                return -E2BIG;
        grown = realloc(l->items, (l->n + 1) * sizeof(*l->items));
        if (!grown)
                return -ENOMEM;
        l->items = grown;
        l->items[l->n] = strdup(s);
        if (!l->items[l->n])
                return -ENOMEM;
        l->n++;
        return 0;
}

static void list_release(struct list *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i]);
        free(l->items);
        l->items = NULL;
        l->n = 0;
}

/* Moves a list into a layout's array and count. */
static void list_take(struct list *l, char ***ret_items, size_t *ret_n)
{
        *ret_items = l->items;
        *ret_n = l->n;
        l->items = NULL;
        l->n = 0;
}

/* ------------------------------------------------------------ the repository root */

static bool is_repo_marker(const char *dir)
{
        char path[PATH_MAX];
        struct stat st;

        if (format_path(path, sizeof(path), "%s/.git", dir) == 0 && lstat(path, &st) == 0)
                return true;
        return format_path(path, sizeof(path), "%s/" NPU_EXPORT_MARKER, dir) == 0 && is_file(path);
}

bool npu_is_operator_dir(const char *dir)
{
        char path[PATH_MAX];

        return format_path(path, sizeof(path), "%s/op_host", dir) == 0 && is_dir(path) &&
               format_path(path, sizeof(path), "%s/op_kernel", dir) == 0 && is_dir(path);
}

int npu_find_repo_root(const char *op_dir, char *buf, size_t size)
{
        char path[PATH_MAX];

        if (!realpath(op_dir, path))
                return -errno;
        for (;;) {
                char *slash;
                if (is_repo_marker(path))
                        return format_path(buf, size, "%s", path);
                slash = strrchr(path, '/');
                if (!slash || slash == path)
                        return -ENOENT;
                *slash = '\0';
        }
}

/* ------------------------------------------------------------ reading CMake */

struct cmake_var {
        char *name, *value;
};

struct cmake {
        const char *root;    /* the repository root: CMAKE_SOURCE_DIR */
        const char *current; /* the folder of the file read: CMAKE_CURRENT_SOURCE_DIR */
        struct cmake_var vars[MAX_VARS];
        size_t n_vars;
};

static const char *cmake_var(const struct cmake *c, const char *name)
{
        if (strcmp(name, "CMAKE_SOURCE_DIR") == 0 || strcmp(name, "PROJECT_SOURCE_DIR") == 0 ||
            strcmp(name, "CMAKE_HOME_DIRECTORY") == 0)
                return c->root;
        if (strcmp(name, "CMAKE_CURRENT_SOURCE_DIR") == 0 ||
            strcmp(name, "CMAKE_CURRENT_LIST_DIR") == 0)
                return c->current;
        for (size_t i = c->n_vars; i-- > 0;)
                if (strcmp(c->vars[i].name, name) == 0)
                        return c->vars[i].value;
        return NULL;
}

static void cmake_set(struct cmake *c, const char *name, const char *value)
{
        if (c->n_vars == MAX_VARS)
                return; /* an unknown variable drops the paths that use it */
        c->vars[c->n_vars].name = strdup(name);
        c->vars[c->n_vars].value = strdup(value);
        if (!c->vars[c->n_vars].name || !c->vars[c->n_vars].value) {
                free(c->vars[c->n_vars].name);
                free(c->vars[c->n_vars].value);
                return;
        }
        c->n_vars++;
}

static void cmake_release(struct cmake *c)
{
        for (size_t i = 0; i < c->n_vars; i++) {
                free(c->vars[i].name);
                free(c->vars[i].value);
        }
        c->n_vars = 0;
}

/*
 * Expands ${VAR} references and the $<BUILD_INTERFACE:...> generator
 * expression into out.  False when the argument uses a variable this
 * reader does not know or another generator expression: such an argument
 * names something outside what can be resolved, and is left out.
 */
static bool cmake_expand(const struct cmake *c, const char *in, char *out, size_t size, int depth)
{
        size_t n = 0;

        if (depth > 8)
                return false;
        if (strncmp(in, "$<BUILD_INTERFACE:", 18) == 0 && ends_with(in, ">")) {
                char inner[PATH_MAX];
                snprintf(inner, sizeof(inner), "%.*s", (int)(strlen(in) - 19), in + 18);
                return cmake_expand(c, inner, out, size, depth + 1);
        }
        if (strstr(in, "$<"))
                return false;
        while (*in) {
                if (in[0] == '$' && in[1] == '{') {
                        const char *end = strchr(in, '}');
                        char name[128], value[PATH_MAX];
                        const char *v;
                        if (!end || (size_t)(end - in - 2) >= sizeof(name))
                                return false;
                        snprintf(name, sizeof(name), "%.*s", (int)(end - in - 2), in + 2);
                        v = cmake_var(c, name);
                        if (!v || !cmake_expand(c, v, value, sizeof(value), depth + 1))
                                return false;
                        for (const char *p = value; *p; p++) {
                                if (n + 1 >= size)
                                        return false;
                                out[n++] = *p;
                        }
                        in = end + 1;
                        continue;
                }
                if (n + 1 >= size)
                        return false;
                out[n++] = *in++;
        }
        out[n] = '\0';
        return true;
}

/* One command of a CMake file: its name (lower case) and its raw arguments. */
struct cmake_command {
        char name[64];
        char *args[MAX_ARGS];
        size_t n_args;
};

static void command_release(struct cmake_command *cmd)
{
        for (size_t i = 0; i < cmd->n_args; i++)
                free(cmd->args[i]);
        cmd->n_args = 0;
}

static const char *skip_space_and_comments(const char *p)
{
        for (;;) {
                while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                        p++;
                if (*p != '#')
                        return p;
                while (*p && *p != '\n')
                        p++;
        }
}

/*
 * Reads the next command from *pos; false at the end of the text.  Quoted
 * arguments lose their quotes; nested parentheses stay inside one
 * argument (if() conditions); a '#' outside quotes starts a comment.
 */
static bool next_command(const char **pos, struct cmake_command *cmd)
{
        const char *p = *pos;

        cmd->n_args = 0;
        for (;;) {
                size_t n = 0;
                p = skip_space_and_comments(p);
                if (!*p)
                        return false;
                while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
                       (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
                        n++;
                if (n == 0 || n >= sizeof(cmd->name)) {
                        /* not a command: skip the line */
                        while (*p && *p != '\n')
                                p++;
                        continue;
                }
                for (size_t i = 0; i < n; i++)
                        cmd->name[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
                cmd->name[n] = '\0';
                p += n;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p != '(') {
                        while (*p && *p != '\n')
                                p++;
                        continue;
                }
                p++;
                break;
        }
        for (;;) {
                char arg[PATH_MAX];
                size_t n = 0;
                int depth = 0;
                p = skip_space_and_comments(p);
                if (!*p)
                        break;
                if (*p == ')') {
                        p++;
                        break;
                }
                if (*p == '"') {
                        p++;
                        while (*p && *p != '"') {
                                if (*p == '\\' && p[1])
                                        p++;
                                if (n + 1 < sizeof(arg))
                                        arg[n++] = *p;
                                p++;
                        }
                        if (*p == '"')
                                p++;
                } else {
                        while (*p && !((*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') &&
                                       depth == 0)) {
                                if (*p == '(')
                                        depth++;
                                else if (*p == ')' && depth-- == 0)
                                        break;
                                if (*p == '#' && depth == 0)
                                        break;
                                if (n + 1 < sizeof(arg))
                                        arg[n++] = *p;
                                p++;
                        }
                }
                arg[n] = '\0';
                if (cmd->n_args < MAX_ARGS && (cmd->args[cmd->n_args] = strdup(arg)))
                        cmd->n_args++;
        }
        *pos = p;
        return true;
}

static bool is_scope_keyword(const char *s)
{
        static const char *const words[] = { "PRIVATE", "PUBLIC", "INTERFACE", "BEFORE",
                                             "AFTER",   "SYSTEM", NULL };
        for (const char *const *w = words; *w; w++)
                if (strcmp(s, *w) == 0)
                        return true;
        return false;
}

/*
 * The aclnn API library: its sources (aclnn_*.cpp, *_l0.cpp) wrap the
 * operator for callers and need the runtime, not the simulator.
 */
static bool is_api_target(const char *target)
{
        return strcmp(target, "opapi") == 0;
}

/* The file names of the aclnn and opdev wrappers, wherever a build lists them. */
static bool is_wrapper_name(const char *name)
{
        const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

        return strncmp(base, "aclnn_", 6) == 0 || strstr(base, "_l0.") != NULL;
}

/* An interface library a folder declares, and the folders it gives to its users. */
struct iface_lib {
        char name[128];
        struct list dirs;
};

struct cmake_result {
        struct list host_units, host_includes, kernel_includes, kernel_defines;
        struct list libs_used; /* target_link_libraries of the host targets */
        struct iface_lib ifaces[MAX_IFACE_LIBS];
        size_t n_ifaces;
};

/* path resolved against the current folder, kept only when it is inside the repository. */
static bool resolve_in_repo(const struct cmake *c, const char *arg, bool want_dir, char *out,
                            size_t size)
{
        char expanded[PATH_MAX], joined[PATH_MAX], real[PATH_MAX];

        if (!cmake_expand(c, arg, expanded, sizeof(expanded), 0) || !expanded[0])
                return false;
        if (expanded[0] == '/')
                snprintf(joined, sizeof(joined), "%s", expanded);
        else if (format_path(joined, sizeof(joined), "%s/%s", c->current, expanded) < 0)
                return false;
        if (!realpath(joined, real) || !path_within(real, c->root))
                return false;
        if (want_dir ? !is_dir(real) : !is_file(real))
                return false;
        return format_path(out, size, "%s", real) == 0;
}

static struct iface_lib *find_iface(struct cmake_result *res, const char *name, bool create)
{
        for (size_t i = 0; i < res->n_ifaces; i++)
                if (strcmp(res->ifaces[i].name, name) == 0)
                        return &res->ifaces[i];
        if (!create || res->n_ifaces == MAX_IFACE_LIBS)
                return NULL;
        snprintf(res->ifaces[res->n_ifaces].name, sizeof(res->ifaces[0].name), "%s", name);
        res->ifaces[res->n_ifaces].dirs.max = NPU_LAYOUT_MAX_DIRS;
        return &res->ifaces[res->n_ifaces++];
}

/*
 * Which file is read: the repository's root file declares the host targets
 * and what they link (targets are global in CMake), a folder it adds only
 * its interface libraries, and the operator's own file its sources too.
 */
enum cmake_file { CMAKE_ROOT, CMAKE_SUBDIR, CMAKE_OPERATOR };

/* Runs one command of a file. */
static int run_command(struct cmake *c, const struct cmake_command *cmd, enum cmake_file file,
                       struct cmake_result *res, struct list *subdirs)
{
        bool targets = file != CMAKE_SUBDIR, op_file = file == CMAKE_OPERATOR;

        char path[PATH_MAX];
        int r = 0;

        if (cmd->n_args == 0)
                return 0;
        if (strcmp(cmd->name, "set") == 0) {
                /* set(NAME value): a one-word value only; lists and CACHE docs are not paths */
                if (cmd->n_args >= 2 && (cmd->n_args == 2 || strcmp(cmd->args[2], "CACHE") == 0) &&
                    cmake_expand(c, cmd->args[1], path, sizeof(path), 0))
                        cmake_set(c, cmd->args[0], path);
                return 0;
        }
        if (strcmp(cmd->name, "add_subdirectory") == 0) {
                if (subdirs && resolve_in_repo(c, cmd->args[0], true, path, sizeof(path)))
                        r = list_add(subdirs, path);
                return r == -E2BIG ? 0 : r;
        }
        if (strcmp(cmd->name, "target_include_directories") == 0) {
                bool iface = false, api = is_api_target(cmd->args[0]);
                struct iface_lib *lib = NULL;
                for (size_t i = 1; i < cmd->n_args && r == 0; i++) {
                        if (is_scope_keyword(cmd->args[i])) {
                                iface = strcmp(cmd->args[i], "INTERFACE") == 0 ||
                                        strcmp(cmd->args[i], "PUBLIC") == 0;
                                continue;
                        }
                        if (!resolve_in_repo(c, cmd->args[i], true, path, sizeof(path)))
                                continue;
                        if (iface && (lib = find_iface(res, cmd->args[0], true)))
                                r = list_add(&lib->dirs, path);
                        if (targets && !api && r == 0)
                                r = list_add(&res->host_includes, path);
                }
                return r;
        }
        if (strcmp(cmd->name, "include_directories") == 0 && targets) {
                for (size_t i = 0; i < cmd->n_args && r == 0; i++)
                        if (!is_scope_keyword(cmd->args[i]) &&
                            resolve_in_repo(c, cmd->args[i], true, path, sizeof(path)))
                                r = list_add(&res->host_includes, path);
                return r;
        }
        if (strcmp(cmd->name, "target_link_libraries") == 0 && targets) {
                if (is_api_target(cmd->args[0]))
                        return 0;
                for (size_t i = 1; i < cmd->n_args && r == 0; i++)
                        if (!is_scope_keyword(cmd->args[i])) {
                                char lib[PATH_MAX];
                                /* $<BUILD_INTERFACE:name> names a library too */
                                if (cmake_expand(c, cmd->args[i], lib, sizeof(lib), 0))
                                        r = list_add(&res->libs_used, lib);
                        }
                return r == -E2BIG ? 0 : r;
        }
        if (!op_file)
                return 0;
        if (strcmp(cmd->name, "target_sources") == 0) {
                if (is_api_target(cmd->args[0]))
                        return 0;
                for (size_t i = 1; i < cmd->n_args && r == 0; i++)
                        if (!is_scope_keyword(cmd->args[i]) && !is_wrapper_name(cmd->args[i]) &&
                            (ends_with(cmd->args[i], ".cpp") || ends_with(cmd->args[i], ".cc") ||
                             ends_with(cmd->args[i], ".cxx")) &&
                            resolve_in_repo(c, cmd->args[i], false, path, sizeof(path)))
                                r = list_add(&res->host_units, path);
                return r;
        }
        if (strcmp(cmd->name, "add_ops_compile_options") == 0) {
                /* the kernel's compile options: -I folders and -D definitions */
                bool options = false;
                for (size_t i = 0; i < cmd->n_args && r == 0; i++) {
                        const char *a = cmd->args[i];
                        if (strcmp(a, "OPTIONS") == 0) {
                                options = true;
                                continue;
                        }
                        if (!options)
                                continue;
                        if (strcmp(a, "-I") == 0 && i + 1 < cmd->n_args)
                                a = cmd->args[++i];
                        else if (strncmp(a, "-I", 2) == 0)
                                a += 2;
                        else {
                                if (strncmp(a, "-D", 2) == 0 && a[2] &&
                                    cmake_expand(c, a, path, sizeof(path), 0))
                                        r = list_add(&res->kernel_defines, path);
                                continue;
                        }
                        if (resolve_in_repo(c, a, true, path, sizeof(path)))
                                r = list_add(&res->kernel_includes, path);
                }
                return r;
        }
        return 0;
}

static int read_cmake_file(struct cmake *c, const char *dir, enum cmake_file file,
                           struct cmake_result *res, struct list *subdirs, bool *ret_found)
{
        struct cmake_command cmd = { 0 };
        char path[PATH_MAX], *text = NULL;
        const char *pos;
        size_t len;
        int r;

        *ret_found = false;
        if (format_path(path, sizeof(path), "%s/CMakeLists.txt", dir) < 0)
                return -ENAMETOOLONG;
        r = read_text_file(path, CMAKE_MAX_BYTES, &text, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        *ret_found = true;
        c->current = dir;
        pos = text;
        while (r == 0 && next_command(&pos, &cmd)) {
                r = run_command(c, &cmd, file, res, subdirs);
                command_release(&cmd);
        }
        command_release(&cmd);
        free(text);
        return r;
}

/*
 * The build the repository's CMake declares for the operator: the root
 * file's variables and the interface libraries of the folders it adds,
 * then the operator's own file.  ret_found says whether the operator has
 * a CMakeLists.txt at all.
 */
static int read_cmake(const char *root, const char *op_dir, struct cmake_result *res,
                      bool *ret_found)
{
        struct cmake c = { .root = root, .current = root };
        struct list subdirs = { .max = 32 };
        bool found;
        int r;

        r = read_cmake_file(&c, root, CMAKE_ROOT, res, &subdirs, &found);
        for (size_t i = 0; r == 0 && i < subdirs.n; i++)
                if (strcmp(subdirs.items[i], op_dir) != 0 && !path_within(op_dir, subdirs.items[i]))
                        r = read_cmake_file(&c, subdirs.items[i], CMAKE_SUBDIR, res, NULL, &found);
        /* the root's variables hold in the operator's file; CMAKE_CURRENT_* move to it */
        if (r == 0)
                r = read_cmake_file(&c, op_dir, CMAKE_OPERATOR, res, NULL, ret_found);
        for (size_t i = 0; r == 0 && i < res->libs_used.n; i++) {
                struct iface_lib *lib = find_iface(res, res->libs_used.items[i], false);
                for (size_t j = 0; lib && r == 0 && j < lib->dirs.n; j++)
                        r = list_add(&res->host_includes, lib->dirs.items[j]);
        }
        list_release(&subdirs);
        cmake_release(&c);
        return r;
}

static void cmake_result_release(struct cmake_result *res)
{
        list_release(&res->host_units);
        list_release(&res->host_includes);
        list_release(&res->kernel_includes);
        list_release(&res->kernel_defines);
        list_release(&res->libs_used);
        for (size_t i = 0; i < res->n_ifaces; i++)
                list_release(&res->ifaces[i].dirs);
}

/* ------------------------------------------------------------ the folder's own layout */

/*
 * Whether a source includes the operator-API runtime (opdev/, aclnn_kernels/,
 * aclnnop/, aclnn/aclnn_base.h), as every aclnn and level-0 wrapper in
 * cann-ops does: a wrapper, not host code.
 */
static bool includes_api_runtime(const char *path)
{
        char *text = NULL;
        size_t len;
        bool found = false;

        if (read_text_file(path, SOURCE_MAX_BYTES, &text, &len) < 0)
                return false;
        for (const char *p = text; (p = strstr(p, "#include")); p += 8) {
                const char *q = p + 8;
                while (*q == ' ' || *q == '\t')
                        q++;
                if (*q == '"' || *q == '<') {
                        q++;
                        /* (aclnn/opdev/op_log.h is only logging: host code includes it too) */
                        if (strncmp(q, "opdev/", 6) == 0 || strncmp(q, "aclnn_kernels/", 14) == 0 ||
                            strncmp(q, "aclnnop/", 8) == 0 ||
                            strncmp(q, "aclnn/aclnn_base.h", 18) == 0) {
                                found = true;
                                break;
                        }
                }
        }
        free(text);
        return found;
}

static int compare_strings(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts a list by name (an empty list has no array: qsort must not see it). */
static void list_sort(struct list *l)
{
        if (l->n > 1)
                qsort(l->items, l->n, sizeof(*l->items), compare_strings);
}

/* op_host's .cpp and .cc units, sorted, without the aclnn and opdev wrappers. */
static int list_host_units(const char *op_dir, struct list *units)
{
        char dir[PATH_MAX], path[PATH_MAX];
        struct list names = { .max = NPU_LAYOUT_MAX_UNITS * 4 };
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (format_path(dir, sizeof(dir), "%s/op_host", op_dir) < 0)
                return -ENAMETOOLONG;
        d = opendir(dir);
        if (!d)
                return -errno;
        while (r == 0 && (e = readdir(d)))
                if (e->d_name[0] != '.' &&
                    (ends_with(e->d_name, ".cpp") || ends_with(e->d_name, ".cc")))
                        r = list_add(&names, e->d_name);
        closedir(d);
        if (r == 0)
                list_sort(&names);
        for (size_t i = 0; r == 0 && i < names.n; i++) {
                if (is_wrapper_name(names.items[i]) ||
                    format_path(path, sizeof(path), "%s/%s", dir, names.items[i]) < 0 ||
                    !is_file(path) || includes_api_runtime(path))
                        continue;
                r = list_add(units, path);
        }
        list_release(&names);
        return r;
}

/* Every inc or include folder below a folder named common, as a repository without CMake keeps shared headers. */
static int find_common_includes(const char *dir, int depth, bool under_common, struct list *out)
{
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (depth > MAX_SCAN_DEPTH || !(d = opendir(dir)))
                return 0;
        while (r == 0 && (e = readdir(d))) {
                char path[PATH_MAX];
                struct stat st;
                if (e->d_name[0] == '.' ||
                    format_path(path, sizeof(path), "%s/%s", dir, e->d_name) < 0 ||
                    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (under_common &&
                    (strcmp(e->d_name, "inc") == 0 || strcmp(e->d_name, "include") == 0))
                        r = list_add(out, path);
                else
                        r = find_common_includes(
                            path, depth + 1, under_common || strcmp(e->d_name, "common") == 0, out);
        }
        closedir(d);
        return r == -E2BIG ? 0 : r;
}

/* ------------------------------------------------------------ following #include */

struct scan {
        const char *root, *op_dir;
        struct list seen;   /* absolute paths of every file read */
        struct list shared; /* relative to root: those outside op_dir */
        struct list tiling; /* absolute: headers that define tiling data */
};

static int scan_file(struct scan *s, const char *path, const char *const *dirs, size_t n_dirs);

/* Resolves one #include the way the compiler would, among the repository's files. */
static bool resolve_include(const struct scan *s, const char *from, const char *name, bool quoted,
                            const char *const *dirs, size_t n_dirs, char *out, size_t size)
{
        char candidate[PATH_MAX], real[PATH_MAX];

        if (name[0] == '/' || strstr(name, ".."))
                return false; /* never outside the folders the build names */
        if (quoted) {
                char here[PATH_MAX];
                snprintf(here, sizeof(here), "%s", from);
                if (strrchr(here, '/'))
                        *strrchr(here, '/') = '\0';
                if (format_path(candidate, sizeof(candidate), "%s/%s", here, name) == 0 &&
                    realpath(candidate, real) && path_within(real, s->root) && is_file(real))
                        return format_path(out, size, "%s", real) == 0;
        }
        for (size_t i = 0; i < n_dirs; i++)
                if (format_path(candidate, sizeof(candidate), "%s/%s", dirs[i], name) == 0 &&
                    realpath(candidate, real) && path_within(real, s->root) && is_file(real))
                        return format_path(out, size, "%s", real) == 0;
        return false;
}

/*
 * The next #include line of the text at *pos, which moves past it: the
 * name between its quotes or angle brackets, and which of the two.
 */
static bool next_include(const char **pos, char *name, size_t size, bool *ret_quoted)
{
        while (**pos) {
                const char *line = *pos, *end = strchr(line, '\n');
                size_t n = 0;
                char close;
                *pos = end ? end + 1 : line + strlen(line);
                while (*line == ' ' || *line == '\t')
                        line++;
                if (*line != '#')
                        continue;
                line++;
                while (*line == ' ' || *line == '\t')
                        line++;
                if (strncmp(line, "include", 7) != 0)
                        continue;
                line += 7;
                while (*line == ' ' || *line == '\t')
                        line++;
                if (*line != '"' && *line != '<')
                        continue;
                close = *line == '"' ? '"' : '>';
                line++;
                while (line[n] && line[n] != close && line[n] != '\n' && n + 1 < size) {
                        name[n] = line[n];
                        n++;
                }
                name[n] = '\0';
                if (line[n] != close)
                        continue;
                *ret_quoted = close == '"';
                return true;
        }
        return false;
}

static int scan_file(struct scan *s, const char *path, const char *const *dirs, size_t n_dirs)
{
        char *text = NULL;
        size_t len;
        int r;

        if (list_has(&s->seen, path))
                return 0;
        r = list_add(&s->seen, path);
        if (r < 0)
                return r;
        if (!path_within(path, s->op_dir))
                r = list_add(&s->shared, path + strlen(s->root) + (strcmp(s->root, "/") != 0));
        if (r < 0)
                return r;
        r = read_text_file(path, SOURCE_MAX_BYTES, &text, &len);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (ends_with(path, ".h") || ends_with(path, ".hpp") || ends_with(path, ".hh")) {
                if (strstr(text, "BEGIN_TILING_DATA_DEF"))
                        r = list_add(&s->tiling, path);
        }
        for (const char *p = text; r == 0 && *p;) {
                char name[PATH_MAX], found[PATH_MAX];
                bool quoted;
                if (next_include(&p, name, sizeof(name), &quoted) &&
                    resolve_include(s, path, name, quoted, dirs, n_dirs, found, sizeof(found)))
                        r = scan_file(s, found, dirs, n_dirs);
        }
        free(text);
        return r;
}

/* op_kernel's files, recursively (kernels keep headers in subfolders). */
static int scan_kernel_dir(struct scan *s, const char *dir, const char *const *dirs, size_t n_dirs,
                           int depth)
{
        struct list names = { .max = 4096 };
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (depth > MAX_SCAN_DEPTH || !(d = opendir(dir)))
                return 0;
        while (r == 0 && (e = readdir(d)))
                if (e->d_name[0] != '.')
                        r = list_add(&names, e->d_name);
        closedir(d);
        list_sort(&names);
        for (size_t i = 0; r == 0 && i < names.n; i++) {
                char path[PATH_MAX];
                struct stat st;
                if (format_path(path, sizeof(path), "%s/%s", dir, names.items[i]) < 0 ||
                    lstat(path, &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode))
                        r = scan_kernel_dir(s, path, dirs, n_dirs, depth + 1);
                else if (S_ISREG(st.st_mode) && st.st_size <= (off_t)SOURCE_MAX_BYTES)
                        r = scan_file(s, path, dirs, n_dirs); /* larger: data, not a source */
        }
        list_release(&names);
        return r;
}

/* ------------------------------------------------------------ headers an episode may copy */

#define MAX_LOCAL_HEADERS 16

struct localize {
        const struct scan *s;
        const char *const *dirs;
        size_t n_dirs;
        struct list headers; /* absolute: the shared headers to copy, as found */
        bool blocked;
};

static const char *base_name(const char *path)
{
        const char *slash = strrchr(path, '/');

        return slash ? slash + 1 : path;
}

/* Whether name, included from the file at from, was found beside it. */
static bool found_beside(const char *from, const char *name, const char *found)
{
        char here[PATH_MAX], candidate[PATH_MAX], real[PATH_MAX];

        snprintf(here, sizeof(here), "%s", from);
        if (strrchr(here, '/'))
                *strrchr(here, '/') = '\0';
        return format_path(candidate, sizeof(candidate), "%s/%s", here, name) == 0 &&
               realpath(candidate, real) && strcmp(real, found) == 0;
}

/* Follows the quoted #include lines of path (in op_kernel/ or a header to copy). */
static int localize_file(struct localize *z, const char *path)
{
        bool shared = !path_within(path, z->s->op_dir);
        char *text = NULL;
        size_t len;
        int r;

        r = read_text_file(path, SOURCE_MAX_BYTES, &text, &len);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        for (const char *p = text; r == 0 && !z->blocked && *p;) {
                char name[PATH_MAX], found[PATH_MAX], own[PATH_MAX];
                bool quoted;
                if (!next_include(&p, name, sizeof(name), &quoted) || !quoted ||
                    !resolve_include(z->s, path, name, true, z->dirs, z->n_dirs, found,
                                     sizeof(found)))
                        continue;
                if (strchr(name, '/')) {
                        /* a copy in op_kernel/ would no longer find this neighbour */
                        z->blocked = shared && found_beside(path, name, found);
                        continue;
                }
                if (path_within(found, z->s->op_dir) || list_has(&z->headers, found))
                        continue;
                /* one name, one header: op_kernel/NAME must be free */
                if (format_path(own, sizeof(own), "%s/op_kernel/%s", z->s->op_dir, name) < 0 ||
                    is_file(own) || z->headers.n == MAX_LOCAL_HEADERS) {
                        z->blocked = true;
                        continue;
                }
                for (size_t i = 0; i < z->headers.n; i++)
                        z->blocked |= strcmp(base_name(z->headers.items[i]), name) == 0;
                if (z->blocked)
                        continue;
                r = list_add(&z->headers, found);
                if (r == 0)
                        r = localize_file(z, found);
        }
        free(text);
        return r;
}

/*
 * The shared headers an episode may copy into op_kernel/ to rewrite them:
 * those the kernel reaches through quoted #include lines naming a bare
 * file ("x.h"), found outside the operator.  The compiler looks beside the
 * including file before any -I folder, so once all of them lie in
 * op_kernel/, every one of those lines finds the copy: a line left in a
 * shared header would find its own neighbour, so they go together or not
 * at all.  None when a header to copy includes a neighbour by a path with
 * a folder (its copy would not find it), when two share a name, when
 * op_kernel/ already has one of the names, or past MAX_LOCAL_HEADERS.
 */
static int find_local_headers(const struct scan *s, const struct list *kernel_dirs,
                              struct list *out)
{
        struct localize z = { .s = s,
                              .dirs = (const char *const *)kernel_dirs->items,
                              .n_dirs = kernel_dirs->n,
                              .headers.max = MAX_LOCAL_HEADERS };
        char kernel_dir[PATH_MAX];
        int r;

        r = format_path(kernel_dir, sizeof(kernel_dir), "%s/op_kernel", s->op_dir);
        for (size_t i = 0; r == 0 && !z.blocked && i < s->seen.n; i++)
                if (path_within(s->seen.items[i], kernel_dir))
                        r = localize_file(&z, s->seen.items[i]);
        for (size_t i = 0; r == 0 && !z.blocked && i < z.headers.n; i++)
                r = list_add(out,
                             z.headers.items[i] + strlen(s->root) + (strcmp(s->root, "/") != 0));
        if (z.blocked)
                list_release(out);
        list_release(&z.headers);
        return r;
}

/* ------------------------------------------------------------ the layout */

struct npu_op_layout *npu_op_layout_free(struct npu_op_layout *l)
{
        char **lists[] = { l ? l->host_units : NULL,      l ? l->host_includes : NULL,
                           l ? l->kernel_includes : NULL, l ? l->kernel_defines : NULL,
                           l ? l->tiling_headers : NULL,  l ? l->shared_files : NULL,
                           l ? l->kernel_headers : NULL };
        size_t counts[] = { l ? l->n_host_units : 0,      l ? l->n_host_includes : 0,
                            l ? l->n_kernel_includes : 0, l ? l->n_kernel_defines : 0,
                            l ? l->n_tiling_headers : 0,  l ? l->n_shared_files : 0,
                            l ? l->n_kernel_headers : 0 };

        if (!l)
                return NULL;
        for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
                for (size_t j = 0; j < counts[i]; j++)
                        free(lists[i][j]);
                free(lists[i]);
        }
        free(l->repo_root);
        free(l->op_dir);
        free(l->op_relpath);
        free(l);
        return NULL;
}

/* The include folders a host unit searches after the shim's: the operator's own, then the build's. */
static int host_search_dirs(const char *op_dir, const struct list *extra, struct list *out)
{
        char path[PATH_MAX];
        int r = 0;

        if (format_path(path, sizeof(path), "%s/op_host", op_dir) == 0)
                r = list_add(out, path);
        if (r == 0 && format_path(path, sizeof(path), "%s/op_kernel", op_dir) == 0)
                r = list_add(out, path);
        if (r == 0)
                r = list_add(out, op_dir);
        for (size_t i = 0; r == 0 && i < extra->n; i++)
                r = list_add(out, extra->items[i]);
        return r;
}

int npu_op_layout_read(const char *op_dir, const char *repo_root, struct npu_op_layout **ret,
                       char *err, size_t err_size)
{
        struct cmake_result cm = { .host_units.max = NPU_LAYOUT_MAX_UNITS,
                                   .host_includes.max = NPU_LAYOUT_MAX_DIRS,
                                   .kernel_includes.max = NPU_LAYOUT_MAX_DIRS,
                                   .kernel_defines.max = NPU_LAYOUT_MAX_DIRS,
                                   .libs_used.max = 64 };
        struct scan s = { .seen.max = NPU_LAYOUT_MAX_FILES,
                          .shared.max = NPU_LAYOUT_MAX_FILES,
                          .tiling.max = NPU_LAYOUT_MAX_UNITS };
        struct list host_dirs = { .max = NPU_LAYOUT_MAX_DIRS + 3 },
                    kernel_dirs = { .max = 2 * NPU_LAYOUT_MAX_DIRS + 3 };
        struct npu_op_layout *l = calloc(1, sizeof(*l));
        char real_op[PATH_MAX], root[PATH_MAX], path[PATH_MAX];
        bool has_cmake = false;
        int r;

        if (!l)
                return -ENOMEM;
        if (!realpath(op_dir, real_op)) {
                r = format_error(err, err_size, -errno, "%s: %s", op_dir, strerror(errno));
                goto out;
        }
        if (repo_root) {
                if (!realpath(repo_root, root)) {
                        r = format_error(err, err_size, -errno, "%s: %s", repo_root,
                                         strerror(errno));
                        goto out;
                }
        } else if (npu_find_repo_root(real_op, root, sizeof(root)) < 0) {
                snprintf(root, sizeof(root), "%s", real_op); /* an operator on its own */
        }
        if (!path_within(real_op, root)) {
                r = format_error(err, err_size, -EINVAL, "%s is not inside the repository %s",
                                 real_op, root);
                goto out;
        }
        l->op_dir = strdup(real_op);
        l->repo_root = strdup(root);
        l->op_relpath = strdup(
            strcmp(root, real_op) == 0 ? "" : real_op + strlen(root) + (strcmp(root, "/") != 0));
        if (!l->op_dir || !l->repo_root || !l->op_relpath) {
                r = -ENOMEM;
                goto out;
        }

        /* the sources and folders the build declares */
        if (strcmp(root, real_op) != 0) {
                r = read_cmake(root, real_op, &cm, &has_cmake);
                if (r < 0) {
                        r = format_error(err, err_size, r, "%s: reading its CMake: %s", real_op,
                                         r == -E2BIG ? "more than the limit of sources or folders"
                                                     : strerror(-r));
                        goto out;
                }
        }
        l->from_cmake = has_cmake && cm.host_units.n > 0;
        if (!l->from_cmake) {
                list_release(&cm.host_units);
                r = list_host_units(real_op, &cm.host_units);
                if (r == 0 && cm.host_includes.n == 0 && strcmp(root, real_op) != 0)
                        r = find_common_includes(root, 0, false, &cm.host_includes);
                if (r < 0) {
                        r = format_error(err, err_size, r, "%s/op_host: %s", real_op,
                                         r == -E2BIG ? "more C++ sources than the limit"
                                                     : strerror(-r));
                        goto out;
                }
        }
        if (cm.host_units.n == 0) {
                r = format_error(err, err_size, -ENOENT,
                                 "%s: op_host has no C++ source that defines the operator (aclnn "
                                 "and opdev wrappers are left out)",
                                 real_op);
                goto out;
        }

        /* the files those sources read, and the tiling data the kernel sees */
        r = host_search_dirs(real_op, &cm.host_includes, &host_dirs);
        if (r == 0 && format_path(path, sizeof(path), "%s/op_kernel", real_op) == 0)
                r = list_add(&kernel_dirs, path);
        if (r == 0)
                r = list_add(&kernel_dirs, real_op);
        for (size_t i = 0; r == 0 && i < cm.kernel_includes.n; i++)
                r = list_add(&kernel_dirs, cm.kernel_includes.items[i]);
        for (size_t i = 0; r == 0 && i < host_dirs.n; i++)
                r = list_add(&kernel_dirs, host_dirs.items[i]);
        s.root = root;
        s.op_dir = real_op;
        for (size_t i = 0; r == 0 && i < cm.host_units.n; i++)
                r = scan_file(&s, cm.host_units.items[i], (const char *const *)host_dirs.items,
                              host_dirs.n);
        if (r == 0 && format_path(path, sizeof(path), "%s/op_kernel", real_op) == 0)
                r = scan_kernel_dir(&s, path, (const char *const *)kernel_dirs.items, kernel_dirs.n,
                                    0);
        if (r < 0) {
                r = format_error(err, err_size, r, "%s: following its #include lines: %s", real_op,
                                 r == -E2BIG ? "more files than the limit" : strerror(-r));
                goto out;
        }
        /* op_host's headers named for tiling, as before */
        {
                struct list tiling = { .max = NPU_LAYOUT_MAX_UNITS };
                DIR *d;
                struct dirent *e;
                struct list names = { .max = 256 };
                if (format_path(path, sizeof(path), "%s/op_host", real_op) == 0 &&
                    (d = opendir(path))) {
                        while (r == 0 && (e = readdir(d)))
                                if (e->d_name[0] != '.' && ends_with(e->d_name, ".h") &&
                                    strstr(e->d_name, "tiling"))
                                        r = list_add(&names, e->d_name);
                        closedir(d);
                }
                list_sort(&names);
                for (size_t i = 0; r == 0 && i < names.n; i++)
                        if (format_path(path, sizeof(path), "%s/op_host/%s", real_op,
                                        names.items[i]) == 0)
                                r = list_add(&tiling, path);
                /* then every other header the build reads that defines tiling data */
                for (size_t i = 0; r == 0 && i < s.tiling.n; i++)
                        r = list_add(&tiling, s.tiling.items[i]);
                list_release(&names);
                list_take(&tiling, &l->tiling_headers, &l->n_tiling_headers);
                list_release(&tiling);
                if (r < 0)
                        goto out;
        }
        list_take(&cm.host_units, &l->host_units, &l->n_host_units);
        list_take(&cm.host_includes, &l->host_includes, &l->n_host_includes);
        list_take(&cm.kernel_includes, &l->kernel_includes, &l->n_kernel_includes);
        list_take(&cm.kernel_defines, &l->kernel_defines, &l->n_kernel_defines);
        list_sort(&s.shared);
        list_take(&s.shared, &l->shared_files, &l->n_shared_files);
        {
                struct list local = { .max = MAX_LOCAL_HEADERS };
                r = find_local_headers(&s, &kernel_dirs, &local);
                list_take(&local, &l->kernel_headers, &l->n_kernel_headers);
                if (r < 0) {
                        r = format_error(err, err_size, r,
                                         "%s: following its kernel's #include lines: %s", real_op,
                                         strerror(-r));
                        goto out;
                }
        }
out:
        list_release(&host_dirs);
        list_release(&kernel_dirs);
        list_release(&s.seen);
        list_release(&s.shared);
        list_release(&s.tiling);
        cmake_result_release(&cm);
        if (r < 0) {
                npu_op_layout_free(l);
                return r;
        }
        *ret = l;
        return 0;
}

/* path with the prefix from replaced by to, when it lies under from. */
static char *rebased(const char *path, const char *from, const char *to)
{
        char *out = NULL;

        if (!path_within(path, from))
                return strdup(path);
        if (asprintf(&out, "%s%s", to, path + strlen(from) + (strcmp(from, "/") == 0 ? -1 : 0)) < 0)
                return NULL;
        return out;
}

static int rebase_list(char *const *in, size_t n, const char *from, const char *to, char ***ret)
{
        char **out = n ? calloc(n, sizeof(*out)) : NULL;

        if (n && !out)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (!(out[i] = rebased(in[i], from, to))) {
                        for (size_t j = 0; j < i; j++)
                                free(out[j]);
                        free(out);
                        return -ENOMEM;
                }
        *ret = out;
        return 0;
}

bool npu_op_layout_uses_repo(const struct npu_op_layout *l)
{
        return l->n_shared_files > 0 || l->n_host_includes > 0 || l->n_kernel_includes > 0;
}

int npu_op_layout_rebase(const struct npu_op_layout *l, const char *new_root,
                         struct npu_op_layout **ret)
{
        struct npu_op_layout *c = calloc(1, sizeof(*c));
        bool repo = npu_op_layout_uses_repo(l);
        /* an operator that reads nothing outside its folder travels alone */
        const char *from = repo ? l->repo_root : l->op_dir, *relpath = repo ? l->op_relpath : "";
        int r = 0;

        if (!c)
                return -ENOMEM;
        c->from_cmake = l->from_cmake;
        c->repo_root = strdup(new_root);
        c->op_relpath = strdup(relpath);
        if (!c->repo_root || !c->op_relpath ||
            asprintf(&c->op_dir, "%s%s%s", new_root, relpath[0] ? "/" : "", relpath) < 0) {
                c->op_dir = NULL;
                r = -ENOMEM;
        }
#define REBASE(field)                                                               \
        if (r == 0) {                                                               \
                r = rebase_list(l->field, l->n_##field, from, new_root, &c->field); \
                c->n_##field = r == 0 ? l->n_##field : 0;                           \
        }
        REBASE(host_units)
        REBASE(host_includes)
        REBASE(kernel_includes)
        REBASE(tiling_headers)
        /* definitions and repository-relative names carry over unchanged */
        REBASE(kernel_defines)
        REBASE(shared_files)
        REBASE(kernel_headers)
#undef REBASE
        if (r < 0) {
                npu_op_layout_free(c);
                return r;
        }
        *ret = c;
        return 0;
}
