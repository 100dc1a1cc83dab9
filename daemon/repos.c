/* SPDX-License-Identifier: MIT */
/*
 * The configured repositories as the control API and the scheduler look
 * them up: one found by its path, and the branch tips of each for status.
 * Plain functions of their arguments, with no daemon state.
 */
#include "daemon-internal.h"

#include "watchers/watchers.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

const struct config_repo *daemon_find_repo(const struct config *config, const char *path)
{
        char real[PATH_MAX];

        for (size_t i = 0; i < config->n_repos; i++)
                if (strcmp(config->repos[i].path, path) == 0)
                        return &config->repos[i];
        if (realpath(path, real))
                for (size_t i = 0; i < config->n_repos; i++)
                        if (strcmp(config->repos[i].path, real) == 0)
                                return &config->repos[i];
        return NULL;
}

/*
 * Appends o, packed with error, to list: 0, also when o is text JSON
 * cannot hold (a branch name git took but not UTF-8), which is left out;
 * -ENOMEM when it or its place in list needed memory there was not.
 */
static int append_packed(json_t *list, json_t *o, const json_error_t *error)
{
        if (!o)
                return json_error_code(error) == json_error_invalid_utf8 ? 0 : -ENOMEM;
        return json_array_append_new(list, o) < 0 ? -ENOMEM : 0;
}

/* Each tip of repo's branches with the tip last recorded; NULL without memory. */
static json_t *branches_status(struct store *store, const char *repo, const struct watch_tip *tips,
                               size_t n)
{
        json_t *branches = json_array();
        json_error_t error;

        for (size_t t = 0; branches && t < n; t++) {
                char recorded[WATCH_OID_HEX];
                bool known = watch_recorded_tip(store, repo, tips[t].branch, recorded) == 0;
                if (append_packed(branches,
                                  json_pack_ex(&error, 0, "{s:s, s:s, s:s?}", "branch",
                                               tips[t].branch, "tip", tips[t].oid, "last_seen",
                                               known ? recorded : NULL),
                                  &error) < 0) {
                        json_decref(branches);
                        return NULL;
                }
        }
        return branches;
}

json_t *daemon_repos_status(struct store *store, const struct config_repo *repos, size_t n_repos,
                            const char *prefix)
{
        json_t *list = json_array();
        json_error_t error;

        for (size_t i = 0; list && i < n_repos; i++) {
                const struct config_repo *repo = &repos[i];
                struct watch_tip *tips = NULL;
                size_t n = 0;
                char err[512];
                json_t *entry;
                if (watch_list_tips(repo->path, repo->branches, repo->n_branches, prefix, &tips, &n,
                                    err, sizeof(err)) < 0) {
                        entry =
                            json_pack_ex(&error, 0, "{s:s, s:s}", "path", repo->path, "error", err);
                } else {
                        entry =
                            json_pack_ex(&error, 0, "{s:s, s:o}", "path", repo->path, "branches",
                                         branches_status(store, repo->path, tips, n));
                        watch_tips_free(tips, n);
                }
                if (append_packed(list, entry, &error) < 0) {
                        json_decref(list);
                        list = NULL;
                }
        }
        return list;
}
