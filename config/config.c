/* SPDX-License-Identifier: MIT */
/*
 * The ascendoptd configuration: its schema, written in C so that every error
 * names the JSON path of the field, and the defaults of each field left out.
 */
#include "config.h"

#include "common/common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <git2.h>

/* A config file larger than this is surely not a config file. */
#define CONFIG_MAX_FILE_BYTES (1u << 20)

/* ------------------------------------------------------------ schema */

static const struct schema string_path = { .kinds = SCHEMA_STRING,
                                           .non_empty = true,
                                           .max_length = 4095 };
static const struct schema string_name = { .kinds = SCHEMA_STRING,
                                           .non_empty = true,
                                           .max_length = 255 };
static const struct schema boolean = { .kinds = SCHEMA_BOOL };
static const struct schema pattern_list = { .kinds = SCHEMA_ARRAY,
                                            .items = &string_name,
                                            .min_items = 1,
                                            .max_items = CONFIG_MAX_PATTERNS };

#define INT_RANGE(lo, hi)                                                               \
        {                                                                               \
                .kinds = SCHEMA_INTEGER, .has_min = true, .min = (lo), .has_max = true, \
                .max = (hi)                                                             \
        }
#define NUM_RANGE(lo, hi)                                                                          \
        {                                                                                          \
                .kinds = SCHEMA_NUMBER, .has_min = true, .min = (lo), .has_max = true, .max = (hi) \
        }

static const struct schema device_id = INT_RANGE(0, 1023);
static const struct schema devices = {
        .kinds = SCHEMA_INTEGER | SCHEMA_ARRAY | SCHEMA_STRING,
        .expected = "a device count, a list of device ids, or \"auto\"",
        .has_min = true,
        .min = 1,
        .has_max = true,
        .max = CONFIG_MAX_DEVICES,
        .items = &device_id,
        .min_items = 1,
        .max_items = CONFIG_MAX_DEVICES,
        .choices = (const char *const[]){ "auto", NULL },
};

static const struct schema rlimits = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "address_space_mb", &(const struct schema)INT_RANGE(64, 1 << 24), false },
                { "cpu_s", &(const struct schema)INT_RANGE(1, 86400), false },
                { "file_size_mb", &(const struct schema)INT_RANGE(1, 1 << 20), false },
                { "processes", &(const struct schema)INT_RANGE(1, 1 << 20), false },
                { "scratch_mb", &(const struct schema)INT_RANGE(1, 1 << 24), false },
                { NULL, NULL, false },
            },
};

static const struct schema episode = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "budget", &(const struct schema)INT_RANGE(1, 100000), false },
                { "rounds", &(const struct schema)INT_RANGE(1, 1000), false },
                { "stage1_steps", &(const struct schema)INT_RANGE(0, 100000), false },
                { "stage2_steps", &(const struct schema)INT_RANGE(0, 100000), false },
                { "turn_patience", &(const struct schema)INT_RANGE(0, 100000), false },
                { "first_stage", &(const struct schema)INT_RANGE(1, 2), false },
                { "eval_timeout_s", &(const struct schema)NUM_RANGE(1, 86400), false },
                { "wall_budget_s", &(const struct schema)NUM_RANGE(10, 30 * 86400), false },
                { "on_supersede",
                  &(const struct schema){ .kinds = SCHEMA_STRING,
                                          .choices =
                                              (const char *const[]){ "finish", "cancel", NULL } },
                  false },
                { "rlimits", &rlimits, false },
                { NULL, NULL, false },
            },
};

static const struct schema repo = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "path", &string_path, true },
                { "branches", &pattern_list, false },
                { "operators", &pattern_list, false },
                { "llm_allowed", &boolean, false },
                { NULL, NULL, false },
            },
};

static const struct schema publish = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "prefix", &string_name, false },
                { "min_speedup", &(const struct schema)NUM_RANGE(1.0, 1000.0), false },
                { "post_publish_hook", &string_path, false },
                { NULL, NULL, false },
            },
};

