/* SPDX-License-Identifier: MIT */
/*
 * Prompt building for the episode's LLM steps (optimizer/prompts.c):
 * finding and rendering the templates, and the bounded pieces they are
 * filled with.  Every function returns a new string or NULL on failure.
 */
#ifndef ASCENDOPT_PROMPTS_INTERNAL_H
#define ASCENDOPT_PROMPTS_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "common/common.h"

#ifndef ASCENDOPT_SYSCONFDIR
#define ASCENDOPT_SYSCONFDIR "/etc"
#endif

/*
 * Renders dir/system.txt and dir/name with vars into the two messages.
 * -errno with a message naming the file or the missing {{field}}.
 */
int prompts_render(const char *dir, const char *name, const json_t *vars, char **ret_system,
                   char **ret_user, char *err, size_t err_size);

/* The last max_rows trajectory rows as "- evaluation N (stage S, what): 12.3 us" lines. */
char *prompts_recent_results(const json_t *trajectory, size_t max_rows);
/* Experience entries as a numbered list of title, description, bottleneck and diff. */
char *prompts_experiences(const json_t *entries);
/* A result's profile as compact JSON, cut to a few KB. */
char *prompts_profile_summary(const json_t *result);
/* The words of an answer outside its code block, on one line, cut; NULL when none. */
char *prompts_answer_note(const char *content);

#endif
