/* SPDX-License-Identifier: MIT */
/*
 * Tests of config loading: defaults, the documented example, and that every
 * kind of mistake gives one message naming the file, the JSON path of the
 * field and what was expected.  Also the generic schema validator.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct config *parse_ok(const char *text)
{
        struct config *c = NULL;
        char err[512] = "";
        int r = config_parse(text, strlen(text), "ascendoptd.json", &c, err, sizeof(err));

        if (r < 0)
                fail_msg("unexpected error: %s", err);
        return c;
}

static void expect_error(const char *text, const char *message)
{
        struct config *c = NULL;
        char err[512] = "";

        assert_int_equal(config_parse(text, strlen(text), "ascendoptd.json", &c, err, sizeof(err)),
                         -EINVAL);
        assert_null(c);
        assert_string_equal(err, message);
}

static void test_empty_config_takes_defaults(void **state)
{
        struct config *c;

        setenv("HOME", "/home/tester", 1);
        unsetenv("XDG_STATE_HOME");
        unsetenv("STATE_DIRECTORY");
        unsetenv("ASCENDOPT_STATE_DIR");
        c = parse_ok("{}");
        assert_int_equal(c->backend, CONFIG_BACKEND_SIM);
        assert_string_equal(c->platform, "Ascend910B2");
        assert_int_equal(c->device_count, 1);
        assert_int_equal(c->episode.budget, 40);
        assert_int_equal(c->episode.rounds, 2);
        assert_int_equal(c->episode.first_stage, 1);
        assert_true(c->publish.min_speedup > 1.019 && c->publish.min_speedup < 1.021);
        assert_string_equal(c->publish.prefix, "ascendopt/");
        assert_string_equal(c->state_dir, "/home/tester/.local/state/ascendopt");
        assert_false(c->llm.enabled);
        assert_int_equal(c->n_repos, 0);
        assert_true(c->max_parallel_compiles >= 1);
        config_free(c);
}

static void test_systemd_directories_win(void **state)
{
        struct config *c;

        setenv("STATE_DIRECTORY", "/var/lib/ascendopt", 1);
        setenv("RUNTIME_DIRECTORY", "/run/ascendopt", 1);
        c = parse_ok("{}");
        assert_string_equal(c->state_dir, "/var/lib/ascendopt");
        assert_string_equal(c->socket, "/run/ascendopt/ascendoptd.sock");
        config_free(c);
        unsetenv("STATE_DIRECTORY");
        unsetenv("RUNTIME_DIRECTORY");
}

/* The CLI finds the daemon's state and socket by the same defaults, and the layout in one place. */
static void test_defaults_and_layout_are_shared(void **state)
{
        char dir[256], path[256];
        struct config *c;

        unsetenv("ASCENDOPT_STATE_DIR");
        unsetenv("ASCENDOPT_SOCKET");
        setenv("XDG_STATE_HOME", "/x/state", 1);
        setenv("XDG_RUNTIME_DIR", "/x/run", 1);
        c = parse_ok("{}");
        assert_int_equal(config_default_state_dir(dir, sizeof(dir)), 0);
        assert_string_equal(dir, c->state_dir);
        assert_string_equal(dir, "/x/state/ascendopt");
        assert_int_equal(config_default_socket(path, sizeof(path)), 0);
        assert_string_equal(path, c->socket);
        assert_string_equal(path, "/x/run/ascendopt/ascendoptd.sock");
        config_free(c);
        unsetenv("XDG_STATE_HOME");
        unsetenv("XDG_RUNTIME_DIR");
        setenv("HOME", "/home/tester", 1);
        assert_int_equal(config_default_state_dir(dir, sizeof(dir)), 0);
        assert_string_equal(dir, "/home/tester/.local/state/ascendopt");
        unsetenv("ASCENDOPT_CACHE_DIR"); /* make check sets it */
        assert_int_equal(state_path(path, sizeof(path), dir, STATE_CACHE), 0);
        assert_string_equal(path, "/home/tester/.local/state/ascendopt/cache/objects");
        /* a cache shared between state directories; the store stays put */
        setenv("ASCENDOPT_CACHE_DIR", "/var/cache/ascendopt", 1);
        assert_int_equal(state_path(path, sizeof(path), dir, STATE_CACHE), 0);
        assert_string_equal(path, "/var/cache/ascendopt");
        assert_int_equal(state_path(path, sizeof(path), dir, STATE_STORE), 0);
        assert_string_equal(path, "/home/tester/.local/state/ascendopt/store");
        unsetenv("ASCENDOPT_CACHE_DIR");
        assert_int_equal(state_path(path, 16, dir, STATE_STORE), -ENAMETOOLONG);
}

