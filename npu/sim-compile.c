/* SPDX-License-Identifier: MIT */
/*
 * Building an operator for one simulator run (npu/sim-run.c): the
 * preludes' precompiled headers, once per cache; every op_host unit and a
 * generated glue unit that includes the kernel, compiled against the
 * clean-room AscendC headers or served from the object cache by content;
 * then the link with the simulator runtime.  Each compile and the link is
 * a child process on the runner, throttled and niced.
 */
#include "sim-internal.h"

#include "common/common.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS         (4 * NPU_MAX_TENSORS + MAX_HOST_SOURCES + 32)
#define ERROR_LINES_KEPT 20
#define OBJECT_MAX_BYTES (512u << 20) /* a compiled unit, as read back from a sandbox */

/* Forced first into every op_host unit, and into every kernel unit;
 * each precompiled once per cache (STEP_PRECOMPILE). */
#define HOST_PRELUDE   "ascendsim/host_prelude.h"
#define KERNEL_PRELUDE "ascendsim/kernel_std.h"

/* What CANN's CPU debug build defines: kernels leave their <<<>>> launch stubs out. */
static const char *const kernel_defines[] = { "-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1" };

/* ------------------------------------------------------------ helpers */

static int write_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        int r = 0;

        if (!f)
                return -errno;
        if (fputs(text, f) < 0)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        return r;
}

/* Upper-cases a tensor name for DTYPE_<NAME>. */
static void upper(char *dst, size_t size, const char *src)
{
        size_t i = 0;

        for (; src[i] && i + 1 < size; i++)
                dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
        dst[i] = '\0';
}

/*
 * The first compiler errors, trimmed: the first "file:line:col: error:"
 * line names the place, and up to ERROR_LINES_KEPT lines from there on are
 * kept as the message.  NULL when out of memory.
 */
static json_t *compile_error_from(const char *stderr_text, const char *work_dir)
{
        const char *first = NULL, *p = stderr_text;
        char file[PATH_MAX] = "", message[4096];
        int line = 0;
        size_t kept = 0, len = 0;

        while (p && *p) {
                const char *eol = strchr(p, '\n');
                const char *mark = strstr(p, ": error: ");
                if (mark && (!eol || mark < eol) && !first)
                        first = p;
                p = eol ? eol + 1 : NULL;
        }
        if (first) {
                int col = 0;
                const char *colon = strchr(first, ':');
                if (colon && (size_t)(colon - first) < sizeof(file)) {
                        memcpy(file, first, (size_t)(colon - first));
                        file[colon - first] = '\0';
                        sscanf(colon + 1, "%d:%d", &line, &col);
                }
        }
        message[0] = '\0';
        for (p = first ? first : stderr_text; p && *p && kept < ERROR_LINES_KEPT; kept++) {
                const char *eol = strchr(p, '\n');
                size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);
                if (len + n >= sizeof(message))
                        break;
                memcpy(message + len, p, n);
                len += n;
                message[len] = '\0';
                p = eol ? eol + 1 : NULL;
        }
        /* the glue unit is ours; point at the user's kernel instead where we can */
        if (strstr(file, work_dir) == file)
                snprintf(file, sizeof(file), "(generated glue)");
        return json_pack("{s:s, s:s, s:s?, s:i}", "kind", "compile_error", "message",
                         message[0] ? message : "the compiler failed without a message", "file",
                         file[0] ? file : NULL, "line", line);
}

/* ------------------------------------------------------------ compiles */

/* The compiler and the flags every unit gets; part of a candidate's identity. */
const char *const npu_sim_kernel_flag = "-fsanitize-coverage=trace-pc";

const char *const npu_sim_compile_flags[NPU_SIM_COMPILE_FLAGS] = {
        "g++",   "-std=gnu++17", "-O2", "-g0", "-ffp-contract=off", "-fno-strict-aliasing",
        "-pipe", "-w",
};

/*
 * op_host units: unoptimised, since the simulator measures the kernel and
 * not the tiling function's CPU time, and a Stage I candidate is one host
 * unit compile (about 1.3 s at -O2 against 0.3 s this way, with the
 * prelude precompiled).
 */
const char *const npu_sim_host_compile_flags[NPU_SIM_COMPILE_FLAGS] = {
        "g++",   "-std=gnu++17", "-O0", "-g0", "-ffp-contract=off", "-fno-strict-aliasing",
        "-pipe", "-w",
};

/* Storage for the arguments of one compile; argv points into it. */
struct compile_args {
        char prefix_map[2][PATH_MAX + 32];
        char pch_include[PATH_MAX + 2];
        char includes[4 + 2 * NPU_LAYOUT_MAX_DIRS][PATH_MAX + 2];
        char defines[2 * NPU_MAX_TENSORS][192];
        char forced[NPU_LAYOUT_MAX_UNITS][PATH_MAX];
};

/*
 * What every unit is compiled with: the simulator's headers first, then
 * the operator's folders, then the folders its repository's build adds
 * (the kernel's own compile options, then the host's, which the tiling
 * headers forced into the kernel need), and the per-variant macros a
 * real build defines: DTYPE_<NAME> is the C++ type and ORIG_DTYPE_<NAME>
 * the ge::DataType value, an integer that works in #if against the DT_*
 * macros of the kernel prelude.
 */