static const struct schema llm = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "endpoint", &string_path, true },
                { "model", &string_name, true },
                { "embedding_model", &string_name, false },
                { "api_key_file", &string_path, false },
                { "api_key_env", &string_name, false },
                { "timeout_s", &(const struct schema)NUM_RANGE(1, 3600), false },
                { "max_tokens", &(const struct schema)INT_RANGE(16, 1 << 20), false },
                { "temperature", &(const struct schema)NUM_RANGE(0, 2), false },
                { "max_concurrency", &(const struct schema)INT_RANGE(1, 64), false },
                { "episode_token_budget", &(const struct schema)INT_RANGE(0, 1e12), false },
                { "allow_loopback_for_all_repos", &boolean, false },
                { NULL, NULL, false },
            },
};

/* What the ascend backend's builds need besides the toolkit (docs/real-npus.md). */
static const struct schema ascend = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "third_lib_path", &string_path, false },
                { NULL, NULL, false },
            },
};

static const struct schema limits = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "store_max_bytes", &(const struct schema)INT_RANGE(1 << 20, 1e15), false },
                { "cache_max_bytes", &(const struct schema)INT_RANGE(1 << 20, 1e15), false },
                { "queue_max_items", &(const struct schema)INT_RANGE(1, 1e7), false },
                { "min_free_bytes", &(const struct schema)INT_RANGE(0, 1e15), false },
                { "control_connections", &(const struct schema)INT_RANGE(1, 4096), false },
                { "control_request_s", &(const struct schema)INT_RANGE(1, 3600), false },
                { NULL, NULL, false },
            },
};

/* Lab machines under Slurm (docs/fleet.md). */
static const struct schema fleet = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "engine",
                  &(const struct schema){ .kinds = SCHEMA_STRING,
                                          .choices = (const char *const[]){ "slurm", NULL } },
                  true },
                { "partition", &string_name, false },
                { "gres", &string_name, false },
                { "account", &string_name, false },
                { "shared_dir", &string_path, true },
                { "time_limit_s", &(const struct schema)NUM_RANGE(60, 366 * 86400), false },
                { "shared_max_bytes", &(const struct schema)INT_RANGE(1 << 20, 1e15), false },
                /* the scheduler's slots (daemon/scheduler-slots.h) */
                { "max_jobs", &(const struct schema)INT_RANGE(1, 64), false },
                { "device_env", &string_name, false },
                { NULL, NULL, false },
            },
};

static const struct schema config_schema = {
        .kinds = SCHEMA_OBJECT,
        .fields =
            (const struct schema_field[]){
                { "state_dir", &string_path, false },
                { "socket", &string_path, false },
                { "backend",
                  &(const struct schema){ .kinds = SCHEMA_STRING,
                                          .choices =
                                              (const char *const[]){ "sim", "ascend", NULL } },
                  false },
                { "platform", &string_name, false },
                { "toolkit", &string_path, false },
                { "ascend", &ascend, false },
                { "devices", &devices, false },
                { "max_parallel_compiles", &(const struct schema)INT_RANGE(1, 256), false },
                { "sandbox",
                  &(const struct schema){ .kinds = SCHEMA_STRING,
                                          .choices = (const char *const[]){ "on", "off", NULL } },
                  false },
                { "log_level",
                  &(const struct schema){ .kinds = SCHEMA_STRING,
                                          .choices =
                                              (const char *const[]){ "err", "warning", "notice",
                                                                     "info", "debug", NULL } },
                  false },
                { "episode", &episode, false },
                { "repos",
                  &(const struct schema){
                      .kinds = SCHEMA_ARRAY, .items = &repo, .max_items = CONFIG_MAX_REPOS },
                  false },
                { "publish", &publish, false },
                { "llm", &llm, false },
                { "limits", &limits, false },
                { "fleet", &fleet, false },
                { NULL, NULL, false },
            },
};

