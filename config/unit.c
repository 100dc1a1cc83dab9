/* SPDX-License-Identifier: MIT */
/*
 * The installed systemd unit of ascendoptd and its drop-ins, read the way
 * systemd merges them, for the few [Service] settings that decide what the
 * daemon may touch: its user and groups, its state directory and the
 * device nodes it may open (ascendopt doctor reports them).
 */
#include "config.h"

#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A unit file larger than this is surely not one. */
#define UNIT_MAX_FILE_BYTES (256u << 10)

/* systemd's system unit search path, highest priority first (systemd.unit(5)) */
static const char *const default_unit_dirs[] = { "/etc/systemd/system", "/run/systemd/system",
                                                 "/usr/local/lib/systemd/system",
                                                 "/usr/lib/systemd/system", NULL };

/* Appends an owned copy of value to a list capped at CONFIG_UNIT_MAX_LIST. */
static int list_add(char ***list, size_t *n, const char *value, const char *file, const char *key,
                    char *err, size_t err_size)
{
        char **grown;

        if (*n >= CONFIG_UNIT_MAX_LIST)
                return format_error(err, err_size, -E2BIG, "%s: %s= has more than %d entries", file,
                                    key, CONFIG_UNIT_MAX_LIST);
        grown = realloc(*list, (*n + 1) * sizeof(**list));
        if (!grown)
                return -ENOMEM;
        *list = grown;
        grown[*n] = strdup(value);
        if (!grown[*n])
                return -ENOMEM;
        (*n)++;
        return 0;
}

static void list_clear(char ***list, size_t *n)
{
        for (size_t i = 0; i < *n; i++)
                free((*list)[i]);
        free(*list);
        *list = NULL;
        *n = 0;
}

/* A list setting: words added one by one, or, with whole_value, the value as one entry. */
static int list_assign(char ***list, size_t *n, const char *value, bool whole_value,
                       const char *file, const char *key, char *err, size_t err_size)
{
        char word[512];
        const char *p = value;
        int r = 0;

        if (!*value) { /* an empty assignment resets the list */
                list_clear(list, n);
                return 0;
        }
        if (whole_value)
                return list_add(list, n, value, file, key, err, err_size);
        while (r == 0 && *p) {
                size_t len = strcspn(p, " \t");
                if (len && len < sizeof(word)) {
                        memcpy(word, p, len);
                        word[len] = '\0';
                        r = list_add(list, n, word, file, key, err, err_size);
                }
                p += len;
                p += strspn(p, " \t");
        }
        return r;
}

static int single_assign(char **field, const char *value)
{
        free(*field);
        *field = *value ? strdup(value) : NULL;
        return *value && !*field ? -ENOMEM : 0;
}

static bool parse_boolean(const char *value)
{
        return strcasecmp(value, "yes") == 0 || strcasecmp(value, "true") == 0 ||
               strcasecmp(value, "on") == 0 || strcmp(value, "1") == 0;
}

static char *trim(char *s)
{
        char *end;

        s += strspn(s, " \t");
        end = s + strlen(s);
        while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                *--end = '\0';
        return s;
}

/* Applies one unit file's [Service] settings on top of what unit holds. */
static int apply_file(struct config_unit *unit, const char *path, char *err, size_t err_size)
{
        char *text = NULL, *line, *save = NULL;
        bool service = false;
        size_t len;
        int r = read_text_file(path, UNIT_MAX_FILE_BYTES, &text, &len);

        if (r < 0)
                return format_error(err, err_size, r, "%s: cannot read: %s", path, strerror(-r));
        for (line = strtok_r(text, "\n", &save); line && r == 0;
             line = strtok_r(NULL, "\n", &save)) {
                char *key = trim(line), *value, *eq;
                if (!*key || *key == '#' || *key == ';')
                        continue;
                if (*key == '[') {
                        service = strcmp(key, "[Service]") == 0;
                        continue;
                }
                eq = strchr(key, '=');
                if (!service || !eq)
                        continue;
                *eq = '\0';
                key = trim(key);
                value = trim(eq + 1);
                if (strcmp(key, "User") == 0)
                        r = single_assign(&unit->user, value);
                else if (strcmp(key, "Group") == 0)
                        r = single_assign(&unit->group, value);
                else if (strcmp(key, "DevicePolicy") == 0)
                        r = single_assign(&unit->device_policy, value);
                else if (strcmp(key, "PrivateDevices") == 0)
                        unit->private_devices = parse_boolean(value);
                else if (strcmp(key, "SupplementaryGroups") == 0)
                        r = list_assign(&unit->supplementary_groups, &unit->n_supplementary_groups,
                                        value, false, path, key, err, err_size);
                else if (strcmp(key, "StateDirectory") == 0)
                        r = list_assign(&unit->state_directories, &unit->n_state_directories, value,
                                        false, path, key, err, err_size);
                else if (strcmp(key, "DeviceAllow") == 0)
                        r = list_assign(&unit->device_allow, &unit->n_device_allow, value, true,
                                        path, key, err, err_size);
        }
        free(text);
        return r;
}

