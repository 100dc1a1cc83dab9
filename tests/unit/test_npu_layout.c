/* SPDX-License-Identifier: MIT */
/*
 * npu_op_layout_read: what compiles an operator, read from repositories
 * this test writes.  The CMake form (t0036 runs a whole one) is checked
 * here for its edges: unknown variables and paths outside the repository
 * are left out, and interface libraries and the root's host targets
 * count; the folder form for its wrappers and its common include
 * folders; and rebasing for what a candidate's copy needs.
 */
#include "npu/npu.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

static char root[256]; /* short, so that every path built from it fits */

static void put(const char *rel, const char *text)
{
        char path[PATH_MAX], dir[PATH_MAX];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        snprintf(dir, sizeof(dir), "%s", path);
        *strrchr(dir, '/') = '\0';
        assert_int_equal(mkdir_p(dir), 0);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int setup(void **state)
{
        (void)state;
        snprintf(root, sizeof(root), "/tmp/ascendopt-layout-XXXXXX");
        assert_non_null(mkdtemp(root));
        /* a repository root is where .git is */
        put(".git/HEAD", "ref: refs/heads/main\n");
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        rm_rf(root);
        return 0;
}

/* Whether list holds path relative to root (absolute entries) or as given (relative ones). */
static bool has(char **list, size_t n, const char *rel, bool absolute)
{
        char want[PATH_MAX];

        snprintf(want, sizeof(want), "%s%s%s", absolute ? root : "", absolute ? "/" : "", rel);
        for (size_t i = 0; i < n; i++)
                if (strcmp(list[i], want) == 0)
                        return true;
        return false;
}

static void test_cmake_declares_the_build(void **state)
{
        struct npu_op_layout *l = NULL;
        char op[PATH_MAX], err[512] = "";

        (void)state;
        put("CMakeLists.txt",
            "set(SHARED ${CMAKE_CURRENT_SOURCE_DIR}/lib/common)  # the shared folder\n"
            "add_subdirectory(lib/common)\n"
            "target_link_libraries(optiling PRIVATE $<BUILD_INTERFACE:headers_lib> graph)\n");
        put("lib/common/CMakeLists.txt", "add_library(headers_lib INTERFACE)\n"
                                         "target_include_directories(headers_lib INTERFACE\n"
                                         "  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/inc>\n"
                                         "  $<INSTALL_INTERFACE:include>)\n");
        put("lib/common/inc/shared.h", "#include \"deeper/more.h\"\n#define SHARED 1\n");
        put("lib/common/inc/deeper/more.h", "BEGIN_TILING_DATA_DEF(MoreTiling)\n");
        put("lib/common/src/tiling.cpp", "#include \"shared.h\"\n");
        put("lib/common/kinc/kernel_base.h", "// kernel side\n");
        put("ops/one/CMakeLists.txt",
            "add_ops_compile_options(OP_NAME One OPTIONS -I${SHARED}/kinc -DONE_FLAG=2\n"
            "                        -I${UNKNOWN_VARIABLE}/x --cce-auto-sync=on)\n"
            "# target_sources(optiling PRIVATE op_host/commented_out.cpp)\n"
            "target_sources(op_host_aclnn PRIVATE op_host/one_def.cpp)\n"
            "target_sources(opapi PRIVATE op_host/aclnn_one.cpp op_host/one_api.cpp)\n"
            "target_sources(optiling PRIVATE ${SHARED}/src/tiling.cpp \"op_host/one.cc\")\n"
            "target_include_directories(optiling PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/op_host\n"
            "  ${ASCEND_CANN_PACKAGE_PATH}/include ${CMAKE_SOURCE_DIR}/../outside /etc)\n");
        put("ops/one/op_host/one_def.cpp", "// OpDef\n");
        put("ops/one/op_host/one.cc", "#include \"shared.h\"\n");
        put("ops/one/op_host/commented_out.cpp", "// not built\n");
        put("ops/one/op_host/aclnn_one.cpp", "#include \"opdev/op_executor.h\"\n");
        put("ops/one/op_host/one_api.cpp", "#include \"opdev/op_executor.h\"\n");
        put("ops/one/op_kernel/one.cpp", "#include \"kernel_base.h\"\n");
        snprintf(op, sizeof(op), "%s/ops/one", root);

        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_string_equal(l->repo_root, root);
        assert_string_equal(l->op_relpath, "ops/one");
        assert_true(l->from_cmake);
        /* the targets' sources, the opapi wrappers and the comment left out */
        assert_int_equal(l->n_host_units, 3);
        assert_true(has(l->host_units, l->n_host_units, "ops/one/op_host/one_def.cpp", true));
        assert_true(has(l->host_units, l->n_host_units, "lib/common/src/tiling.cpp", true));
        assert_true(has(l->host_units, l->n_host_units, "ops/one/op_host/one.cc", true));
        /* the operator's, the interface library's; nothing outside the repository */
        assert_int_equal(l->n_host_includes, 2);
        assert_true(has(l->host_includes, l->n_host_includes, "ops/one/op_host", true));
        assert_true(has(l->host_includes, l->n_host_includes, "lib/common/inc", true));
        assert_int_equal(l->n_kernel_includes, 1);
        assert_true(has(l->kernel_includes, l->n_kernel_includes, "lib/common/kinc", true));
        assert_int_equal(l->n_kernel_defines, 1);
        assert_string_equal(l->kernel_defines[0], "-DONE_FLAG=2");
        /* what the units include, transitively, outside the operator */
        assert_int_equal(l->n_shared_files, 4);
        assert_true(has(l->shared_files, l->n_shared_files, "lib/common/inc/shared.h", false));
        assert_true(has(l->shared_files, l->n_shared_files, "lib/common/inc/deeper/more.h", false));
        assert_true(
            has(l->shared_files, l->n_shared_files, "lib/common/kinc/kernel_base.h", false));
        assert_true(has(l->shared_files, l->n_shared_files, "lib/common/src/tiling.cpp", false));
        /* a shared header that defines tiling data reaches the kernel */
        assert_true(
            has(l->tiling_headers, l->n_tiling_headers, "lib/common/inc/deeper/more.h", true));
        assert_true(npu_op_layout_uses_repo(l));
        npu_op_layout_free(l);
}

static void test_folder_layout_without_cmake(void **state)
{
        struct npu_op_layout *l = NULL;
        char op[PATH_MAX], err[512] = "";

        (void)state;
        put("src/common/inc/util.h", "// shared\n");
        put("src/common/include/more.h", "// shared too\n");
        put("src/other/inc/not_common.h", "// not under a common folder\n");
        put("src/math/two/op_host/two.cpp",
            "#include \"util.h\"\n#include \"aclnn/opdev/op_log.h\"\n");
        put("src/math/two/op_host/two_proto.cc", "// proto\n");
        put("src/math/two/op_host/aclnn_two.cpp", "// a wrapper by name\n");
        put("src/math/two/op_host/two_l0.cpp", "// a wrapper by name\n");
        put("src/math/two/op_host/two_wrapper.cpp", "#include <aclnn_kernels/contiguous.h>\n");
        put("src/math/two/op_host/two_tiling.h", "// tiling\n");
        put("src/math/two/op_kernel/two.cpp", "#include \"../../../../../../etc/passwd\"\n");
        snprintf(op, sizeof(op), "%s/src/math/two", root);

        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_false(l->from_cmake);
        assert_int_equal(l->n_host_units, 2);
        assert_true(has(l->host_units, l->n_host_units, "src/math/two/op_host/two.cpp", true));
        assert_true(has(l->host_units, l->n_host_units, "src/math/two/op_host/two_proto.cc", true));
        assert_int_equal(l->n_host_includes, 2);
        assert_true(has(l->host_includes, l->n_host_includes, "src/common/inc", true));
        assert_true(has(l->host_includes, l->n_host_includes, "src/common/include", true));
        assert_int_equal(l->n_tiling_headers, 1);
        assert_true(has(l->tiling_headers, 1, "src/math/two/op_host/two_tiling.h", true));
        /* an include climbing out of the repository is never followed */
        assert_int_equal(l->n_shared_files, 1);
        assert_string_equal(l->shared_files[0], "src/common/inc/util.h");
        npu_op_layout_free(l);
}

static void test_only_wrappers_is_an_error(void **state)
{
        struct npu_op_layout *l = NULL;
        char op[PATH_MAX], err[512] = "";

        (void)state;
        put("ops/three/op_host/aclnn_three.cpp", "// wrapper\n");
        put("ops/three/op_kernel/three.cpp", "// kernel\n");
        snprintf(op, sizeof(op), "%s/ops/three", root);
        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "ops/three: op_host has no C++ source"));
        assert_null(l);
}