static void add_common_compile_args(struct npu_sim_run *e, struct compile_args *a,
                                    const char *const *flags, bool kernel, const char **argv,
                                    size_t *n)
{
        const struct npu_manifest *m = e->manifest;
        const struct npu_op_layout *l = e->layout;
        size_t d = 0, inc = 0;

        snprintf(a->includes[inc++], PATH_MAX, "-I%s", e->paths->include_dir);
        snprintf(a->includes[inc++], PATH_MAX, "-I%s/op_host", m->dir);
        snprintf(a->includes[inc++], PATH_MAX, "-I%s/op_kernel", m->dir);
        snprintf(a->includes[inc++], PATH_MAX, "-I%s", m->dir);
        for (size_t i = 0; kernel && i < l->n_kernel_includes; i++)
                snprintf(a->includes[inc++], PATH_MAX + 2, "-I%s", l->kernel_includes[i]);
        for (size_t i = 0; i < l->n_host_includes; i++)
                snprintf(a->includes[inc++], PATH_MAX + 2, "-I%s", l->host_includes[i]);
        for (size_t i = 0; i < NPU_SIM_COMPILE_FLAGS; i++)
                argv[(*n)++] = flags[i];
        /* file names in diagnostics and the runtime's errors are relative to
         * the operator (and to the repository for its shared files), which
         * also keeps objects independent of where a candidate was materialised */
        if (npu_op_layout_uses_repo(l)) {
                /* GCC tries the last map given first: the operator's wins inside it */
                snprintf(a->prefix_map[1], sizeof(a->prefix_map[1]),
                         "-fmacro-prefix-map=%s/=", l->repo_root);
                argv[(*n)++] = a->prefix_map[1];
        }
        snprintf(a->prefix_map[0], sizeof(a->prefix_map[0]), "-fmacro-prefix-map=%s/=", m->dir);
        argv[(*n)++] = a->prefix_map[0];
        if (a->pch_include[0])
                argv[(*n)++] = a->pch_include;
        for (size_t i = 0; i < inc; i++)
                argv[(*n)++] = a->includes[i];
        for (size_t i = 0; kernel && i < l->n_kernel_defines; i++)
                argv[(*n)++] = l->kernel_defines[i];
        for (size_t i = 0; i < m->n_inputs + m->n_outputs; i++) {
                const struct npu_tensor *t =
                    i < m->n_inputs ? &m->inputs[i] : &m->outputs[i - m->n_inputs];
                char name[128];
                if (t->ref)
                        continue; /* its input's */
                upper(name, sizeof(name), t->name);
                snprintf(a->defines[d], sizeof(a->defines[d]), "-DDTYPE_%s=%s", name,
                         npu_dtype_kernel_type(t->dtype));
                argv[(*n)++] = a->defines[d++];
                snprintf(a->defines[d], sizeof(a->defines[d]), "-DORIG_DTYPE_%s=%d", name,
                         npu_dtype_ge_value(t->dtype));
                argv[(*n)++] = a->defines[d++];
        }
}

static void sort_names(char **list, size_t n)
{
        /* readdir order is arbitrary; the build must not be */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(list[j - 1], list[j]) > 0; j--) {
                        char *t = list[j];
                        list[j] = list[j - 1];
                        list[j - 1] = t;
                }
}

/* ------------------------------------------------------------ object cache */

/* Hashes a file's name (relative to the operator) and content into s. */
static void hash_operator_file(struct sha256 *s, const char *dir, const char *rel)
{
        char path[PATH_MAX];
        uint8_t buf[65536];
        size_t n;
        FILE *f;

        if (format_path(path, sizeof(path), "%s/%s", dir, rel) < 0)
                return;
        f = fopen(path, "re");
        sha256_update(s, rel, strlen(rel) + 1);
        if (!f)
                return;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                sha256_update(s, buf, n);
        fclose(f);
}

/*
 * Hashes every file of one operator subdirectory whose name ends in one of
 * suffixes; with depth >= 0, its subfolders' too (kernels keep headers in
 * them).  A folder's own files come first, as they always did.
 */
static void hash_operator_tree(struct sha256 *s, const char *dir, const char *sub,
                               const char *const *suffixes, int depth)
{
        char path[PATH_MAX], *names[256], *subdirs[64], rel[PATH_MAX];
        struct dirent *entry;
        size_t n = 0, n_subdirs = 0;
        DIR *d;

        if (format_path(path, sizeof(path), "%s/%s", dir, sub) < 0 || !(d = opendir(path)))
                return;
        while ((entry = readdir(d)) && n < ARRAY_SIZE(names)) {
                size_t len = strlen(entry->d_name);
                if (entry->d_name[0] == '.')
                        continue;
                if (entry->d_type == DT_DIR) {
                        if (depth >= 0 && depth < 6 && n_subdirs < ARRAY_SIZE(subdirs) &&
                            (subdirs[n_subdirs] = strdup(entry->d_name)))
                                n_subdirs++;
                        continue;
                }
                for (const char *const *x = suffixes; *x; x++) {
                        size_t xl = strlen(*x);
                        if (len > xl && strcmp(entry->d_name + len - xl, *x) == 0) {
                                names[n] = strdup(entry->d_name);
                                n += names[n] != NULL;
                                break;
                        }
                }
        }
        closedir(d);
        sort_names(names, n);
        for (size_t i = 0; i < n; i++) {
                if (format_path(rel, sizeof(rel), "%s/%s", sub, names[i]) == 0)
                        hash_operator_file(s, dir, rel);
                free(names[i]);
        }
        sort_names(subdirs, n_subdirs);
        for (size_t i = 0; i < n_subdirs; i++) {
                if (format_path(rel, sizeof(rel), "%s/%s", sub, subdirs[i]) == 0) {
                        sha256_update(s, rel, strlen(rel) + 1);
                        hash_operator_tree(s, dir, rel, suffixes, depth + 1);
                }
                free(subdirs[i]);
        }
}

