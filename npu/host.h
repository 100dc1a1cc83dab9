/* SPDX-License-Identifier: MIT */
/*
 * The host the ascend backend runs on (npu/host.c): the device nodes the
 * Ascend runtime opens, the CANN toolkit's version, and the third-party
 * folder cann-ops' build.sh takes.  What `ascendopt doctor` checks before
 * anything is built.
 */
#ifndef ASCENDOPT_NPU_HOST_H
#define ASCENDOPT_NPU_HOST_H

#include <stddef.h>

/* Device nodes of one host check at most: a davinci node per device, then the shared ones. */
#define NPU_HOST_MAX_NODES 67

/*
 * The device nodes a process running on the NPUs ids opens, as the CANN
 * container guides list them for `docker run --device`: DEV/davinci<id>
 * per chip, then DEV/davinci_manager (device management), DEV/devmm_svm
 * (device memory) and DEV/hisi_hdc (host-device communication).  DEV is
 * $ASCENDOPT_DEV_DIR when set (tests), else /dev.  *ret_paths is a new
 * NULL-terminated array; free it with npu_host_nodes_free().  At most
 * NPU_HOST_MAX_NODES - 3 ids (-E2BIG).  UNTESTED ON HARDWARE: that the
 * driver numbers davinci<N> like the runtime's logic ids, which holds
 * outside containers that remap devices.
 */
int npu_host_device_nodes(const int *ids, size_t n_ids, char ***ret_paths, size_t *ret_n);
char **npu_host_nodes_free(char **paths);

/*
 * Where the backend looks for npu-smi (which comes with the driver, and
 * may sit in driver/tools only), cmake and bash after the toolkit's PATH
 * (npu/ascend.c): the extra_dirs of ascend_env_which().
 */
#define NPU_HOST_SYSTEM_DIRS                                                               \
        ((const char *const[]){ "/usr/local/sbin", "/usr/local/bin",                       \
                                "/usr/local/Ascend/driver/tools", "/usr/sbin", "/usr/bin", \
                                "/sbin", "/bin", NULL })

struct event_base;
struct child_runner;
struct ascend_toolkit;
struct ascend_env;

/*
 * Loads the toolkit's set_env.sh (ascend_env_load_start) and turns base's
 * loop until it has answered: for start-up code with nothing else to do
 * meanwhile.  *ret_env is the captured environment; -errno with a message
 * when the shell could not start or the script did not load.
 */
int npu_host_env_load(struct event_base *base, struct child_runner *runner,
                      const struct ascend_toolkit *toolkit, double timeout_s,
                      struct ascend_env **ret_env, char *err, size_t err_size);

/*
 * The CANN toolkit's version from the first of its version files under
 * root that has a "version=" line (version.cfg,
 * <arch>-linux/ascend_toolkit_install.info, compiler/version.info,
 * runtime/version.info; the key in any case), into buf; source gets the
 * file.  -ENOENT when none has one.  UNTESTED ON HARDWARE: which of them a
 * given CANN release writes (the fake toolkit has version.cfg).
 */
int npu_host_toolkit_version(const char *root, char *buf, size_t size, char *source,
                             size_t source_size);

/*
 * The files whose contents say which CANN toolkit this is, relative to its
 * root (ascend-toolkit/latest), NULL-terminated: the install info and the
 * per-component version.info files the CANN installation guide tells users
 * to read.  The ascend backend hashes all of them into its identity
 * context; npu_host_toolkit_version reads the first with a version line.
 */
extern const char *const npu_host_toolkit_version_files[];

/*
 * Whether dir is what cann-ops' `build.sh --third_lib_path` wants, so that
 * a build never fetches nlohmann/json: build.sh fetches it unless dir/json
 * exists, and the project's CMakeLists.txt then puts dir/json on
 * CMAKE_PREFIX_PATH and looks for nlohmann/json.hpp below its include/.
 * 0 when dir/json/include/nlohmann/json.hpp is a file; else -ENOENT
 * (-ENOTDIR for a dir that is no directory) with a message saying what is
 * missing and what the build does then.
 */
int npu_host_third_lib_check(const char *dir, char *err, size_t err_size);

#endif
