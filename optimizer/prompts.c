/* SPDX-License-Identifier: MIT */
/*
 * The words an episode sends to an LLM: the prompt templates of
 * etc/ascendopt/prompts rendered into a system and a user message, and the
 * pieces they are filled with (recent results, retrieved experience,
 * profile summaries), each bounded so that one prompt stays small.
 */
#include "optimizer.h"
#include "prompts-internal.h"

#include "llm/llm.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPERIENCE_DIFF_MAX 3000 /* bytes of one entry's diff in a prompt */
#define PROFILE_MAX         4000 /* bytes of the profile summary */
#define NOTE_MAX            400  /* bytes of an answer's own words kept */

const char *prompts_find_dir(const char *config_path, char *buf, size_t size)
{
        const char *env = getenv("ASCENDOPT_PROMPTS_DIR");
        char probe[PATH_MAX + 32];

        if (env && *env)
                return env;
        if (config_path) {
                const char *slash = strrchr(config_path, '/');
                int len = slash ? (int)(slash - config_path) : 1;
                if (format_path(buf, size, "%.*s/prompts", len, slash ? config_path : ".") == 0 &&
                    format_path(probe, sizeof(probe), "%s/system.txt", buf) == 0 &&
                    access(probe, R_OK) == 0)
                        return buf;
        }
        if (program_relative_path(buf, size, "../etc/ascendopt/prompts") == 0 &&
            format_path(probe, sizeof(probe), "%s/system.txt", buf) == 0 &&
            access(probe, R_OK) == 0)
                return buf;
        if (format_path(buf, size, "%s/ascendopt/prompts", ASCENDOPT_SYSCONFDIR) == 0 &&
            format_path(probe, sizeof(probe), "%s/system.txt", buf) == 0 &&
            access(probe, R_OK) == 0)
                return buf;
        return NULL;
}

int prompts_render(const char *dir, const char *name, const json_t *vars, char **ret_system,
                   char **ret_user, char *err, size_t err_size)
{
        char path[PATH_MAX];
        char *system = NULL, *template_text = NULL, *user = NULL;
        int r;

        if (!dir) {
                snprintf(err, err_size, "no prompt templates found (set ASCENDOPT_PROMPTS_DIR)");
                return -ENOENT;
        }
        r = format_path(path, sizeof(path), "%s/system.txt", dir);
        if (r == 0)
                r = llm_prompt_load(path, &system, err, err_size);
        if (r == 0)
                r = format_path(path, sizeof(path), "%s/%s", dir, name);
        if (r == 0)
                r = llm_prompt_load(path, &template_text, err, err_size);
        if (r == 0) {
                r = llm_prompt_render(template_text, vars, &user, err, err_size);
                if (r < 0) {
                        size_t len = strlen(err);
                        snprintf(err + len, err_size - len, " (in %s)", path);
                }
        }
        free(template_text);
        if (r < 0) {
                free(system);
                return r;
        }
        *ret_system = system;
        *ret_user = user;
        return 0;
}

/* ------------------------------------------------------------ pieces */

/* The text written, or if_empty when nothing was; NULL when out of memory. */
static char *piece_take(struct strbuf *p, const char *if_empty)
{
        if (!p->buf && !p->oom)
                return strdup(if_empty);
        return strbuf_detach(p);
}

char *prompts_recent_results(const json_t *trajectory, size_t max_rows)
{
        size_t n = json_array_size(trajectory), from = n > max_rows ? n - max_rows : 0;
        struct strbuf p = { 0 };

        for (size_t i = from; i < n; i++) {
                const json_t *row = json_array_get(trajectory, i);
                const char *status = json_string_value(json_object_get(row, "status"));
                const char *what = json_string_value(json_object_get(row, "technique"));
                if (status && strcmp(status, "ok") == 0)
                        strbuf_printf(
                            &p, "- evaluation %lld (stage %lld, %s): %.2f us%s\n",
                            json_integer_value(json_object_get(row, "evaluation")),
                            json_integer_value(json_object_get(row, "stage")), what ? what : "?",
                            json_number_value(json_object_get(row, "latency_us")),
                            json_is_true(json_object_get(row, "new_best")) ? ", new best" : "");
                else
                        strbuf_printf(&p, "- evaluation %lld (stage %lld, %s): failed: %s\n",
                                      json_integer_value(json_object_get(row, "evaluation")),
                                      json_integer_value(json_object_get(row, "stage")),
                                      what ? what : "?", status ? status : "unknown");
        }
        return piece_take(&p, "(none yet)\n");
}

char *prompts_experiences(const json_t *entries)
{
        struct strbuf p = { 0 };
        size_t i;
        const json_t *e;

        json_array_foreach(entries, i, e)
        {
                const char *diff = json_string_value(json_object_get(e, "diff"));
                size_t diff_len = diff ? strlen(diff) : 0;
                strbuf_printf(
                    &p, "%zu. %s\n   %s\n   bottleneck: %s\n```diff\n%.*s%s```\n\n", i + 1,
                    json_string_value(json_object_get(e, "title")) ?: "(untitled)",
                    json_string_value(json_object_get(e, "description")) ?: "",
                    json_string_value(json_object_get(e, "bottleneck")) ?: "",
                    (int)(diff_len > EXPERIENCE_DIFF_MAX ? EXPERIENCE_DIFF_MAX : diff_len),
                    diff ? diff : "", diff_len > EXPERIENCE_DIFF_MAX ? "\n... (diff cut)\n" : "");
        }
        return piece_take(&p, "(the experience bank has no entry for this bottleneck)\n");
}

char *prompts_profile_summary(const json_t *result)
{
        const json_t *profile = json_object_get(result, "profile");
        char *text = profile ? json_dumps(profile, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

        if (!text)
                return strdup("(no profile)");
        if (strlen(text) > PROFILE_MAX)
                strcpy(text + PROFILE_MAX - 8, " ...");
        return text;
}

char *prompts_answer_note(const char *content)
{
        const char *fence = content ? strstr(content, "```") : NULL;
        const char *close = fence ? strstr(fence + 3, "\n```") : NULL;
        struct strbuf p = { 0 };
        char *note;
        size_t len;

        if (!content)
                return NULL;
        if (fence && fence > content)
                strbuf_printf(&p, "%.*s ", (int)(fence - content), content);
        if (close) {
                const char *after = strchr(close + 4, '\n');
                if (after)
                        strbuf_printf(&p, "%s", after + 1);
        }
        note = strbuf_detach(&p);
        if (!note)
                return NULL;
        for (char *c = note; *c; c++)
                if (*c == '\n' || *c == '\r' || *c == '\t')
                        *c = ' ';
        len = strlen(note);
        while (len && note[len - 1] == ' ')
                note[--len] = '\0';
        if (len > NOTE_MAX)
                strcpy(note + NOTE_MAX - 4, "...");
        if (!*note) {
                free(note);
                return NULL;
        }
        return note;
}