/* ------------------------------------------------------------ helpers */

/* Joins two path pieces into a new string. */
static char *path_join(const char *a, const char *b)
{
        char *s = NULL;

        if (asprintf(&s, "%s/%s", a, b) < 0)
                return NULL;
        return s;
}

/* Expands a leading "~/" with $HOME; returns a new string. */
static char *expand_home(const char *path)
{
        const char *home = getenv("HOME");

        if (path[0] == '~' && (path[1] == '/' || path[1] == '\0') && home && *home)
                return path_join(home, path[1] ? path + 2 : "");
        return strdup(path);
}

static char *string_or_default(const json_t *obj, const char *key, const char *fallback)
{
        const json_t *v = json_object_get(obj, key);

        if (v)
                return expand_home(json_string_value(v));
        return fallback ? strdup(fallback) : NULL;
}

static double number_or(const json_t *obj, const char *key, double fallback)
{
        const json_t *v = json_object_get(obj, key);
        return v ? json_number_value(v) : fallback;
}

static bool bool_or(const json_t *obj, const char *key, bool fallback)
{
        const json_t *v = json_object_get(obj, key);
        return v ? json_is_true(v) : fallback;
}

static int copy_patterns(const json_t *list, const char *const *fallback, char ***ret,
                         size_t *ret_n)
{
        size_t n = list ? json_array_size(list) : 0;
        char **out;

        if (!list) {
                while (fallback && fallback[n])
                        n++;
        }
        out = calloc(n + 1, sizeof(*out));
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                out[i] = strdup(list ? json_string_value(json_array_get(list, i)) : fallback[i]);
                if (!out[i]) {
                        for (size_t j = 0; j < i; j++)
                                free(out[j]);
                        free(out);
                        return -ENOMEM;
                }
        }
        *ret = out;
        *ret_n = n;
        return 0;
}

static void free_patterns(char **list, size_t n)
{
        for (size_t i = 0; list && i < n; i++)
                free(list[i]);
        free(list);
}

/*
 * State lives in $STATE_DIRECTORY under systemd, else in XDG state.  The
 * object cache alone may live elsewhere, $ASCENDOPT_CACHE_DIR, so that
 * state directories share what they compiled (the cache is keyed by
 * content, without paths; make check shares one across the suite).
 */
int state_path(char *buf, size_t size, const char *state_dir, enum state_part part)
{
        static const char *const names[] = {
                [STATE_STORE] = "store",
                [STATE_SCRATCH] = "scratch",
                [STATE_CACHE] = "cache/objects",
        };
        const char *cache = getenv("ASCENDOPT_CACHE_DIR");

        if (part == STATE_CACHE && cache && *cache)
                return format_path(buf, size, "%s", cache);
        return format_path(buf, size, "%s/%s", state_dir, names[part]);
}

/* The first directory of a systemd list such as STATE_DIRECTORY="a:b", or NULL. */
static const char *first_of(const char *list, char *buf, size_t size)
{
        size_t len;

        if (!list || !*list)
                return NULL;
        len = strcspn(list, ":");
        if (len >= size)
                return NULL;
        memcpy(buf, list, len);
        buf[len] = '\0';
        return buf;
}

int config_default_state_dir(char *buf, size_t size)
{
        const char *env = getenv("ASCENDOPT_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME");
        const char *home = getenv("HOME");
        char unit[PATH_MAX];

        if (first_of(getenv("STATE_DIRECTORY"), unit, sizeof(unit)))
                return format_path(buf, size, "%s", unit);
        if (env && *env)
                return format_path(buf, size, "%s", env);
        if (xdg && *xdg)
                return format_path(buf, size, "%s/ascendopt", xdg);
        if (home && *home)
                return format_path(buf, size, "%s/.local/state/ascendopt", home);
        return format_path(buf, size, "/var/lib/ascendopt");
}