static void hash_operator_dir(struct sha256 *s, const char *dir, const char *sub,
                              const char *const *suffixes)
{
        hash_operator_tree(s, dir, sub, suffixes, -1);
}

static bool path_inside(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* Hashes one argument with the given place taken out of it, if it holds it. */
static bool hash_arg_without(struct sha256 *s, const char *arg, const char *place, const char *tag)
{
        const char *p = strstr(arg, place);
        size_t len = strlen(place);

        if (!p)
                return false;
        sha256_update(s, arg, (size_t)(p - arg));
        sha256_update(s, tag, strlen(tag));
        sha256_update(s, p + len, strlen(p + len) + 1);
        return true;
}

/* A precompiled prelude compiles as its header does: no part of a unit's key. */
static bool is_pch_include(const struct npu_sim_run *e, const char *arg)
{
        return e->pch_dir[0] && strncmp(arg, "-I", 2) == 0 && strcmp(arg + 2, e->pch_dir) == 0;
}

/*
 * The cache key of one unit: the salt, its arguments with the operator's,
 * the repository's and the work directory's paths taken out, and the
 * files it can see: the operator's, and the repository's that its build
 * reads.  slot MAX_HOST_SOURCES is the kernel unit.
 */
static void unit_key(struct npu_sim_run *e, const char *const *argv, size_t slot,
                     char hex[SHA256_HEX_SIZE])
{
        static const char *const headers[] = { ".h", ".hpp", ".hh", ".inc", NULL };
        static const char *const everything[] = { "", NULL };
        const struct npu_op_layout *l = e->layout;
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;

        sha256_init(&s);
        sha256_update(&s, e->options.cache_salt ? e->options.cache_salt : "",
                      1 + (e->options.cache_salt ? strlen(e->options.cache_salt) : 0));
        for (const char *const *a = argv; *a; a++)
                if (!is_pch_include(e, *a) && !hash_arg_without(&s, *a, e->manifest->dir, "@OP@") &&
                    !hash_arg_without(&s, *a, e->work_dir, "@WORK@") &&
                    !hash_arg_without(&s, *a, l->repo_root, "@REPO@"))
                        sha256_update(&s, *a, strlen(*a) + 1);
        hash_operator_dir(&s, e->manifest->dir, "op_host", headers);
        if (slot == MAX_HOST_SOURCES) {
                sha256_update(&s, e->manifest->kernel, strlen(e->manifest->kernel) + 1);
                sha256_update(&s, e->manifest->kernel_source,
                              strlen(e->manifest->kernel_source) + 1);
                hash_operator_tree(&s, e->manifest->dir, "op_kernel", everything, 0);
        } else if (path_inside(l->host_units[slot], e->manifest->dir)) {
                hash_operator_file(&s, e->manifest->dir,
                                   l->host_units[slot] + strlen(e->manifest->dir) + 1);
        }
        /* the repository's files the build reads, a host unit outside the operator among them */
        for (size_t i = 0; i < l->n_shared_files; i++) {
                sha256_update(&s, "@REPO@/", 7);
                hash_operator_file(&s, l->repo_root, l->shared_files[i]);
        }
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
}

/*
 * Writes data to to (a trusted place, such as the cache) whole or not at
 * all: a temporary file, then a rename.
 */
static int write_atomically(const char *to, const void *data, size_t len)
{
        char tmp[PATH_MAX];
        static unsigned counter;
        int r;

        if (format_path(tmp, sizeof(tmp), "%s.%d.%u.tmp", to, (int)getpid(), counter++) < 0)
                return -ENAMETOOLONG;
        r = write_file_exclusive(tmp, data, len, 0644);
        if (r == 0 && rename(tmp, to) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}

/*
 * Copies a file a sandboxed child wrote into a trusted place: read
 * without following any link, and only when it is a regular file.
 */
static int copy_from_sandbox(const char *from, const char *to)
{
        char *data = NULL;
        size_t len;
        int r = read_untrusted_file(from, OBJECT_MAX_BYTES, &data, &len);

        if (r == 0)
                r = write_atomically(to, data, len);
        free(data);
        return r;
}

static void sha256_of(const void *data, size_t len, char hex[SHA256_HEX_SIZE])
{
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;

        sha256_init(&s);
        sha256_update(&s, data, len);
        sha256_final(&s, digest);
        sha256_hex(digest, hex);
}

/*
 * Serves a unit from the cache into object; true on a hit.  The object is
 * copied, never linked, into the work directory, which sandboxed children
 * write: what they do to their copy never reaches the cache.  Its content
 * must still hash to what was recorded beside it when it was stored, or
 * it is dropped as a miss.
 */
static bool cache_fetch(struct npu_sim_run *e, size_t slot, const char *object)
{
        char cached[PATH_MAX], sidecar[PATH_MAX], hex[SHA256_HEX_SIZE], *data = NULL,
                                                                        *recorded = NULL;
        size_t len, recorded_len;
        bool hit = false;

        if (!e->options.cache_dir ||
            format_path(cached, sizeof(cached), "%s/%s.o", e->options.cache_dir,
                        e->unit_keys[slot]) < 0 ||
            format_path(sidecar, sizeof(sidecar), "%s.sha256", cached) < 0)
                return false;
        if (read_untrusted_file(cached, OBJECT_MAX_BYTES, &data, &len) < 0 ||
            read_untrusted_file(sidecar, 128, &recorded, &recorded_len) < 0)
                goto out;
        sha256_of(data, len, hex);
        if (recorded_len < SHA256_HEX_SIZE - 1 ||
            strncmp(recorded, hex, SHA256_HEX_SIZE - 1) != 0) {
                /* changed after it was stored: never served again */
                unlink(cached);
                unlink(sidecar);
                goto out;
        }
        if (write_file_exclusive(object, data, len, 0644) == 0) {
                /* the mtime says "last used": 'ascendopt gc' evicts by it */
                utimensat(AT_FDCWD, cached, NULL, 0);
                e->cache_hits++;
                hit = true;
        }
out:
        free(data);
        free(recorded);
        return hit;
}

/* Keeps a freshly compiled unit for later candidates, with its content's hash beside it. */
static void cache_store(struct npu_sim_run *e, size_t slot)
{
        char cached[PATH_MAX], sidecar[PATH_MAX], object[PATH_MAX], hex[SHA256_HEX_SIZE + 1];
        char *data = NULL;
        size_t len;
        int r;

        if (!e->options.cache_dir || !e->unit_keys[slot][0] || mkdir_p(e->options.cache_dir) < 0)
                return;
        if (slot == MAX_HOST_SOURCES)
                r = format_path(object, sizeof(object), "%s/kernel.o", e->work_dir);
        else
                r = format_path(object, sizeof(object), "%s/host_%zu.o", e->work_dir, slot);
        if (r < 0 ||
            format_path(cached, sizeof(cached), "%s/%s.o", e->options.cache_dir,
                        e->unit_keys[slot]) < 0 ||
            format_path(sidecar, sizeof(sidecar), "%s.sha256", cached) < 0 ||
            access(cached, F_OK) == 0 ||
            read_untrusted_file(object, OBJECT_MAX_BYTES, &data, &len) < 0) {
                free(data);
                return;
        }
        sha256_of(data, len, hex);
        strcat(hex, "\n");
        /* the hash first: an object without one is never served */
        if (write_atomically(sidecar, hex, strlen(hex)) == 0)
                write_atomically(cached, data, len);
        free(data);
}

static int start_compile_host(struct npu_sim_run *e, size_t index)
{
        struct compile_args *args = calloc(1, sizeof(*args));
        char source[PATH_MAX], object[PATH_MAX];
        const char *argv[MAX_ARGS];
        size_t n = 0;
        int r;

        if (!args)
                return -ENOMEM;
        /* the precompiled prelude is found first, ahead of the header itself
         * (an instrumented unit's flags differ from those it was built with) */
        if (e->pch_dir[0] && !e->options.host_coverage)
                snprintf(args->pch_include, sizeof(args->pch_include), "-I%s", e->pch_dir);
        add_common_compile_args(e, args, npu_sim_host_compile_flags, false, argv, &n);
        argv[n++] = "-include";
        argv[n++] = HOST_PRELUDE;
        if (e->options.host_coverage)
                argv[n++] = "--coverage";
        if ((r = format_path(source, sizeof(source), "%s", e->layout->host_units[index])) < 0 ||
            (r = format_path(object, sizeof(object), "%s/host_%zu.o", e->work_dir, index)) < 0)
                goto out;
        argv[n++] = "-c";
        argv[n++] = source;
        argv[n++] = "-o";
        argv[n++] = object;
        argv[n] = NULL;
        unit_key(e, argv, index, e->unit_keys[index]);
        /* an instrumented object names where its counts go: never shared */
        if (!e->options.host_coverage && cache_fetch(e, index, object))
                r = 1;
        else
                r = sim_run_start_child(e, argv, e->options.sandbox, index);
out:
        free(args);
        return r;
}

/*
 * A kernel entry named like a function of the C library (real operators
 * have entries called cos, sin, gcd...) would be linked in place of that
 * function, and clash with its declaration: the glue renames the entry's
 * symbol, with the kernel's headers and the C++ library already read so
 * that only the operator's own text sees the macro.  Whether a name is
 * taken is asked of the C library this program runs with.
 */
static void entry_rename(const char *entry, char *buf, size_t size)
{
        char name[128];
        size_t n = 0;

        buf[0] = '\0';
        while (entry[n] && entry[n] != '<' && entry[n] != ' ' && n + 1 < sizeof(name)) {
                name[n] = entry[n];
                n++;
        }
        name[n] = '\0';
        if (n && dlsym(RTLD_DEFAULT, name))
                snprintf(buf, size, "#define %s ascendsim_entry_%s\n", name, name);
}

/*
 * The tiling classes a real build hands the kernel: it generates one
 * struct at global scope for each BEGIN_TILING_DATA_DEF(Name) of the
 * operator's tiling headers and nothing else of them.  The kernel unit
 * sees those classes through one using-declaration each, not through all
 * of namespace optiling, whose constants and helpers would clash with the
 * kernel's own (BLOCK_SIZE, MAX_DIM_NUM, Ceil).  Only classes declared
 * directly in namespace optiling are named: one at global scope needs
 * nothing, one in a nested namespace was never visible unqualified.
 * The scan skips comments, literals and preprocessor lines and follows
 * braces, as npu/sim/tiling-classes.awk does for npu/sim/build.sh.
 */
enum { SCOPE_OPTILING = 1, SCOPE_OTHER = 2, SCOPE_DEPTH_MAX = 64 };

static const char *skip_space(const char *p)
{
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
                p++;
        return p;
}

static size_t ident_len(const char *p)
{
        size_t n = 0;

        if (!isalpha((unsigned char)*p) && *p != '_')
                return 0;
        while (isalnum((unsigned char)p[n]) || p[n] == '_')
                n++;
        return n;
}

static void scan_tiling_classes(const char *text, FILE *f)
{
        unsigned char scope[SCOPE_DEPTH_MAX];
        size_t depth = 0;
        bool line_start = true;

        for (const char *p = text; *p;) {
                size_t n;

                if (*p == '\n') {
                        line_start = true;
                        p++;
                        continue;
                }
                if (*p == ' ' || *p == '\t' || *p == '\r') {
                        p++;
                        continue;
                }
                if (p[0] == '/' && p[1] == '/') {
                        p += strcspn(p, "\n");
                } else if (p[0] == '/' && p[1] == '*') {
                        const char *end = strstr(p + 2, "*/");
                        p = end ? end + 2 : p + strlen(p);
                } else if (*p == '"' || *p == '\'') {
                        char quote = *p++;
                        while (*p && *p != quote && *p != '\n')
                                p += p[0] == '\\' && p[1] ? 2 : 1;
                        if (*p == quote)
                                p++;
                } else if (*p == '#' && line_start) {
                        /* a directive, with its continuation lines */
                        while (*p && *p != '\n')
                                p += p[0] == '\\' && p[1] ? 2 : 1;
                } else if (*p == '{') {
                        if (depth < SCOPE_DEPTH_MAX)
                                scope[depth] = SCOPE_OTHER;
                        depth++;
                        p++;
                } else if (*p == '}') {
                        depth -= depth > 0;
                        p++;
                } else if ((n = ident_len(p)) > 0) {
                        const char *q = skip_space(p + n);
                        if (n == 9 && strncmp(p, "namespace", 9) == 0) {
                                size_t m = ident_len(q);
                                const char *r = skip_space(q + m);
                                if (*r == '{') {
                                        if (depth < SCOPE_DEPTH_MAX)
                                                scope[depth] =
                                                    m == 8 && strncmp(q, "optiling", 8) == 0
                                                        ? SCOPE_OPTILING
                                                        : SCOPE_OTHER;
                                        depth++;
                                        n = (size_t)(r + 1 - p);
                                }
                        } else if (n == 21 && strncmp(p, "BEGIN_TILING_DATA_DEF", 21) == 0 &&
                                   *q == '(') {
                                const char *name = skip_space(q + 1);
                                size_t m = ident_len(name);
                                const char *r = skip_space(name + m);
                                if (m && *r == ')' && depth == 1 && scope[0] == SCOPE_OPTILING)
                                        fprintf(f, "using optiling::%.*s;\n", (int)m, name);
                        }
                        p += n;
                } else {
                        p++;
                }
                line_start = false;
        }
}

static void write_tiling_class_uses(const struct npu_op_layout *l, FILE *f)
{
        for (size_t i = 0; i < l->n_tiling_headers; i++) {
                char *text = NULL;
                size_t len = 0;

                /* an unreadable header fails the compile that force-includes it */
                if (read_text_file(l->tiling_headers[i], 4u << 20, &text, &len) < 0)
                        continue;
                scan_tiling_classes(text, f);
                free(text);
        }
}

static int start_compile_kernel(struct npu_sim_run *e)
{
        struct compile_args *args = NULL;
        char glue[PATH_MAX], object[PATH_MAX], *text = NULL, rename[320], op_type[192];
        const char *argv[MAX_ARGS];
        size_t n = 0;
        int r;

        r = format_path(glue, sizeof(glue), "%s/glue.cpp", e->inputs_dir);
        if (r < 0)
                return r;
        entry_rename(e->manifest->kernel, rename, sizeof(rename));
        size_t text_len = 0;
        FILE *f = open_memstream(&text, &text_len);
        if (!f)
                return -ENOMEM;
        fputs("// Generated by ascendopt: the kernel translation unit and its entry.\n", f);
        write_tiling_class_uses(e->layout, f);
        fprintf(f,
                "#include \"kernel_operator.h\"\n"
                "%s"
                "#include \"%s/%s\"\n"
                "ASCENDSIM_KERNEL_ENTRY(%s);\n",
                rename, e->manifest->dir, e->manifest->kernel_source, e->manifest->kernel);
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        r = write_file_exclusive(glue, text, text_len, 0644);
        free(text);
        if (r < 0)
                return r;
        args = calloc(1, sizeof(*args));
        if (!args)
                return -ENOMEM;
        if (e->pch_dir[0])
                snprintf(args->pch_include, sizeof(args->pch_include), "-I%s", e->pch_dir);
        add_common_compile_args(e, args, npu_sim_compile_flags, true, argv, &n);
        /* the standard headers ours use, precompiled, ahead of the operator's */
        argv[n++] = "-include";
        argv[n++] = KERNEL_PRELUDE;
        /* The real build generates the tiling structs the kernel sees; we
         * force-include the operator's tiling headers and a prelude instead. */
        for (size_t i = 0; i < e->layout->n_tiling_headers; i++) {
                r = format_path(args->forced[i], PATH_MAX, "%s", e->layout->tiling_headers[i]);
                if (r < 0)
                        goto out;
                argv[n++] = "-include";
                argv[n++] = args->forced[i];
        }
        argv[n++] = "-include";
        argv[n++] = "ascendsim/kernel_prelude.h";
        for (size_t i = 0; i < ARRAY_SIZE(kernel_defines); i++)
                argv[n++] = kernel_defines[i];
        /* GET_TILING_DATA takes the class registered under the operator's own type */
        snprintf(op_type, sizeof(op_type), "-DASCENDSIM_OP_TYPE=%s", e->manifest->name);
        argv[n++] = op_type;
        /* plain C++ in the kernel costs scalar time: the runtime counts its basic blocks */
        argv[n++] = npu_sim_kernel_flag;
        r = format_path(object, sizeof(object), "%s/kernel.o", e->work_dir);
        if (r < 0)
                goto out;
        argv[n++] = "-c";
        argv[n++] = glue;
        argv[n++] = "-o";
        argv[n++] = object;
        argv[n] = NULL;
        unit_key(e, argv, MAX_HOST_SOURCES, e->unit_keys[MAX_HOST_SOURCES]);
        if (cache_fetch(e, MAX_HOST_SOURCES, object))
                r = 1;
        else
                r = sim_run_start_child(e, argv, e->options.sandbox, MAX_HOST_SOURCES);
out:
        free(args);
        return r;
}

/*
 * Whether the gold linker is on PATH (binutils ships it on Debian): it
 * links an operator in about a third of the time ld.bfd takes, which is
 * a quarter of a Stage I evaluation.  Asked once per process.
 */
static bool gold_available(void)
{
        static int known = -1;
        const char *path = getenv("PATH");
        char *copy, *save = NULL;

        if (known >= 0)
                return known;
        known = 0;
        copy = strdup(path && *path ? path : "/usr/bin:/bin");
        for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !known;
             dir = strtok_r(NULL, ":", &save)) {
                char candidate[PATH_MAX];
                known = format_path(candidate, sizeof(candidate), "%s/ld.gold", dir) == 0 &&
                        access(candidate, X_OK) == 0;
        }
        free(copy);
        return known;
}

int sim_link_start(struct npu_sim_run *e)
{
        char objects[MAX_HOST_SOURCES + 1][PATH_MAX], program[PATH_MAX], libdir[PATH_MAX];
        const char *argv[MAX_ARGS];
        size_t n = 0;
        int r;

        argv[n++] = "g++";
        if (gold_available())
                argv[n++] = "-fuse-ld=gold";
        for (size_t i = 0; i < e->n_host_sources; i++) {
                r = format_path(objects[i], PATH_MAX, "%s/host_%zu.o", e->work_dir, i);
                if (r < 0)
                        return r;
                argv[n++] = objects[i];
        }
        if (e->options.host_coverage) {
                argv[n++] = "--coverage"; /* the host alone, and gcov's runtime */
        } else if (!e->options.tiling_only) {
                r = format_path(objects[e->n_host_sources], PATH_MAX, "%s/kernel.o", e->work_dir);
                if (r < 0)
                        return r;
                argv[n++] = objects[e->n_host_sources];
        }
        snprintf(libdir, sizeof(libdir), "-L%s", e->paths->root);
        argv[n++] = libdir;
        argv[n++] = "-lascendsim";
        /* a real build links the OpDef, tiling and proto units into separate
         * libraries, so a non-inline function defined in a header they share
         * is no conflict there; here they are one program */
        argv[n++] = "-Wl,--allow-multiple-definition";
        argv[n++] = "-ljansson";
        argv[n++] = "-lm";
        r = format_path(program, sizeof(program), "%s/operator", e->work_dir);
        if (r < 0)
                return r;
        argv[n++] = "-o";
        argv[n++] = program;
        argv[n] = NULL;
        return sim_run_start_child(e, argv, e->options.sandbox, 0);
}

void sim_compile_done(struct npu_sim_run *e, const struct child_result *r, size_t slot)
{
        char what[128];

        if (!r->timed_out && r->exit_code == 0 && slot < ARRAY_SIZE(e->children) &&
            !e->options.host_coverage)
                cache_store(e, slot);
        e->compile_s = r->wall_s > e->compile_s ? r->wall_s : e->compile_s;
        if ((r->timed_out || r->exit_code != 0) && !e->compile_failed) {
                e->compile_failed = true;
                e->compile_error = compile_error_from(r->err.data ? r->err.data : "", e->work_dir);
                if (e->compile_error && (r->timed_out || r->signal)) {
                        char message[256];
                        snprintf(message, sizeof(message), "the compiler %s",
                                 child_result_describe(r, what, sizeof(what)));
                        json_object_set_new(e->compile_error, "message", json_string(message));
                }
        }
        if (--e->compiles_pending > 0)
                return;
        if (e->compile_failed) {
                json_t *error = e->compile_error;
                e->compile_error = NULL;
                sim_run_fail(e, "compile_error", error);
                return;
        }
        sim_run_advance(e);
}

/* The link's end: a failure is a compile_error too. */
void sim_link_done(struct npu_sim_run *e, const struct child_result *r)
{
        char what[128];

        e->compile_s += r->wall_s;
        if (r->timed_out || r->exit_code != 0) {
                json_t *error = compile_error_from(r->err.data ? r->err.data : "", e->work_dir);
                if (error && (r->timed_out || r->signal))
                        json_object_set_new(
                            error, "message",
                            json_string(child_result_describe(r, what, sizeof(what))));
                sim_run_fail(e, "compile_error", error);
                return;
        }
        sim_run_advance(e);
}

/*
 * Compiles every op_host unit and the kernel unit, each served from the
 * cache where it can be; the link follows when they are all there.  An
 * error once children run is reported through the callback (cancelled).
 */
int sim_compiles_start(struct npu_sim_run *e)
{
        int r = 0;

        e->step = STEP_COMPILE;
        for (size_t i = 0; i < e->n_host_sources && r >= 0; i++) {
                r = start_compile_host(e, i);
                e->compiles_pending += r == 0; /* 1: served from the cache */
        }
        if (r >= 0 && !e->options.host_coverage && !e->options.tiling_only) {
                r = start_compile_kernel(e);
                e->compiles_pending += r == 0;
        }
        if (r > 0)
                r = 0;
        if (r < 0 && e->compiles_pending) {
                /* children already run: they report back, and the evaluation
                 * ends through the callback as infra_error, saying why */
                e->cancel_errno = -r;
                npu_sim_run_cancel(e);
                return 0;
        }
        if (r < 0)
                return r;
        /* every unit came from the cache: go straight to the link */
        if (e->compiles_pending == 0) {
                e->step = STEP_LINK;
                r = sim_link_start(e);
        }
        return r;
}

/*
 * The preludes precompiled once per cache, one per kind of unit: each is
 * its unit's first forced include, compiled with exactly its unit's flags.
 * Both live in one directory of the object cache, keyed by the evaluator's
 * context (compiler, flags, the simulator's headers):
 * pch-KEY/ascendsim/NAME.gch, found ahead of the headers themselves.  The
 * first evaluation asked to (build_prelude) builds both at once (about 2 s)
 * in its work directory and installs the directory with a rename, so that
 * concurrent builders agree; a build the compiler refuses leaves
 * pch-KEY.failed with its message, and units compile from the headers.
 */
static const struct prelude {
        const char *header;
        bool kernel;
        size_t slot; /* the child slot its build takes */
} preludes[] = {
        { HOST_PRELUDE, false, 0 },
        { KERNEL_PRELUDE, true, MAX_HOST_SOURCES },
};

/* The command that precompiles p into out; include and header hold its strings. */
static int prelude_argv(struct npu_sim_run *e, const struct prelude *p, const char *out,
                        char include[PATH_MAX + 2], char header[PATH_MAX], const char **argv)
{
        const char *const *flags = p->kernel ? npu_sim_compile_flags : npu_sim_host_compile_flags;
        size_t n = 0;

        if (format_path(header, PATH_MAX, "%s/%s", e->paths->include_dir, p->header) < 0)
                return -ENAMETOOLONG;
        for (size_t i = 0; i < NPU_SIM_COMPILE_FLAGS; i++)
                argv[n++] = flags[i];
        snprintf(include, PATH_MAX + 2, "-I%s", e->paths->include_dir);
        argv[n++] = include;
        if (p->kernel) {
                for (size_t i = 0; i < ARRAY_SIZE(kernel_defines); i++)
                        argv[n++] = kernel_defines[i];
                argv[n++] = npu_sim_kernel_flag;
        }
        argv[n++] = "-x";
        argv[n++] = "c++-header";
        argv[n++] = header;
        argv[n++] = "-o";
        argv[n++] = out;
        argv[n] = NULL;
        return 0;
}

/* Returns 1 when a build started (STEP_PRECOMPILE), else 0 with pch_dir set when there is one. */
int sim_precompile_start(struct npu_sim_run *e)
{
        char key[SHA256_HEX_SIZE], path[PATH_MAX], failed[PATH_MAX];
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;

        if (!e->options.cache_dir)
                return 0;
        sha256_init(&s);
        sha256_update(&s, "prelude-pchs", 13);
        /* the salt (the evaluator's context) covers the compiler, its flags and the headers */
        sha256_update(&s, e->options.cache_salt ? e->options.cache_salt : "",
                      1 + (e->options.cache_salt ? strlen(e->options.cache_salt) : 0));
        sha256_final(&s, digest);
        sha256_hex(digest, key);
        if (format_path(e->pch_target, sizeof(e->pch_target), "%s/pch-%.24s", e->options.cache_dir,
                        key) < 0 ||
            format_path(failed, sizeof(failed), "%s.failed", e->pch_target) < 0)
                return 0;
        if (access(e->pch_target, F_OK) == 0) {
                /* the mtimes say "last used", as for objects: 'ascendopt gc' evicts by them */
                for (size_t i = 0; i < ARRAY_SIZE(preludes); i++)
                        if (format_path(path, sizeof(path), "%s/%s.gch", e->pch_target,
                                        preludes[i].header) == 0)
                                utimensat(AT_FDCWD, path, NULL, 0);
                snprintf(e->pch_dir, sizeof(e->pch_dir), "%s", e->pch_target);
                return 0;
        }
        /* an instrumented host build has flags of its own: it never builds them */
        if (!e->options.build_prelude || e->options.host_coverage || access(failed, F_OK) == 0 ||
            format_path(path, sizeof(path), "%s/pch/ascendsim", e->work_dir) < 0 ||
            mkdir_p(path) < 0)
                return 0;
        e->step = STEP_PRECOMPILE;
        e->pch_failed = false;
        e->compiles_pending = 0;
        for (size_t i = 0; i < ARRAY_SIZE(preludes); i++) {
                char out[PATH_MAX], include[PATH_MAX + 2], header[PATH_MAX];
                const char *argv[NPU_SIM_COMPILE_FLAGS + 16];

                if (format_path(out, sizeof(out), "%s/pch/%s.gch", e->work_dir,
                                preludes[i].header) < 0 ||
                    prelude_argv(e, &preludes[i], out, include, header, argv) < 0 ||
                    sim_run_start_child(e, argv, e->options.sandbox, preludes[i].slot) < 0)
                        break;
                e->compiles_pending++;
        }
        if (e->compiles_pending == ARRAY_SIZE(preludes))
                return 1;
        /* a build that cannot start: compile from the headers once those started are done */
        e->pch_failed = true;
        if (e->compiles_pending > 0)
                return 1;
        e->step = STEP_COMPILE;
        return 0;
}

/* Installs the preludes this evaluation built, both or neither. */
static void install_preludes(struct npu_sim_run *e)
{
        char staging[PATH_MAX], built[PATH_MAX], staged[PATH_MAX];
        static unsigned counter;

        if (format_path(staging, sizeof(staging), "%s.%d.%u.tmp", e->pch_target, (int)getpid(),
                        counter++) < 0 ||
            format_path(staged, sizeof(staged), "%s/ascendsim", staging) < 0 || mkdir_p(staged) < 0)
                goto fail;
        for (size_t i = 0; i < ARRAY_SIZE(preludes); i++)
                if (format_path(built, sizeof(built), "%s/pch/%s.gch", e->work_dir,
                                preludes[i].header) < 0 ||
                    format_path(staged, sizeof(staged), "%s/%s.gch", staging, preludes[i].header) <
                        0 ||
                    copy_from_sandbox(built, staged) < 0)
                        goto fail;
        /* another evaluation may have installed it first: either copy serves */
        if (rename(staging, e->pch_target) == 0)
                return;
fail:
        rm_rf(staging);
}

void sim_precompile_done(struct npu_sim_run *e, const struct child_result *r, size_t slot)
{
        if (r->timed_out || r->exit_code != 0) {
                const char *header = slot == MAX_HOST_SOURCES ? KERNEL_PRELUDE : HOST_PRELUDE;
                char what[128], failed[PATH_MAX];

                log_warning("%s does not precompile (%s); units compile from the header: %.512s",
                            header, child_result_describe(r, what, sizeof(what)),
                            r->err.data ? r->err.data : "");
                /* the compiler refused it: no later evaluation tries again (a timeout
                 * or a signal under load may pass next time) */
                if (!r->timed_out && !r->signal &&
                    format_path(failed, sizeof(failed), "%s.failed", e->pch_target) == 0)
                        write_text(failed, r->err.data ? r->err.data : "failed\n");
                e->pch_failed = true;
        }
        if (--e->compiles_pending > 0)
                return;
        if (!e->pch_failed)
                install_preludes(e);
        if (access(e->pch_target, F_OK) == 0)
                snprintf(e->pch_dir, sizeof(e->pch_dir), "%s", e->pch_target);
        sim_run_advance(e);
}