/*
 * Shared headers the kernel includes by a bare name are offered for copying
 * into op_kernel/, all together; never when a copy would find another
 * file than the original does.
 */
static void test_kernel_headers_to_copy(void **state)
{
        struct npu_op_layout *l = NULL;
        char op[PATH_MAX], err[512] = "";

        (void)state;
        put("src/common/inc/util.h", "// shared by the host\n");
        put("src/common/inc/body.h", "#include \"base.h\"\n#include \"kernel_operator.h\"\n");
        put("src/common/inc/base.h", "// the loop\n");
        put("src/common/inc/outer.h", "#include \"parts/inner.h\"\n");
        put("src/common/inc/parts/inner.h", "// beside outer.h, in a folder\n");
        put("src/math/five/op_host/five.cpp", "#include \"util.h\"\n");
        put("src/math/five/op_kernel/five.cpp", "#include \"body.h\"\n");
        snprintf(op, sizeof(op), "%s/src/math/five", root);
        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_int_equal(l->n_kernel_headers, 2);
        assert_string_equal(l->kernel_headers[0], "src/common/inc/body.h");
        assert_string_equal(l->kernel_headers[1], "src/common/inc/base.h");
        npu_op_layout_free(l);

        /* outer.h's copy in op_kernel/ would not find parts/inner.h */
        put("src/math/six/op_host/six.cpp", "// host\n");
        put("src/math/six/op_kernel/six.cpp", "#include \"body.h\"\n#include \"outer.h\"\n");
        snprintf(op, sizeof(op), "%s/src/math/six", root);
        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_int_equal(l->n_kernel_headers, 0);
        assert_true(has(l->shared_files, l->n_shared_files, "src/common/inc/parts/inner.h", false));
        npu_op_layout_free(l);

        /* body.h's copy would find the operator's own base.h, not the shared one */
        put("src/math/seven/op_host/seven.cpp", "// host\n");
        put("src/math/seven/op_kernel/seven.cpp", "#include \"body.h\"\n");
        put("src/math/seven/op_kernel/base.h", "// another base\n");
        snprintf(op, sizeof(op), "%s/src/math/seven", root);
        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_int_equal(l->n_kernel_headers, 0);
        npu_op_layout_free(l);
}