int config_default_socket(char *buf, size_t size)
{
        const char *env = getenv("ASCENDOPT_SOCKET"), *xdg = getenv("XDG_RUNTIME_DIR");
        char unit[PATH_MAX];

        if (first_of(getenv("RUNTIME_DIRECTORY"), unit, sizeof(unit)))
                return format_path(buf, size, "%s/ascendoptd.sock", unit);
        if (env && *env)
                return format_path(buf, size, "%s", env);
        if (xdg && *xdg)
                return format_path(buf, size, "%s/ascendopt/ascendoptd.sock", xdg);
        return format_path(buf, size, "/run/ascendopt/ascendoptd.sock");
}

static char *default_state_dir(void)
{
        char buf[PATH_MAX];

        return config_default_state_dir(buf, sizeof(buf)) == 0 ? strdup(buf) : NULL;
}

static char *default_socket(void)
{
        char buf[PATH_MAX];

        return config_default_socket(buf, sizeof(buf)) == 0 ? strdup(buf) : NULL;
}

static int default_compiles(void)
{
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n < 1 ? 1 : (n > 256 ? 256 : (int)n);
}

/* ------------------------------------------------------------ loading */

static int load_repos(struct config *c, const json_t *list, char *err, size_t size)
{
        static const char *const default_branches[] = { "main", "master", NULL };
        size_t n = json_array_size(list);
        int r;

        c->repos = calloc(n ? n : 1, sizeof(*c->repos));
        if (!c->repos)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const json_t *obj = json_array_get(list, i);
                struct config_repo *repo = &c->repos[i];

                c->n_repos = i + 1;
                repo->path = string_or_default(obj, "path", NULL);
                if (!repo->path)
                        return -ENOMEM;
                if (repo->path[0] != '/')
                        return format_error(err, size, -EINVAL,
                                            "%s: .repos[%zu].path: must be an absolute path "
                                            "(or start with ~/), got \"%s\"",
                                            c->source, i, repo->path);
                for (size_t j = 0; j < i; j++)
                        if (strcmp(c->repos[j].path, repo->path) == 0)
                                return format_error(err, size, -EINVAL,
                                                    "%s: .repos[%zu].path: \"%s\" is already "
                                                    "listed as .repos[%zu]",
                                                    c->source, i, repo->path, j);
                r = copy_patterns(json_object_get(obj, "branches"), default_branches,
                                  &repo->branches, &repo->n_branches);
                if (r == 0)
                        r = copy_patterns(json_object_get(obj, "operators"), NULL, &repo->operators,
                                          &repo->n_operators);
                if (r < 0)
                        return r;
                repo->llm_allowed = bool_or(obj, "llm_allowed", false);
        }
        return 0;
}

static int load_devices(struct config *c, const json_t *v, char *err, size_t size)
{
        if (!v) {
                c->devices_auto = c->backend == CONFIG_BACKEND_ASCEND;
                c->device_count = c->devices_auto ? 0 : 1;
                return 0;
        }
        if (json_is_string(v)) {
                if (c->backend == CONFIG_BACKEND_SIM)
                        return format_error(err, size, -EINVAL,
                                            "%s: .devices: \"auto\" needs the ascend backend; "
                                            "give the sim a device count such as 2",
                                            c->source);
                c->devices_auto = true;
                return 0;
        }
        if (json_is_integer(v)) {
                c->device_count = (int)json_integer_value(v);
                return 0;
        }
        if (c->backend == CONFIG_BACKEND_SIM)
                return format_error(err, size, -EINVAL,
                                    "%s: .devices: a list of device ids needs the ascend "
                                    "backend; give the sim a device count such as 2",
                                    c->source);
        c->n_device_ids = json_array_size(v);
        for (size_t i = 0; i < c->n_device_ids; i++) {
                c->device_ids[i] = (int)json_integer_value(json_array_get(v, i));
                for (size_t j = 0; j < i; j++)
                        if (c->device_ids[j] == c->device_ids[i])
                                return format_error(err, size, -EINVAL,
                                                    "%s: .devices[%zu]: device %d is listed twice",
                                                    c->source, i, c->device_ids[i]);
        }
        c->device_count = (int)c->n_device_ids;
        return 0;
}

