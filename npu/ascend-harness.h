/* SPDX-License-Identifier: MIT */
/*
 * The aclnn harness (npu/ascend-harness.c): the OpDef's attribute order,
 * and a main.cpp and CMakeLists.txt that run one case of the operator
 * through aclnn on the inputs the evaluator wrote.
 * Part of npu/ascend.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_ASCEND_HARNESS_H
#define ASCENDOPT_NPU_ASCEND_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest.h"
#include "ascend-project.h"

/* ------------------------------------------------------------ harness */

/*
 * The attribute names of the OpDef in op_host/ (`.Attr("name")` in order of
 * appearance), which is the order aclnn takes them in.  *ret_names is a
 * NULL-terminated array the caller frees with ascend_strv_free; it is empty
 * when the OpDef has no attributes or could not be read.
 */
int ascend_opdef_attr_order(const struct npu_manifest *manifest, char ***ret_names);
char **ascend_strv_free(char **strv);

struct ascend_harness {
        char *main_cpp;
        char *cmakelists;
        char *target; /* executable name, e.g. ascendopt_harness_add_custom */
};

/*
 * Generates an aclnn harness for the manifest: main.cpp and CMakeLists.txt.
 * The harness is run as `harness DEVICE CASE LAUNCHES IN.bin... OUT.bin...`: it
 * reads every input (raw little-endian, exactly the case's size), calls
 * aclnn<Name>GetWorkspaceSize(inputs..., attrs..., outputs..., &ws, &exec)
 * then aclnn<Name>(ws, size, exec, stream) LAUNCHES times on device DEVICE
 * (aclrtSetDevice: msprof does not support ASCEND_RT_VISIBLE_DEVICES while
 * profiling), zeroing outputs
 * before each launch, and writes the outputs of the first launch.  attr
 * order: attr_order (NULL: the manifest's order).  Deterministic: the same
 * manifest gives the same bytes.  An output without a shape in a case takes
 * the first input's, as in the sim.  Unsupported, -ENOTSUP with a message
 * naming the field: dynamic list inputs (aclTensorList) and attributes that
 * are lists of strings or nested lists.  -EINVAL when a case has no value
 * for an attribute or its type changes between cases.
 */
int ascend_harness_generate(const struct npu_manifest *manifest, const char *const *attr_order,
                            struct ascend_harness *ret, char *err, size_t err_size);
void ascend_harness_release(struct ascend_harness *harness);

/*
 * A hand-written aclnn wrapper (npu/ascend-aclnn.c): the header in op_host/
 * and the entry it declares, "aclnnFoo" for aclnnFooGetWorkspaceSize and
 * aclnnFoo.  Both empty when the operator has none: its wrapper is the
 * one generated from the OpDef.
 */
struct ascend_aclnn_entry {
        char header[256];
        char entry[256];
};

/*
 * Reads the operator's op_host/aclnn_*.h, if any (the one named after the
 * operator first), and checks that its GetWorkspaceSize declaration takes
 * what the generated harness passes: the inputs as tensors, the
 * attributes as attr_kinds say ("an integer", "a float", "a boolean", "a
 * string", "a list of integers", "a list of floats", "a list of
 * booleans"), the outputs as tensors, the workspace size and the
 * executor.  0 and *ret (empty when there is no such header), or
 * -ENOTSUP with err naming the header, the parameter and what differs.
 */
int ascend_aclnn_declared(const struct npu_manifest *manifest, const char *const *attr_kinds,
                          size_t n_attrs, struct ascend_aclnn_entry *ret, char *err,
                          size_t err_size);

/* Writes main.cpp and CMakeLists.txt into dir (created). */
int ascend_harness_write(const struct ascend_harness *harness, const char *dir, char *err,
                         size_t err_size);

/*
 * `cmake -S DIR -B DIR/build -DCMAKE_BUILD_TYPE=Release -DASCEND_HOME=...
 * -DCUST_PKG_PATH=VENDOR` (configure), or `cmake --build DIR/build` when
 * build_step is set.  The executable is DIR/build/<harness->target>.
 */
int ascend_harness_cmake_argv(const char *cmake, const char *dir, const char *ascend_home,
                              const char *vendor_dir, bool build_step, struct ascend_argv *ret);

#endif
