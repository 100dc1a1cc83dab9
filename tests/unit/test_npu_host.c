/* SPDX-License-Identifier: MIT */
/*
 * Tests of what ascendopt doctor reads of the host: whether a user (any
 * uid and groups, not ours) may open a path by its mode bits and those of
 * the directories above it (common/path.c), the NPU's device nodes, the
 * toolkit's version and the third-party folder of build.sh (npu/host.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "npu/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static int make_root(void **state)
{
        (void)state;
        snprintf(root, sizeof(root), "/tmp/ascendopt-host.XXXXXX");
        return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state)
{
        (void)state;
        return rm_rf(root);
}

static void touch(const char *path, mode_t mode)
{
        FILE *f = fopen(path, "we");

        assert_non_null(f);
        fputs("version=8.0.RC3\n", f);
        fclose(f);
        assert_int_equal(chmod(path, mode), 0);
}

/* The bits that apply: the owner's, else the group's for a member, else the others'. */
static void test_user_access_by_mode_bits(void **state)
{
        char dir[128], node[160];
        struct stat st;
        struct path_access a;
        gid_t other_group = 4243, groups[2];
        uid_t stranger = 4242, owner;

        (void)state;
        snprintf(dir, sizeof(dir), "%s/dev", root);
        snprintf(node, sizeof(node), "%s/davinci0", dir);
        assert_int_equal(mkdir(dir, 0755), 0);
        assert_int_equal(chmod(root, 0755), 0);
        touch(node, 0660);
        assert_int_equal(stat(node, &st), 0);
        groups[0] = other_group;
        groups[1] = st.st_gid;
        owner = st.st_uid;

        /* not the owner, not in the group: the others' bits, none */
        assert_int_equal(path_user_access(node, stranger, groups, 1, R_OK | W_OK, &a), -EACCES);
        assert_string_equal(a.path, node);
        assert_false(a.is_owner);
        assert_false(a.in_group);
        assert_int_equal(a.mode, 0660);
        assert_int_equal(a.missing, R_OK | W_OK);
        /* in the group: rw */
        assert_int_equal(path_user_access(node, stranger, groups, 2, R_OK | W_OK, &a), 0);
        /* the owner gets the owner's bits only, even when the group's would do */
        if (owner == 0) { /* root's file: give it to someone else (uid 0 passes anything) */
                assert_int_equal(chown(node, 4244, (gid_t)-1), 0);
                owner = 4244;
        }
        assert_int_equal(chmod(node, 0260), 0);
        assert_int_equal(path_user_access(node, owner, groups, 2, R_OK | W_OK, &a), -EACCES);
        assert_true(a.is_owner);
        assert_int_equal(a.missing, R_OK);
        assert_int_equal(path_user_access(node, stranger, groups, 2, W_OK, NULL), 0);
        /* uid 0 reads and writes anything */
        assert_int_equal(path_user_access(node, 0, NULL, 0, R_OK | W_OK, NULL), 0);
        /* a directory above that may not be searched refuses first */
        assert_int_equal(chmod(dir, 0700), 0);
        assert_int_equal(path_user_access(node, stranger, groups, 2, W_OK, &a), -EACCES);
        assert_string_equal(a.path, dir);
        assert_int_equal(a.missing, X_OK);
        assert_int_equal(chmod(dir, 0755), 0);
        assert_int_equal(path_user_access("/nonexistent/davinci0", stranger, NULL, 0, R_OK, &a),
                         -ENOENT);
}

static void test_device_nodes(void **state)
{
        const int ids[] = { 0, 3 };
        char **paths = NULL;
        size_t n = 0;

        (void)state;
        setenv("ASCENDOPT_DEV_DIR", "/tmp/fake-dev", 1);
        assert_int_equal(npu_host_device_nodes(ids, 2, &paths, &n), 0);
        assert_int_equal(n, 5);
        assert_string_equal(paths[0], "/tmp/fake-dev/davinci0");
        assert_string_equal(paths[1], "/tmp/fake-dev/davinci3");
        assert_string_equal(paths[2], "/tmp/fake-dev/davinci_manager");
        assert_string_equal(paths[3], "/tmp/fake-dev/devmm_svm");
        assert_string_equal(paths[4], "/tmp/fake-dev/hisi_hdc");
        assert_null(paths[5]);
        paths = npu_host_nodes_free(paths);
        unsetenv("ASCENDOPT_DEV_DIR");
        assert_int_equal(npu_host_device_nodes(ids, 1, &paths, &n), 0);
        assert_string_equal(paths[0], "/dev/davinci0");
        npu_host_nodes_free(paths);
        assert_int_equal(npu_host_device_nodes(ids, NPU_HOST_MAX_NODES, &paths, &n), -E2BIG);
}

static void test_toolkit_version(void **state)
{
        char toolkit[128], path[192], version[64], source[256];

        (void)state;
        snprintf(toolkit, sizeof(toolkit), "%s/toolkit", root);
        snprintf(path, sizeof(path), "%s/compiler", toolkit);
        assert_int_equal(mkdir_p(path), 0);
        assert_int_equal(
            npu_host_toolkit_version(toolkit, version, sizeof(version), source, sizeof(source)),
            -ENOENT);
        /* a version.cfg without a version= line is passed over */
        snprintf(path, sizeof(path), "%s/version.cfg", toolkit);
        assert_int_equal(
            write_file_exclusive(path, "runtime_running_version=[7.0:8.0]\n", 35, 0644), 0);
        snprintf(path, sizeof(path), "%s/compiler/version.info", toolkit);
        touch(path, 0644);
        assert_int_equal(
            npu_host_toolkit_version(toolkit, version, sizeof(version), source, sizeof(source)), 0);
        assert_string_equal(version, "8.0.RC3");
        assert_string_equal(source, path);
}

/* build.sh downloads unless DIR/json exists; CMake then wants json/include/nlohmann/json.hpp. */
static void test_third_lib_layout(void **state)
{
        char dir[128], path[192], err[512];

        (void)state;
        snprintf(dir, sizeof(dir), "%s/third", root);
        assert_int_equal(npu_host_third_lib_check(dir, err, sizeof(err)), -ENOENT);
        assert_int_equal(mkdir_p(dir), 0);
        assert_int_equal(npu_host_third_lib_check(dir, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "has no json/ folder, so build.sh will try to download"));
        snprintf(path, sizeof(path), "%s/json/include/nlohmann", dir);
        assert_int_equal(mkdir_p(path), 0);
        assert_int_equal(npu_host_third_lib_check(dir, err, sizeof(err)), -ENOENT);
        assert_non_null(strstr(err, "json has no include/nlohmann/json.hpp"));
        snprintf(path, sizeof(path), "%s/json/include/nlohmann/json.hpp", dir);
        touch(path, 0644);
        assert_int_equal(npu_host_third_lib_check(dir, err, sizeof(err)), 0);
        assert_int_equal(npu_host_third_lib_check(path, err, sizeof(err)), -ENOTDIR);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_user_access_by_mode_bits),
                cmocka_unit_test(test_device_nodes),
                cmocka_unit_test(test_toolkit_version),
                cmocka_unit_test(test_third_lib_layout),
        };

        return cmocka_run_group_tests_name("npu_host", tests, make_root, remove_root);
}