/* Whether prefix + "x" is a valid branch name for git ('..', '@{', control characters... are not). */
static bool prefix_makes_branch_names(const char *prefix)
{
        char name[512];
        int valid = 0;

        if (format_path(name, sizeof(name), "refs/heads/%sx", prefix) < 0)
                return false;
        if (git_libgit2_init() < 0)
                return false;
        if (git_reference_name_is_valid(&valid, name) < 0)
                valid = 0;
        git_libgit2_shutdown();
        return valid;
}

/* What sbatch takes as one argument: a Slurm name, a GRES or a list of them. */
static bool slurm_word(const char *s)
{
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && !strchr("_.:,-", *s))
                        return false;
        return true;
}

static bool env_name(const char *s)
{
        if (!isalpha((unsigned char)*s) && *s != '_')
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && *s != '_')
                        return false;
        return true;
}

static int load_fleet(struct config *c, const json_t *obj, char *err, size_t size)
{
        static const char *const words[] = { "partition", "gres", "account" };
        struct config_fleet *f = &c->fleet;

        if (!obj)
                return 0;
        f->enabled = true;
        f->partition = string_or_default(obj, "partition", NULL);
        f->gres = string_or_default(obj, "gres", "npu:1");
        f->account = string_or_default(obj, "account", NULL);
        f->shared_dir = string_or_default(obj, "shared_dir", NULL);
        f->device_env = string_or_default(obj, "device_env", "ASCENDOPT_DEVICE");
        /* the episode's own limit, and room to export it and collect its files */
        f->time_limit_s = number_or(obj, "time_limit_s", c->episode.wall_budget_s + 600);
        f->shared_max_bytes = (uint64_t)number_or(obj, "shared_max_bytes", 10737418240.0);
        f->max_jobs = (int)number_or(obj, "max_jobs", 8);
        if (!f->gres || !f->shared_dir || !f->device_env)
                return -ENOMEM;
        for (size_t i = 0; i < ARRAY_SIZE(words); i++) {
                const char *value = i == 0 ? f->partition : i == 1 ? f->gres : f->account;
                if (value && !slurm_word(value))
                        return format_error(err, size, -EINVAL,
                                            "%s: .fleet.%s: \"%s\" is not a Slurm name: use "
                                            "letters, digits and _.:,- only",
                                            c->source, words[i], value);
        }
        if (f->shared_dir[0] != '/')
                return format_error(err, size, -EINVAL,
                                    "%s: .fleet.shared_dir: must be an absolute path that every "
                                    "node mounts at the same place, got \"%s\"",
                                    c->source, f->shared_dir);
        if (!env_name(f->device_env))
                return format_error(err, size, -EINVAL,
                                    "%s: .fleet.device_env: \"%s\" is not an environment "
                                    "variable's name",
                                    c->source, f->device_env);
        return 0;
}

