/* SPDX-License-Identifier: MIT */
/*
 * The host the ascend backend runs on: which device nodes the runtime
 * opens, which CANN toolkit version is installed, and whether the
 * third-party folder handed to cann-ops' build.sh holds nlohmann/json.
 * File-system reads, and the toolkit's environment loaded while the
 * caller waits.
 */
#include "host.h"
#include "ascend.h"

#include "common/common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <event2/event.h>

/* Opened by every process that uses an NPU, whichever chip (the CANN container guides). */
static const char *const shared_nodes[] = { "davinci_manager", "devmm_svm", "hisi_hdc", NULL };

char **npu_host_nodes_free(char **paths)
{
        for (size_t i = 0; paths && paths[i]; i++)
                free(paths[i]);
        free(paths);
        return NULL;
}

struct env_load {
        bool answered;
        int r;
        struct ascend_env *env;
        char *err;
        size_t err_size;
};

static void on_env_answer(int r, struct ascend_env *env, const char *message, void *userdata)
{
        struct env_load *l = userdata;

        l->answered = true;
        l->env = env;
        l->r = r < 0 ? format_error(l->err, l->err_size, r, "%s", message ? message : "") : 0;
}

int npu_host_env_load(struct event_base *base, struct child_runner *runner,
                      const struct ascend_toolkit *toolkit, double timeout_s,
                      struct ascend_env **ret_env, char *err, size_t err_size)
{
        struct env_load l = { .err = err, .err_size = err_size };
        int r = ascend_env_load_start(runner, toolkit, NULL, timeout_s, on_env_answer, &l, NULL);

        if (r < 0)
                return format_error(err, err_size, r, "cannot run %s: %s", toolkit->set_env,
                                    strerror(-r));
        while (!l.answered)
                event_base_loop(base, EVLOOP_ONCE);
        *ret_env = l.env;
        return l.r;
}

int npu_host_device_nodes(const int *ids, size_t n_ids, char ***ret_paths, size_t *ret_n)
{
        const char *dev = getenv("ASCENDOPT_DEV_DIR");
        size_t n = 0, max = n_ids + ARRAY_SIZE(shared_nodes);
        char **paths;
        int r = 0;

        if (n_ids > NPU_HOST_MAX_NODES - (ARRAY_SIZE(shared_nodes) - 1))
                return -E2BIG;
        if (!dev || !*dev)
                dev = "/dev";
        paths = calloc(max, sizeof(*paths));
        if (!paths)
                return -ENOMEM;
        for (size_t i = 0; i < n_ids && r == 0; i++)
                r = asprintf(&paths[n++], "%s/davinci%d", dev, ids[i]) < 0 ? -ENOMEM : 0;
        for (size_t i = 0; shared_nodes[i] && r == 0; i++)
                r = asprintf(&paths[n++], "%s/%s", dev, shared_nodes[i]) < 0 ? -ENOMEM : 0;
        if (r < 0) {
                paths[n - 1] = NULL; /* asprintf leaves it undefined on failure */
                npu_host_nodes_free(paths);
                return r;
        }
        *ret_paths = paths;
        *ret_n = n;
        return 0;
}

/* The value of the first "version=" line of a file, trimmed; false when it has none. */
static bool version_line(const char *path, char *buf, size_t size)
{
        char *text = NULL, *line, *save = NULL;
        size_t len;
        bool found = false;

        if (read_text_file(path, 1u << 16, &text, &len) < 0)
                return false;
        for (line = strtok_r(text, "\n", &save); line && !found;
             line = strtok_r(NULL, "\n", &save)) {
                char *value;
                line += strspn(line, " \t");
                if (strncasecmp(line, "version", 7) != 0)
                        continue;
                value = line + 7 + strspn(line + 7, " \t");
                if (*value != '=')
                        continue;
                value += 1 + strspn(value + 1, " \t");
                len = strcspn(value, "\r");
                while (len && isspace((unsigned char)value[len - 1]))
                        len--;
                if (!len)
                        continue;
                snprintf(buf, size, "%.*s", (int)len, value);
                found = true;
        }
        free(text);
        return found;
}

const char *const npu_host_toolkit_version_files[] = {
        "version.cfg",
        "x86_64-linux/ascend_toolkit_install.info",
        "aarch64-linux/ascend_toolkit_install.info",
        "compiler/version.info",
        "runtime/version.info",
        "opp/version.info",
        NULL,
};

int npu_host_toolkit_version(const char *root, char *buf, size_t size, char *source,
                             size_t source_size)
{
        const char *const *files = npu_host_toolkit_version_files;
        char path[PATH_MAX];

        for (size_t i = 0; files[i]; i++) {
                if (format_path(path, sizeof(path), "%s/%s", root, files[i]) < 0 ||
                    !version_line(path, buf, size))
                        continue;
                snprintf(source, source_size, "%s", path);
                return 0;
        }
        return -ENOENT;
}

int npu_host_third_lib_check(const char *dir, char *err, size_t err_size)
{
        char path[PATH_MAX];
        struct stat st;

        if (stat(dir, &st) < 0)
                return format_error(err, err_size, -errno, "%s: %s", dir, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return format_error(err, err_size, -ENOTDIR, "%s is no directory", dir);
        if (format_path(path, sizeof(path), "%s/json", dir) < 0 || stat(path, &st) < 0 ||
            !S_ISDIR(st.st_mode))
                return format_error(err, err_size, -ENOENT,
                                    "%s has no json/ folder, so build.sh will try to download "
                                    "nlohmann/json into it",
                                    dir);
        if (format_path(path, sizeof(path), "%s/json/include/nlohmann/json.hpp", dir) < 0 ||
            stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                return format_error(err, err_size, -ENOENT,
                                    "%s/json has no include/nlohmann/json.hpp: build.sh sees json/ "
                                    "and downloads nothing, and CMake's find_package(json) fails",
                                    dir);
        return 0;
}
