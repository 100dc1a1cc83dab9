/* SPDX-License-Identifier: MIT */
/*
 * The configured repositories as the control API and the scheduler look
 * them up: one found by its path, and the branch tips of each for status.
 * Plain functions of their arguments, with no daemon state.
 */
#include "daemon-internal.h"

#include "watchers/watchers.h"

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

json_t *daemon_repos_status(struct store *store, const struct config_repo *repos, size_t n_repos,
                            const char *prefix)
{
        json_t *list = json_array();

        for (size_t i = 0; i < n_repos; i++) {
                const struct config_repo *repo = &repos[i];
                struct watch_tip *tips = NULL;
                size_t n = 0;
                char err[512];
                json_t *branches = json_array();
                if (watch_list_tips(repo->path, repo->branches, repo->n_branches, prefix, &tips, &n,
                                    err, sizeof(err)) < 0) {
                        json_array_append_new(
                            list, json_pack("{s:s, s:s}", "path", repo->path, "error", err));
                        json_decref(branches);
                        continue;
                }
                for (size_t t = 0; t < n; t++) {
                        char recorded[WATCH_OID_HEX];
                        bool known =
                            watch_recorded_tip(store, repo->path, tips[t].branch, recorded) == 0;
                        json_array_append_new(
                            branches, json_pack("{s:s, s:s, s:s?}", "branch", tips[t].branch, "tip",
                                                tips[t].oid, "last_seen", known ? recorded : NULL));
                }
                watch_tips_free(tips, n);
                json_array_append_new(
                    list, json_pack("{s:s, s:o}", "path", repo->path, "branches", branches));
        }
        return list;
}