static int load_sections(struct config *c, const json_t *doc, char *err, size_t size)
{
        const json_t *ep = json_object_get(doc, "episode");
        const json_t *rl = json_object_get(ep, "rlimits");
        const json_t *pub = json_object_get(doc, "publish");
        const json_t *llm_obj = json_object_get(doc, "llm");
        const json_t *lim = json_object_get(doc, "limits");
        const json_t *supersede = json_object_get(ep, "on_supersede");
        int r;

        c->episode.budget = (int)number_or(ep, "budget", 40);
        c->episode.rounds = (int)number_or(ep, "rounds", 2);
        c->episode.stage1_steps = (int)number_or(ep, "stage1_steps", 10);
        c->episode.stage2_steps = (int)number_or(ep, "stage2_steps", 10);
        c->episode.turn_patience = (int)number_or(ep, "turn_patience", 0);
        c->episode.first_stage = (int)number_or(ep, "first_stage", 1);
        c->episode.eval_timeout_s = number_or(ep, "eval_timeout_s", 120);
        c->episode.wall_budget_s = number_or(ep, "wall_budget_s", 4 * 3600);
        c->episode.cancel_superseded =
            supersede && strcmp(json_string_value(supersede), "cancel") == 0;
        c->episode.rlimits.address_space_mb =
            (uint64_t)number_or(rl, "address_space_mb", CHILD_DEFAULT_ADDRESS_SPACE_MB);
        c->episode.rlimits.cpu_s = (uint64_t)number_or(rl, "cpu_s", CHILD_DEFAULT_CPU_S);
        c->episode.rlimits.file_size_mb =
            (uint64_t)number_or(rl, "file_size_mb", CHILD_DEFAULT_FILE_SIZE_MB);
        c->episode.rlimits.processes =
            (uint64_t)number_or(rl, "processes", CHILD_DEFAULT_PROCESSES);
        c->episode.rlimits.scratch_mb =
            (uint64_t)number_or(rl, "scratch_mb", CHILD_DEFAULT_SCRATCH_MB);
        if (c->episode.stage1_steps + c->episode.stage2_steps == 0)
                return format_error(err, size, -EINVAL,
                                    "%s: .episode: stage1_steps and stage2_steps are both 0, "
                                    "so an episode could never evaluate anything",
                                    c->source);

        c->publish.prefix = string_or_default(pub, "prefix", "ascendopt/");
        c->publish.min_speedup = number_or(pub, "min_speedup", 1.02);
        c->publish.post_publish_hook = string_or_default(pub, "post_publish_hook", NULL);
        if (!c->publish.prefix)
                return -ENOMEM;
        if (c->publish.prefix[strlen(c->publish.prefix) - 1] != '/' ||
            strncmp(c->publish.prefix, "refs/", 5) == 0 || c->publish.prefix[0] == '/' ||
            !prefix_makes_branch_names(c->publish.prefix))
                return format_error(err, size, -EINVAL,
                                    "%s: .publish.prefix: must be a branch name prefix ending "
                                    "in '/' that git accepts (no '..', '@{', spaces or "
                                    "control characters), such as \"ascendopt/\", got \"%s\"",
                                    c->source, c->publish.prefix);

        c->llm.enabled = llm_obj != NULL;
        c->llm.endpoint = string_or_default(llm_obj, "endpoint", NULL);
        c->llm.model = string_or_default(llm_obj, "model", NULL);
        c->llm.embedding_model = string_or_default(llm_obj, "embedding_model", NULL);
        c->llm.api_key_file = string_or_default(llm_obj, "api_key_file", NULL);
        c->llm.api_key_env = string_or_default(llm_obj, "api_key_env", NULL);
        c->llm.timeout_s = number_or(llm_obj, "timeout_s", 120);
        c->llm.max_tokens = (int)number_or(llm_obj, "max_tokens", 4096);
        c->llm.temperature = number_or(llm_obj, "temperature", 0.7);
        c->llm.max_concurrency = (int)number_or(llm_obj, "max_concurrency", 2);
        c->llm.episode_token_budget = (int64_t)number_or(llm_obj, "episode_token_budget", 200000);
        c->llm.allow_loopback_for_all_repos =
            bool_or(llm_obj, "allow_loopback_for_all_repos", false);
        if (c->llm.api_key_file && c->llm.api_key_env)
                return format_error(err, size, -EINVAL,
                                    "%s: .llm: give api_key_file or api_key_env, not both",
                                    c->source);

        c->limits.store_max_bytes = (uint64_t)number_or(lim, "store_max_bytes", 8e9);
        c->limits.cache_max_bytes = (uint64_t)number_or(lim, "cache_max_bytes", 4e9);
        c->limits.queue_max_items = (uint64_t)number_or(lim, "queue_max_items", 10000);
        c->limits.min_free_bytes = (uint64_t)number_or(lim, "min_free_bytes", 1073741824.0);
        c->limits.control_connections = (unsigned)number_or(lim, "control_connections", 64);
        c->limits.control_request_s = (unsigned)number_or(lim, "control_request_s", 30);

        r = load_fleet(c, json_object_get(doc, "fleet"), err, size);
        if (r < 0)
                return r;
        r = load_repos(c, json_object_get(doc, "repos"), err, size);
        return r;
}