static int compare_names(const void *a, const void *b)
{
        const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');

        return strcmp(x ? x + 1 : *(char *const *)a, y ? y + 1 : *(char *const *)b);
}

static bool name_taken(char *const *paths, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(strrchr(paths[i], '/') + 1, name) == 0)
                        return true;
        return false;
}

/* Adds dir/NAME.d/FILE.conf whose file names no earlier directory took. */
static int collect_drop_ins(struct config_unit *unit, const char *dir, const char *name, char *err,
                            size_t err_size)
{
        char path[PATH_MAX], file[PATH_MAX];
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (format_path(path, sizeof(path), "%s/%s.d", dir, name) < 0)
                return 0;
        d = opendir(path);
        while (d && r == 0 && (e = readdir(d))) {
                size_t len = strlen(e->d_name);
                if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".conf") != 0 ||
                    name_taken(unit->drop_ins, unit->n_drop_ins, e->d_name) ||
                    format_path(file, sizeof(file), "%s/%s", path, e->d_name) < 0)
                        continue;
                r = list_add(&unit->drop_ins, &unit->n_drop_ins, file, path, "drop-ins", err,
                             err_size);
        }
        if (d)
                closedir(d);
        return r;
}

int config_unit_read(const char *name, struct config_unit **ret, char *err, size_t err_size)
{
        const char *dirs[CONFIG_UNIT_MAX_LIST + 1];
        const char *env = getenv("ASCENDOPT_UNIT_DIR");
        char *env_copy = NULL, *save = NULL, path[PATH_MAX];
        struct config_unit *unit = calloc(1, sizeof(*unit));
        size_t n_dirs = 0;
        int r = 0;

        if (!unit)
                return -ENOMEM;
        if (env && *env) {
                env_copy = strdup(env);
                if (!env_copy) {
                        r = -ENOMEM;
                        goto out;
                }
                for (char *d = strtok_r(env_copy, ":", &save); d && n_dirs < CONFIG_UNIT_MAX_LIST;
                     d = strtok_r(NULL, ":", &save))
                        dirs[n_dirs++] = d;
        } else {
                for (; default_unit_dirs[n_dirs]; n_dirs++)
                        dirs[n_dirs] = default_unit_dirs[n_dirs];
        }
        for (size_t i = 0; i < n_dirs && !unit->path; i++) {
                if (format_path(path, sizeof(path), "%s/%s", dirs[i], name) == 0 &&
                    access(path, F_OK) == 0) {
                        unit->path = strdup(path);
                        if (!unit->path)
                                r = -ENOMEM;
                }
        }
        if (r == 0 && !unit->path)
                r = format_error(err, err_size, -ENOENT, "no %s installed", name);
        for (size_t i = 0; i < n_dirs && r == 0; i++)
                r = collect_drop_ins(unit, dirs[i], name, err, err_size);
        if (r < 0)
                goto out;
        qsort(unit->drop_ins, unit->n_drop_ins, sizeof(*unit->drop_ins), compare_names);
        r = apply_file(unit, unit->path, err, err_size);
        for (size_t i = 0; i < unit->n_drop_ins && r == 0; i++)
                r = apply_file(unit, unit->drop_ins[i], err, err_size);
out:
        free(env_copy);
        if (r < 0)
                unit = config_unit_free(unit);
        *ret = unit;
        return r;
}

struct config_unit *config_unit_free(struct config_unit *unit)
{
        if (!unit)
                return NULL;
        free(unit->path);
        list_clear(&unit->drop_ins, &unit->n_drop_ins);
        free(unit->user);
        free(unit->group);
        list_clear(&unit->supplementary_groups, &unit->n_supplementary_groups);
        list_clear(&unit->state_directories, &unit->n_state_directories);
        free(unit->device_policy);
        list_clear(&unit->device_allow, &unit->n_device_allow);
        free(unit);
        return NULL;
}
