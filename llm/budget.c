/* SPDX-License-Identifier: MIT */
/*
 * Per-episode token budgets.  A budget is shared by the episode that made
 * it and by the calls still running on its behalf, hence the reference
 * count: an episode may end (and free its budget) while a call it started
 * is still being cancelled.
 */
#include "llm/llm-internal.h"

#include <stdlib.h>

struct llm_budget {
        unsigned refs;
        int64_t limit;
        int64_t used;
};

struct llm_budget *llm_budget_new(int64_t limit_tokens)
{
        struct llm_budget *b = calloc(1, sizeof(*b));

        if (!b)
                return NULL;
        b->refs = 1;
        b->limit = limit_tokens < 0 ? 0 : limit_tokens;
        return b;
}

struct llm_budget *llm_budget_ref(struct llm_budget *budget)
{
        if (budget)
                budget->refs++;
        return budget;
}

struct llm_budget *llm_budget_free(struct llm_budget *budget)
{
        if (budget && --budget->refs == 0)
                free(budget);
        return NULL;
}

void llm_budget_charge(struct llm_budget *budget, int64_t tokens)
{
        if (!budget || tokens <= 0)
                return;
        if (budget->used > INT64_MAX - tokens)
                budget->used = INT64_MAX;
        else
                budget->used += tokens;
}

int64_t llm_budget_limit(const struct llm_budget *budget)
{
        return budget ? budget->limit : 0;
}

int64_t llm_budget_used(const struct llm_budget *budget)
{
        return budget ? budget->used : 0;
}

bool llm_budget_exhausted(const struct llm_budget *budget)
{
        return budget && budget->used >= budget->limit;
}