int config_parse(const char *text, size_t len, const char *source, struct config **ret_config,
                 char *err, size_t err_size)
{
        struct config *c = NULL;
        json_t *doc = NULL;
        const json_t *backend, *level;
        int r;

        if (!source)
                source = "<config>";
        r = json_parse_text(text, len, source, &doc, err, err_size);
        if (r < 0)
                return r;
        r = schema_validate(doc, &config_schema, source, err, err_size);
        if (r < 0)
                goto out;

        c = calloc(1, sizeof(*c));
        if (!c) {
                r = -ENOMEM;
                goto out;
        }
        c->source = strdup(source);
        backend = json_object_get(doc, "backend");
        c->backend = backend && strcmp(json_string_value(backend), "ascend") == 0
                         ? CONFIG_BACKEND_ASCEND
                         : CONFIG_BACKEND_SIM;
        c->state_dir = json_object_get(doc, "state_dir") ? string_or_default(doc, "state_dir", NULL)
                                                         : default_state_dir();
        c->socket = json_object_get(doc, "socket") ? string_or_default(doc, "socket", NULL)
                                                   : default_socket();
        c->platform = string_or_default(doc, "platform", "Ascend910B2");
        c->platform_set = json_object_get(doc, "platform") != NULL;
        if (json_object_get(doc, "toolkit")) {
                if (c->backend != CONFIG_BACKEND_ASCEND) {
                        r = format_error(err, err_size, -EINVAL,
                                         "%s: .toolkit: the CANN toolkit is used only by the "
                                         "ascend backend; set \"backend\": \"ascend\" or drop it",
                                         source);
                        goto out;
                }
                c->toolkit = string_or_default(doc, "toolkit", NULL);
                if (!c->toolkit) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        if (json_object_get(doc, "ascend")) {
                const json_t *a = json_object_get(doc, "ascend");
                if (c->backend != CONFIG_BACKEND_ASCEND) {
                        r = format_error(err, err_size, -EINVAL,
                                         "%s: .ascend: only the ascend backend reads it; set "
                                         "\"backend\": \"ascend\" or drop it",
                                         source);
                        goto out;
                }
                if (json_object_get(a, "third_lib_path")) {
                        c->third_lib_path = string_or_default(a, "third_lib_path", NULL);
                        if (!c->third_lib_path) {
                                r = -ENOMEM;
                                goto out;
                        }
                }
        }
        c->max_parallel_compiles = (int)number_or(doc, "max_parallel_compiles", default_compiles());
        c->sandbox_off = json_object_get(doc, "sandbox") &&
                         strcmp(json_string_value(json_object_get(doc, "sandbox")), "off") == 0;
        c->log_level = LOG_INFO;
        level = json_object_get(doc, "log_level");
        if (level)
                log_level_from_string(json_string_value(level), &c->log_level);
        if (!c->source || !c->state_dir || !c->socket || !c->platform) {
                r = -ENOMEM;
                goto out;
        }
        if (strlen(c->socket) >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
                r = format_error(err, err_size, -EINVAL,
                                 "%s: .socket: \"%s\" is longer than a unix socket path may be "
                                 "(%zu bytes); choose a shorter path",
                                 source, c->socket,
                                 sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1);
                goto out;
        }
        r = load_devices(c, json_object_get(doc, "devices"), err, err_size);
        if (r < 0)
                goto out;
        r = load_sections(c, doc, err, err_size);
        if (r < 0)
                goto out;
        if (c->backend == CONFIG_BACKEND_ASCEND && !c->sandbox_off) {
                /* fail closed: nothing runs unsandboxed unless the config says so */
                r = format_error(err, err_size, -EINVAL, "%s: .backend: %s", source,
                                 ASCEND_UNSANDBOXED_HELP "; add \"sandbox\": \"off\" to "
                                                         "accept that on this NPU host");
                goto out;
        }
        *ret_config = c;
        c = NULL;
out:
        if (r == -ENOMEM && err && err_size)
                snprintf(err, err_size, "%s: out of memory", source);
        config_free(c);
        json_decref(doc);
        return r;
}

int config_load(const char *path, struct config **ret_config, char *err, size_t err_size)
{
        struct stat st;
        char *text = NULL;
        FILE *f = NULL;
        size_t got;
        int fd, r;

        /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below) */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        f = fd >= 0 ? fdopen(fd, "r") : NULL;
        if (!f) {
                r = -errno;
                snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
                if (fd >= 0)
                        close(fd);
                goto out;
        }
        if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
                r = -EINVAL;
                snprintf(err, err_size, "%s: not a regular file", path);
                goto out;
        }
        if ((uint64_t)st.st_size > CONFIG_MAX_FILE_BYTES) {
                r = -EFBIG;
                snprintf(err, err_size, "%s: %lld bytes is too large for a config (limit %u)", path,
                         (long long)st.st_size, CONFIG_MAX_FILE_BYTES);
                goto out;
        }
        text = malloc((size_t)st.st_size + 1);
        if (!text) {
                r = -ENOMEM;
                goto out;
        }
        got = fread(text, 1, (size_t)st.st_size, f);
        if (ferror(f)) {
                r = -EIO;
                snprintf(err, err_size, "%s: read error", path);
                goto out;
        }
        text[got] = '\0';
        r = config_parse(text, got, path, ret_config, err, err_size);