static void test_repos_and_home_expansion(void **state)
{
        struct config *c;

        setenv("HOME", "/home/tester", 1);
        c = parse_ok("{\"repos\": [{\"path\": \"~/ops\", \"branches\": [\"dev/*\"], "
                     "\"operators\": [\"src/*/*\"], \"llm_allowed\": true}, "
                     "{\"path\": \"/srv/mirror.git\"}]}");
        assert_int_equal(c->n_repos, 2);
        assert_string_equal(c->repos[0].path, "/home/tester/ops");
        assert_int_equal(c->repos[0].n_branches, 1);
        assert_string_equal(c->repos[0].branches[0], "dev/*");
        assert_string_equal(c->repos[0].operators[0], "src/*/*");
        assert_true(c->repos[0].llm_allowed);
        /* left out: main and master are followed, operators are auto-detected */
        assert_int_equal(c->repos[1].n_branches, 2);
        assert_string_equal(c->repos[1].branches[1], "master");
        assert_int_equal(c->repos[1].n_operators, 0);
        assert_false(c->repos[1].llm_allowed);
        config_free(c);
}

static void test_devices_forms(void **state)
{
        struct config *c = parse_ok("{\"devices\": 4}");

        assert_int_equal(c->device_count, 4);
        config_free(c);
        c = parse_ok("{\"backend\": \"ascend\", \"sandbox\": \"off\", \"devices\": [0, 3]}");
        assert_int_equal(c->n_device_ids, 2);
        assert_int_equal(c->device_ids[1], 3);
        config_free(c);
        c = parse_ok("{\"backend\": \"ascend\", \"sandbox\": \"off\"}");
        assert_true(c->devices_auto);
        config_free(c);
        expect_error("{\"devices\": \"auto\"}",
                     "ascendoptd.json: .devices: \"auto\" needs the ascend backend; give the sim "
                     "a device count such as 2");
        expect_error("{\"backend\": \"ascend\", \"devices\": [1, 1]}",
                     "ascendoptd.json: .devices[1]: device 1 is listed twice");
        expect_error("{\"devices\": 0}", "ascendoptd.json: .devices: must be at least 1, got 0");
        expect_error("{\"devices\": true}",
                     "ascendoptd.json: .devices: expected a device count, a list of device ids, "
                     "or \"auto\"");
}

static void test_toolkit(void **state)
{
        struct config *c = parse_ok("{\"backend\": \"ascend\", \"platform\": \"Ascend910B4\", "
                                    "\"sandbox\": \"off\", "
                                    "\"toolkit\": \"/opt/Ascend/ascend-toolkit/latest\"}");

        (void)state;
        assert_string_equal(c->toolkit, "/opt/Ascend/ascend-toolkit/latest");
        assert_true(c->platform_set);
        config_free(c);
        c = parse_ok("{\"backend\": \"ascend\", \"sandbox\": \"off\"}");
        assert_null(c->toolkit);
        assert_false(c->platform_set);
        config_free(c);
        expect_error("{\"toolkit\": \"/opt/Ascend\"}",
                     "ascendoptd.json: .toolkit: the CANN toolkit is used only by the ascend "
                     "backend; set \"backend\": \"ascend\" or drop it");
        expect_error("{\"backend\": \"ascend\", \"toolkit\": 3}",
                     "ascendoptd.json: .toolkit: expected a string");
}