static void test_rebase(void **state)
{
        struct npu_op_layout *l = NULL, *r = NULL, *alone = NULL;
        char op[PATH_MAX], err[512] = "";

        (void)state;
        /* an operator that reads nothing of the repository travels alone */
        put("solo/op_host/solo.cpp", "// reads nothing outside\n");
        put("solo/op_kernel/solo.cpp", "// kernel\n");
        snprintf(op, sizeof(op), "%s/solo", root);
        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_false(npu_op_layout_uses_repo(l));
        assert_int_equal(npu_op_layout_rebase(l, "/scratch/y/op", &alone), 0);
        assert_string_equal(alone->op_dir, "/scratch/y/op");
        assert_string_equal(alone->op_relpath, "");
        assert_string_equal(alone->host_units[0], "/scratch/y/op/op_host/solo.cpp");
        npu_op_layout_free(l);
        npu_op_layout_free(alone);

        /* one that does travels with the repository's files, at their places */
        put("src/common/inc/util.h", "// shared\n");
        put("src/math/four/op_host/four.cpp", "#include \"util.h\"\n");
        put("src/math/four/op_kernel/four.cpp", "// kernel\n");
        snprintf(op, sizeof(op), "%s/src/math/four", root);
        assert_int_equal(npu_op_layout_read(op, NULL, &l, err, sizeof(err)), 0);
        assert_int_equal(npu_op_layout_rebase(l, "/scratch/x/repo", &r), 0);
        assert_string_equal(r->repo_root, "/scratch/x/repo");
        assert_string_equal(r->op_dir, "/scratch/x/repo/src/math/four");
        assert_string_equal(r->host_units[0], "/scratch/x/repo/src/math/four/op_host/four.cpp");
        assert_string_equal(r->host_includes[0], "/scratch/x/repo/src/common/inc");
        assert_string_equal(r->shared_files[0], "src/common/inc/util.h");
        npu_op_layout_free(l);
        npu_op_layout_free(r);
        assert_null(npu_op_layout_free(NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_cmake_declares_the_build, setup, teardown),
                cmocka_unit_test_setup_teardown(test_folder_layout_without_cmake, setup, teardown),
                cmocka_unit_test_setup_teardown(test_only_wrappers_is_an_error, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kernel_headers_to_copy, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rebase, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
