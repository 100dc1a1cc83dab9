/* SPDX-License-Identifier: MIT */
/*
 * Platform facts in words, for the LLM prompts: the few numbers of a
 * platform file (npu/sim/platforms/<SoC>.json) that decide a tiling or a
 * kernel rewrite, such as the vector core count and the Unified Buffer size.
 */
#include "evaluator.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_int_t int_at(const json_t *doc, const char *group, const char *key)
{
        return json_integer_value(json_object_get(json_object_get(doc, group), key));
}

char *npu_platform_facts(const char *platforms_dir, const char *platform)
{
        char path[PATH_MAX], *text = NULL;
        json_error_t error;
        json_t *doc;
        double hbm;

        if (!platforms_dir || !platform ||
            format_path(path, sizeof(path), "%s/%s.json", platforms_dir, platform) < 0)
                return NULL;
        doc = json_load_file(path, 0, &error);
        if (!doc)
                return NULL;
        hbm = json_number_value(
            json_object_get(json_object_get(doc, "bandwidth"), "hbm_peak_bytes_per_s"));
        if (asprintf(&text,
                     "- SoC %s at %lld MHz, %lld AI cores with %lld vector cores (AIV) in all; "
                     "GetBlockNum() is the blockDim the tiling sets.\n"
                     "- Unified Buffer (UB) per vector core: %lld bytes usable by InitBuffer "
                     "(of %lld); allocations are in %lld-byte blocks.\n"
                     "- DataCopy between GM and UB moves whole 32-byte blocks; DataCopyPad "
                     "handles other lengths.\n"
                     "- HBM peak bandwidth about %.0f GB/s, shared by all cores; L2 %lld MiB.\n",
                     platform, (long long)json_integer_value(json_object_get(doc, "clock_mhz")),
                     (long long)int_at(doc, "cores", "ai_cores"),
                     (long long)int_at(doc, "cores", "aiv"),
                     (long long)int_at(doc, "memory", "ub_init_buffer_limit_bytes"),
                     (long long)int_at(doc, "memory", "ub_total_bytes"),
                     (long long)int_at(doc, "memory", "ub_block_bytes"), hbm / 1e9,
                     (long long)(int_at(doc, "memory", "l2_bytes") >> 20)) < 0)
                text = NULL;
        json_decref(doc);
        return text;
}