/* build.sh's --third_lib_path, so that an offline build never clones nlohmann/json. */
static void test_third_lib_path(void **state)
{
        struct config *c = parse_ok("{\"backend\": \"ascend\", \"sandbox\": \"off\", "
                                    "\"ascend\": {\"third_lib_path\": \"/srv/cann-third-party\"}}");

        (void)state;
        assert_string_equal(c->third_lib_path, "/srv/cann-third-party");
        config_free(c);
        c = parse_ok("{\"backend\": \"ascend\", \"sandbox\": \"off\"}");
        assert_null(c->third_lib_path);
        config_free(c);
        expect_error("{\"ascend\": {\"third_lib_path\": \"/srv/x\"}}",
                     "ascendoptd.json: .ascend: only the ascend backend reads it; set "
                     "\"backend\": \"ascend\" or drop it");
        expect_error("{\"backend\": \"ascend\", \"sandbox\": \"off\", "
                     "\"ascend\": {\"third_lib\": \"/srv/x\"}}",
                     "ascendoptd.json: .ascend.third_lib: unknown key \"third_lib\"");
}

static void write_text(const char *dir, const char *name, const char *text)
{
        char path[4096];
        FILE *f;

        assert_int_equal(format_path(path, sizeof(path), "%s/%s", dir, name), 0);
        f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/*
 * The installed unit as systemd merges it (ascendopt doctor's service
 * user): the first directory holding the unit wins, drop-ins of every
 * directory apply in file-name order, a name in an earlier directory hides
 * a later one's, single settings are replaced, lists grow and an empty
 * assignment empties them.
 */
static void test_unit_and_drop_ins(void **state)
{
        char root[] = "/tmp/ascendopt-unit.XXXXXX", etc[128], lib[128], dirs[300];
        struct config_unit *u = NULL;
        char err[512] = "";

        (void)state;
        assert_non_null(mkdtemp(root));
        snprintf(etc, sizeof(etc), "%s/etc", root);
        snprintf(lib, sizeof(lib), "%s/lib", root);
        snprintf(dirs, sizeof(dirs), "%s:%s", etc, lib);
        setenv("ASCENDOPT_UNIT_DIR", dirs, 1);
        assert_int_equal(config_unit_read(CONFIG_UNIT_NAME, &u, err, sizeof(err)), -ENOENT);
        assert_null(u);
        assert_int_equal(mkdir_p(etc), 0);
        assert_int_equal(mkdir_p(lib), 0);
        write_text(lib, "ascendoptd.service",
                   "[Unit]\nUser=not-this-one\n[Service]\nUser=ascendopt\nGroup=ascendopt\n"
                   "PrivateDevices=yes\nStateDirectory=ascendopt\nSupplementaryGroups=a b\n");
        assert_int_equal(mkdir_p(strcat(strcpy(dirs, lib), "/ascendoptd.service.d")), 0);
        write_text(dirs, "ascend.conf",
                   "[Service]\nPrivateDevices=no\nDevicePolicy=closed\n"
                   "DeviceAllow=/dev/davinci0 rw\nSupplementaryGroups=HwHiAiUser\n");
        write_text(dirs, "user.conf", "[Service]\nUser=hidden\n");
        assert_int_equal(mkdir_p(strcat(strcpy(dirs, etc), "/ascendoptd.service.d")), 0);
        write_text(dirs, "user.conf",
                   "# a comment\n[Service]\n  User = lab  \nSupplementaryGroups=\n"
                   "SupplementaryGroups=video\nDeviceAllow=/dev/davinci1 rw\n");
        assert_int_equal(config_unit_read(CONFIG_UNIT_NAME, &u, err, sizeof(err)), 0);
        assert_non_null(strstr(u->path, "/lib/ascendoptd.service"));
        assert_int_equal(u->n_drop_ins, 2); /* etc's user.conf hides lib's */
        assert_non_null(strstr(u->drop_ins[0], "/lib/ascendoptd.service.d/ascend.conf"));
        assert_non_null(strstr(u->drop_ins[1], "/etc/ascendoptd.service.d/user.conf"));
        assert_string_equal(u->user, "lab");
        assert_string_equal(u->group, "ascendopt");
        assert_false(u->private_devices);
        assert_string_equal(u->device_policy, "closed");
        assert_int_equal(u->n_supplementary_groups, 1);
        assert_string_equal(u->supplementary_groups[0], "video");
        assert_int_equal(u->n_device_allow, 2);
        assert_string_equal(u->device_allow[1], "/dev/davinci1 rw");
        assert_int_equal(u->n_state_directories, 1);
        assert_string_equal(u->state_directories[0], "ascendopt");
        config_unit_free(u);
        assert_null(config_unit_free(NULL));
        unsetenv("ASCENDOPT_UNIT_DIR");
        rm_rf(root);
}

/* Fail closed: the ascend backend runs candidates unsandboxed only when told it may. */
static void test_ascend_needs_the_sandbox_off_on_purpose(void **state)
{
        (void)state;
        expect_error("{\"backend\": \"ascend\"}",
                     "ascendoptd.json: .backend: the ascend backend compiles and runs candidates "
                     "outside the sandbox (they need the NPU's device nodes and the CANN toolkit, "
                     "which the sandbox does not give yet); add \"sandbox\": \"off\" to accept "
                     "that on this NPU host");
}

static void test_wrong_type_names_the_path(void **state)
{
        expect_error("{\"repos\": [{\"path\": \"/a\"}, {\"path\": \"/b\"}, {\"path\": 7}]}",
                     "ascendoptd.json: .repos[2].path: expected a string");
        expect_error("{\"episode\": {\"budget\": 2.5}}",
                     "ascendoptd.json: .episode.budget: expected an integer");
        expect_error("{\"episode\": {\"rlimits\": {\"cpu_s\": \"10\"}}}",
                     "ascendoptd.json: .episode.rlimits.cpu_s: expected an integer");
        expect_error("[]", "ascendoptd.json: top level: expected an object");
}

static void test_unknown_keys_are_named(void **state)
{
        expect_error("{\"publish\": {\"prefx\": \"x/\"}}",
                     "ascendoptd.json: .publish.prefx: unknown key \"prefx\"");
        expect_error("{\"repos\": [{\"path\": \"/a\", \"branch\": \"main\"}]}",
                     "ascendoptd.json: .repos[0].branch: unknown key \"branch\"");
}

static void test_ranges_choices_and_required(void **state)
{
        expect_error(
            "{\"backend\": \"cuda\"}",
            "ascendoptd.json: .backend: expected one of \"sim\", \"ascend\", got \"cuda\"");
        expect_error("{\"publish\": {\"min_speedup\": 0.5}}",
                     "ascendoptd.json: .publish.min_speedup: must be at least 1, got 0.5");
        expect_error("{\"repos\": [{\"branches\": [\"main\"]}]}",
                     "ascendoptd.json: .repos[0].path: missing required field");
        expect_error("{\"repos\": [{\"path\": \"/a\", \"branches\": []}]}",
                     "ascendoptd.json: .repos[0].branches: expected at least 1 item, got 0");
        expect_error("{\"llm\": {\"endpoint\": \"http://127.0.0.1:8000/v1\"}}",
                     "ascendoptd.json: .llm.model: missing required field");
        expect_error("{\"episode\": {\"first_stage\": 3}}",
                     "ascendoptd.json: .episode.first_stage: must be at most 2, got 3");
}

static void test_cross_field_rules(void **state)
{
        expect_error("{\"repos\": [{\"path\": \"relative/ops\"}]}",
                     "ascendoptd.json: .repos[0].path: must be an absolute path (or start with "
                     "~/), got \"relative/ops\"");
        expect_error("{\"repos\": [{\"path\": \"/a\"}, {\"path\": \"/a\"}]}",
                     "ascendoptd.json: .repos[1].path: \"/a\" is already listed as .repos[0]");
        expect_error("{\"publish\": {\"prefix\": \"refs/heads/x/\"}}",
                     "ascendoptd.json: .publish.prefix: must be a branch name prefix ending in "
                     "'/' that git accepts (no '..', '@{', spaces or control characters), such "
                     "as \"ascendopt/\", got \"refs/heads/x/\"");
        expect_error("{\"publish\": {\"prefix\": \"bot/../x/\"}}",
                     "ascendoptd.json: .publish.prefix: must be a branch name prefix ending in "
                     "'/' that git accepts (no '..', '@{', spaces or control characters), such "
                     "as \"ascendopt/\", got \"bot/../x/\"");
        expect_error("{\"episode\": {\"stage1_steps\": 0, \"stage2_steps\": 0}}",
                     "ascendoptd.json: .episode: stage1_steps and stage2_steps are both 0, so an "
                     "episode could never evaluate anything");
        expect_error("{\"llm\": {\"endpoint\": \"http://x\", \"model\": \"m\", \"api_key_file\": "
                     "\"/k\", \"api_key_env\": \"K\"}}",
                     "ascendoptd.json: .llm: give api_key_file or api_key_env, not both");
}

/* A lab's fleet section: the defaults a user leaves out, and what sbatch could not take. */
static void test_fleet_section(void **state)
{
        struct config *c = parse_ok("{}");

        assert_false(c->fleet.enabled);
        config_free(c);
        c = parse_ok("{\"episode\": {\"wall_budget_s\": 3600}, \"fleet\": {\"engine\": "
                     "\"slurm\", \"shared_dir\": \"/srv/fleet\"}}");
        assert_true(c->fleet.enabled);
        assert_string_equal(c->fleet.gres, "npu:1");
        assert_string_equal(c->fleet.device_env, "ASCENDOPT_DEVICE");
        assert_null(c->fleet.partition);
        assert_null(c->fleet.account);
        assert_int_equal(c->fleet.max_jobs, 8);
        /* the episode's own limit, with ten minutes to export and collect */
        assert_int_equal((int)c->fleet.time_limit_s, 3600 + 600);
        config_free(c);

        expect_error("{\"fleet\": {\"engine\": \"slurm\"}}",
                     "ascendoptd.json: .fleet.shared_dir: missing required field");
        expect_error("{\"fleet\": {\"engine\": \"pbs\", \"shared_dir\": \"/s\"}}",
                     "ascendoptd.json: .fleet.engine: expected one of \"slurm\", got \"pbs\"");
        expect_error("{\"fleet\": {\"engine\": \"slurm\", \"shared_dir\": \"shared\"}}",
                     "ascendoptd.json: .fleet.shared_dir: must be an absolute path that every "
                     "node mounts at the same place, got \"shared\"");
        expect_error("{\"fleet\": {\"engine\": \"slurm\", \"shared_dir\": \"/s\", "
                     "\"partition\": \"npu --wrap=id\"}}",
                     "ascendoptd.json: .fleet.partition: \"npu --wrap=id\" is not a Slurm name: "
                     "use letters, digits and _.:,- only");
        expect_error("{\"fleet\": {\"engine\": \"slurm\", \"shared_dir\": \"/s\", "
                     "\"device_env\": \"1DEV\"}}",
                     "ascendoptd.json: .fleet.device_env: \"1DEV\" is not an environment "
                     "variable's name");
        expect_error("{\"fleet\": {\"engine\": \"slurm\", \"shared_dir\": \"/s\", "
                     "\"max_jobs\": 0}}",
                     "ascendoptd.json: .fleet.max_jobs: must be at least 1, got 0");
}

static void test_syntax_errors_give_line_and_column(void **state)
{
        expect_error("{\n  \"devices\": 2,,\n}",
                     "ascendoptd.json:2:16: string or '}' expected near ','");
        expect_error("{\"devices\": 1, \"devices\": 2}",
                     "ascendoptd.json:1:24: duplicate object key near '\"devices\"'");
}

static void test_limits_on_lists(void **state)
{
        char *text = malloc(64 * 1024);
        size_t pos = 0;

        pos += (size_t)sprintf(text + pos, "{\"repos\": [");
        for (int i = 0; i <= CONFIG_MAX_REPOS; i++)
                pos += (size_t)sprintf(text + pos, "%s{\"path\": \"/r%d\"}", i ? "," : "", i);
        sprintf(text + pos, "]}");
        expect_error(text, "ascendoptd.json: .repos: expected at most 256 items, got 257");
        free(text);
}

static void test_load_file_errors(void **state)
{
        struct config *c = NULL;
        char err[512];
        char path[] = "/tmp/ascendopt-config-XXXXXX";
        int fd;

        assert_int_equal(config_load("/nonexistent/ascendoptd.json", &c, err, sizeof(err)),
                         -ENOENT);
        assert_string_equal(err, "/nonexistent/ascendoptd.json: cannot open: No such file or "
                                 "directory");
        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "{\"socket\": 5}", 13), 13);
        close(fd);
        assert_int_equal(config_load(path, &c, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, ": .socket: expected a string"));
        assert_int_equal(strncmp(err, path, strlen(path)), 0);
        unlink(path);
}

