/* SPDX-License-Identifier: MIT */
/*
 * What the files of llm/ share and callers must not see: the reference
 * counting and charging of budgets, used by the client's calls.
 */
#ifndef ASCENDOPT_LLM_INTERNAL_H
#define ASCENDOPT_LLM_INTERNAL_H

#include "llm/llm.h"

/* Takes a reference; accepts NULL and returns its argument. */
struct llm_budget *llm_budget_ref(struct llm_budget *budget);
/* Adds tokens (>= 0) to what the budget has used; accepts NULL. */
void llm_budget_charge(struct llm_budget *budget, int64_t tokens);

#endif
