/* SPDX-License-Identifier: MIT */
/*
 * --llm CONFIG for the CLI's optimize and rewind: the "llm" section of an
 * ascendoptd.json becomes a client on the command's event loop, with the
 * prompt templates found beside that config.  Passing --llm is the user's
 * consent to send the operator's sources to that endpoint.
 */
#include "cli-internal.h"

#include "config/config.h"
#include "llm/llm.h"
#include "optimizer/optimizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_llm_open(const char *command, const char *config_path, struct event_base *base,
                 struct cli_llm *ret)
{
        struct llm_options options;
        char err[1024], *key = NULL;
        const char *prompts;
        int r;

        memset(ret, 0, sizeof(*ret));
        r = config_load(config_path, &ret->config, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "ascendopt %s: --llm: %s\n", command, err);
                return r;
        }
        if (!ret->config->llm.enabled) {
                fprintf(stderr, "ascendopt %s: --llm: %s has no \"llm\" section\n", command,
                        config_path);
                r = -EINVAL;
                goto fail;
        }
        prompts = prompts_find_dir(config_path, ret->prompts_dir, sizeof(ret->prompts_dir));
        if (!prompts) {
                fprintf(stderr,
                        "ascendopt %s: --llm: no prompt templates beside %s (prompts/) or in "
                        "ASCENDOPT_PROMPTS_DIR\n",
                        command, config_path);
                r = -ENOENT;
                goto fail;
        }
        if (prompts != ret->prompts_dir)
                snprintf(ret->prompts_dir, sizeof(ret->prompts_dir), "%s", prompts);
        r = llm_api_key_resolve(&ret->config->llm, &key, err, sizeof(err));
        if (r == 0) {
                llm_options_from_config(&options, &ret->config->llm);
                options.api_key = key;
                r = llm_client_new(base, &options, &ret->client, err, sizeof(err));
        }
        key = llm_secret_free(key);
        if (r < 0) {
                fprintf(stderr, "ascendopt %s: --llm: %s\n", command, err);
                goto fail;
        }
        ret->options.client = ret->client;
        ret->options.prompts_dir = ret->prompts_dir;
        ret->options.model = ret->config->llm.model;
        ret->options.embedding_model = ret->config->llm.embedding_model;
        ret->options.token_budget = ret->config->llm.episode_token_budget;
        return 0;
fail:
        cli_llm_close(ret);
        return r;
}

void cli_llm_close(struct cli_llm *llm)
{
        if (!llm)
                return;
        llm->client = llm_client_free(llm->client);
        llm->config = config_free(llm->config);
        memset(&llm->options, 0, sizeof(llm->options));
}

/* One line on what the episode's LLM did, when it had one. */
void cli_print_llm_usage(const struct episode_llm_usage *llm)
{
        const json_t *n;
        const char *reason;
        json_int_t thrown = 0;

        if (!llm->present)
                return;
        json_object_foreach((json_t *)llm->discarded, reason, n) thrown += json_integer_value(n);
        printf("  LLM %s: %lld calls, %lld tokens, %lld answers measured, %lld new bests, %lld "
               "discarded%s%s\n",
               llm->model ?: "(model not named)", (long long)llm->requests,
               (long long)llm->total_tokens, (long long)llm->evaluated, (long long)llm->won,
               (long long)thrown, llm->has_off ? "; off: " : "", llm->off ?: "");
}
