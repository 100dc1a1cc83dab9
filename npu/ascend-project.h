/* SPDX-License-Identifier: MIT */
/*
 * The custom-op project a candidate is built in and the command lines of
 * the toolchain steps around it (npu/ascend-project.c): build.sh, the .run
 * installer, msopgen and msprof op, and the environment the harness runs
 * in.
 * Part of npu/ascend.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_ASCEND_PROJECT_H
#define ASCENDOPT_NPU_ASCEND_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest.h"
#include "ascend-env.h"

/* ------------------------------------------------- project and commands */

/* An argv list: owned strings, NULL-terminated. */
struct ascend_argv {
        char *argv[64];
        size_t n;
};

int ascend_argv_add(struct ascend_argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ascend_argv_release(struct ascend_argv *a);
/* Borrowed view for child_spec.argv. */
const char *const *ascend_argv_view(const struct ascend_argv *a);

/*
 * The compute unit CMakePresets.json and ASCEND_COMPUTE_UNIT take, from a
 * SoC version, by family: Ascend910B4 and Ascend910B2C -> ascend910b,
 * Ascend910_9392 -> ascend910_93, Ascend310P3 -> ascend310p, Ascend910A ->
 * ascend910.  -EINVAL for a name that is not Ascend<digits>...
 */
int ascend_compute_unit(const char *soc, char *buf, size_t size);

/* Whether dir is the root of a cann-ops style repository: build.sh, CMakePresets.json, cmake/. */
bool ascend_is_cann_ops_root(const char *dir);

/*
 * How a candidate is built.  Decided by ascend_project_materialise:
 *  - ASCEND_PROJECT_OWN: the operator sits in a cann-ops style repository
 *    (an ancestor directory holds build.sh, CMakePresets.json and cmake/).
 *    The repository root's files and directories (not .git, build,
 *    build_out, output), the files of each directory on the way down to
 *    the operator (its CMakeLists.txt chain, not the other operators), and
 *    the candidate's operator directory are copied into the scratch
 *    project, and the project's own `bash build.sh -n <op dir name>`
 *    builds it.
 *  - ASCEND_PROJECT_MSOPGEN: no such repository.  An msopgen operator
 *    description (op.json) is written and `msopgen gen` makes a project
 *    skeleton in the scratch dir; ascend_project_overlay then copies the
 *    operator's op_host/ and op_kernel/ over the skeleton's, and `bash
 *    build.sh` builds it.  We never write CMake files of our own: the
 *    toolkit's templates know its build far better than we could.
 * Either way CMakePresets.json gets ASCEND_COMPUTE_UNIT and
 * ASCEND_CANN_PACKAGE_PATH set for the configured SoC and toolkit.
 */
enum ascend_project_kind {
        ASCEND_PROJECT_OWN,
        ASCEND_PROJECT_MSOPGEN,
};

struct ascend_project {
        enum ascend_project_kind kind;
        char root[4096];       /* where build.sh runs */
        char op_dir[4096];     /* the operator's directory inside root */
        char op_dir_name[256]; /* e.g. add_custom, for build.sh -n */
        char compute_unit[64];
        char soc[64];
        char toolkit_root[4096];
};

/*
 * Writes the custom-op project for manifest's operator into scratch/project
 * (scratch is created; an existing project/ is replaced).  The operator's
 * files always come from manifest->dir (the candidate).  The repository
 * around it is repo_root with the operator at op_relpath inside it; when
 * repo_root is NULL it is searched for above manifest->dir, and when
 * op_relpath is NULL manifest->dir must lie under repo_root.  No repository
 * found means ASCEND_PROJECT_MSOPGEN.  Synchronous copies of one operator
 * and the repository's build files: small.  Errors name the path.
 */
int ascend_project_materialise(const struct npu_manifest *manifest, const char *repo_root,
                               const char *op_relpath, const char *scratch, const char *soc,
                               const char *toolkit_root, struct ascend_project *ret, char *err,
                               size_t err_size);

/* After msopgen: copies op_host/ and op_kernel/ over the skeleton and sets the presets. */
int ascend_project_overlay(const struct npu_manifest *manifest, struct ascend_project *project,
                           char *err, size_t err_size);

/* `msopgen gen -i project/op.json -c ai_core-<soc> -lan cpp -out project/CustomOp`. */
int ascend_msopgen_argv(const struct ascend_project *project, const char *msopgen,
                        struct ascend_argv *ret);

/*
 * `bash build.sh -n <op dir name>` (own) or `bash build.sh` (msopgen); run
 * in project->root.  With third_lib_path (the config's
 * ascend.third_lib_path), an own project's build.sh also gets
 * `--third_lib_path DIR`: cann-ops' build.sh clones nlohmann/json into
 * third_party/ when DIR/json is missing, which fails on an offline host.
 */
int ascend_build_argv(const struct ascend_project *project, const char *bash,
                      const char *third_lib_path, struct ascend_argv *ret);

/*
 * The .run package build.sh left in root/build_out, where cann-ops'
 * QuickStart says it goes, or root/build (the newest when there are
 * several).  -ENOENT with a message when there is none.
 */
int ascend_find_package(const struct ascend_project *project, char *buf, size_t size, char *err,
                        size_t err_size);

/* `PACKAGE --quiet --install-path=VENDOR_ROOT`. */
int ascend_install_argv(const char *package, const char *install_path, struct ascend_argv *ret);

/*
 * The vendor directory an install created: the one install_path/vendors/<v>
 * holding op_api/lib.  UNTESTED ON HARDWARE: that the installer lays out
 * --install-path this way (vendors/<vendor_name>/op_api/lib).
 */
int ascend_find_vendor(const char *install_path, char *buf, size_t size, char *err,
                       size_t err_size);

/*
 * What an installed custom kernel's name starts with: "<OpType>_".  CANN
 * names the kernel of a custom op <OpType>_<hash>_<tiling key> (for example
 * AddCustom_1e04..._1), not after the kernel entry (add_custom), and msprof
 * op matches --kernel-name as a prefix of that name; the underscore keeps
 * AddCustom from matching AddCustomV2_...
 */
int ascend_kernel_prefix(const char *op_type, char *buf, size_t size);

/*
 * `msprof op --output=OUT --kernel-name=PREFIX --launch-count=N
 * --launch-skip-before-match=WARMUP HARNESS ARGS...`, PREFIX from
 * ascend_kernel_prefix.  The harness makes WARMUP + N launches; msprof
 * skips the warm-up ones.
 */
int ascend_msprof_argv(const char *msprof, const char *out_dir, const char *kernel,
                       unsigned launch_count, unsigned warmup, const char *const *harness_argv,
                       struct ascend_argv *ret);

/*
 * The harness's environment: a copy of base with LD_LIBRARY_PATH and
 * ASCEND_CUSTOM_OPP_PATH led by the candidate's vendor directory, so that
 * aclnn loads exactly this candidate's package.  ASCEND_RT_VISIBLE_DEVICES
 * is removed: msprof does not support it while profiling (msProf guide,
 * 8.0.RC2 onward, and the variable's own reference page), so the harness
 * picks the device itself with aclrtSetDevice.
 */
int ascend_run_env(const struct ascend_env *base, const char *vendor_dir,
                   struct ascend_env **ret_env);

/*
 * The build's environment: a copy of base with ASCEND_COMPUTE_UNIT set and
 * ASCEND_CUSTOM_OPP_PATH removed, so that build.sh never picks up another
 * installed custom package (the run environment still needs it).
 */
int ascend_build_env(const struct ascend_env *base, const char *compute_unit,
                     struct ascend_env **ret_env);

#endif