out:
        free(text);
        if (f)
                fclose(f);
        return r;
}

const char *config_default_path(char *buf, size_t size)
{
        const char *xdg = getenv("XDG_CONFIG_HOME");
        const char *home = getenv("HOME");

        if (geteuid() == 0)
                snprintf(buf, size, "/etc/ascendopt/ascendoptd.json");
        else if (xdg && *xdg)
                snprintf(buf, size, "%s/ascendopt/ascendoptd.json", xdg);
        else
                snprintf(buf, size, "%s/.config/ascendopt/ascendoptd.json", home ? home : "");
        return buf;
}

const char *config_backend_name(enum config_backend backend)
{
        return backend == CONFIG_BACKEND_ASCEND ? "ascend" : "sim";
}

struct config *config_free(struct config *c)
{
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_repos; i++) {
                free(c->repos[i].path);
                free_patterns(c->repos[i].branches, c->repos[i].n_branches);
                free_patterns(c->repos[i].operators, c->repos[i].n_operators);
        }
        free(c->repos);
        free(c->publish.prefix);
        free(c->publish.post_publish_hook);
        free(c->llm.endpoint);
        free(c->llm.model);
        free(c->llm.embedding_model);
        free(c->llm.api_key_file);
        free(c->llm.api_key_env);
        free(c->source);
        free(c->state_dir);
        free(c->socket);
        free(c->platform);
        free(c->toolkit);
        free(c->third_lib_path);
        free(c->fleet.partition);
        free(c->fleet.gres);
        free(c->fleet.account);
        free(c->fleet.shared_dir);
        free(c->fleet.device_env);
        free(c);
        return NULL;
}