static void test_documented_example_is_valid(void **state)
{
        struct config *c = NULL;
        char err[512] = "";
        char path[4096];

        snprintf(path, sizeof(path), "%s/etc/ascendopt/ascendoptd.json",
                 getenv("ASCENDOPT_SOURCE_DIR") ? getenv("ASCENDOPT_SOURCE_DIR") : ".");
        if (config_load(path, &c, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(c->device_count, 2);
        assert_int_equal(c->n_repos, 1);
        config_free(c);
}

/* The generic validator, on a schema of its own. */
static const struct schema item = { .kinds = SCHEMA_NUMBER | SCHEMA_NULL };
static const struct schema list = { .kinds = SCHEMA_ARRAY, .items = &item };
static const struct schema root = {
        .kinds = SCHEMA_OBJECT,
        .fields = (const struct schema_field[]){ { "values", &list, true }, { NULL, NULL, false } },
};

static void test_schema_union_kinds_and_nesting(void **state)
{
        char err[256];
        json_t *doc = json_loads("{\"values\": [1, 2.5, null, \"x\"]}", 0, NULL);

        assert_int_equal(schema_validate(doc, &root, "doc", err, sizeof(err)), -EINVAL);
        assert_string_equal(err, "doc: .values[3]: expected a number or null");
        json_decref(doc);
        doc = json_loads("{\"values\": [1, 2.5, null]}", 0, NULL);
        assert_int_equal(schema_validate(doc, &root, "doc", err, sizeof(err)), 0);
        json_decref(doc);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_empty_config_takes_defaults),
                cmocka_unit_test(test_systemd_directories_win),
                cmocka_unit_test(test_repos_and_home_expansion),
                cmocka_unit_test(test_devices_forms),
                cmocka_unit_test(test_defaults_and_layout_are_shared),
                cmocka_unit_test(test_toolkit),
                cmocka_unit_test(test_third_lib_path),
                cmocka_unit_test(test_unit_and_drop_ins),
                cmocka_unit_test(test_ascend_needs_the_sandbox_off_on_purpose),
                cmocka_unit_test(test_wrong_type_names_the_path),
                cmocka_unit_test(test_unknown_keys_are_named),
                cmocka_unit_test(test_ranges_choices_and_required),
                cmocka_unit_test(test_cross_field_rules),
                cmocka_unit_test(test_fleet_section),
                cmocka_unit_test(test_syntax_errors_give_line_and_column),
                cmocka_unit_test(test_limits_on_lists),
                cmocka_unit_test(test_load_file_errors),
                cmocka_unit_test(test_documented_example_is_valid),
                cmocka_unit_test(test_schema_union_kinds_and_nesting),
        };
        return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
