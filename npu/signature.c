/* SPDX-License-Identifier: MIT */
/*
 * The bottleneck signature: a short string of categorical tokens computed
 * from a result's profile, e.g. "bound=mte2 v_util=low mte2_util=high
 * mte3_util=mid stall=buffer_free scalar=low tail_core=no ub_headroom=high
 * copy=small align=512 launch=mix ub_banks=clean" (ub_banks only where the
 * profile measures bank conflicts).  Stage II retrieves experience by it,
 * so that BM25 matches like with like.  The vocabulary lives here and only
 * here; the raw numbers stay in the profile.
 */
#include "inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Thresholds, one place: utilisation bands and what counts as notable. */
#define UTIL_LOW       0.3
#define UTIL_HIGH      0.7
#define STALL_NOTABLE  0.10  /* of the kernel's time */
#define SCALAR_HIGH    0.30  /* S busy over the kernel's time */
#define IMBALANCE_TAIL 1.10  /* slowest core over the mean */
#define HEADROOM_HIGH  0.50  /* UB peak under half the capacity */
#define COPY_LARGE     16384 /* bytes: the published size for peak bandwidth */
#define ALIGNED_512    0.90  /* of GM bytes on 512-byte aligned addresses */
#define LAUNCH_BOUND   0.50  /* launch overhead over the latency */
#define BANKS_NOTABLE  0.01  /* V time lost to UB bank conflicts, of the kernel's time */

static const char *const pipe_names[] = { "s", "v", "mte2", "mte3" };
static const char *const stall_causes[] = { "mte2_v",       "v_mte3",    "buffer_free",
                                            "pipe_all",     "sync_all",  "scalar_issue",
                                            "v_dependency", "auto_sync", "other_flag" };

const char *const npu_signature_vocabulary[] = {
        "bound=s",
        "bound=v",
        "bound=mte2",
        "bound=mte3",
        "bound=launch",
        "v_util=low",
        "v_util=mid",
        "v_util=high",
        "mte2_util=low",
        "mte2_util=mid",
        "mte2_util=high",
        "mte3_util=low",
        "mte3_util=mid",
        "mte3_util=high",
        "stall=none",
        "stall=mte2_v",
        "stall=v_mte3",
        "stall=buffer_free",
        "stall=pipe_all",
        "stall=sync_all",
        "stall=scalar_issue",
        "stall=v_dependency",
        "stall=auto_sync",
        "stall=other_flag",
        "scalar=low",
        "scalar=high",
        "tail_core=no",
        "tail_core=yes",
        "ub_headroom=low",
        "ub_headroom=high",
        "copy=small",
        "copy=large",
        "align=32",
        "align=512",
        "launch=aiv",
        "launch=mix",
        "ub_banks=conflict",
        "ub_banks=clean",
        NULL,
};

/* A pipe's member, accepting the sim's and the msprof parser's spellings. */
static const json_t *pipe_member(const json_t *pipes, const char *pipe, const char *member)
{
        const char *key;
        json_t *value;

        json_object_foreach((json_t *)pipes, key, value)
        {
                if (strcasecmp(key, pipe) != 0)
                        continue;
                if (strcmp(member, "utilisation") == 0 && !json_object_get(value, member))
                        return json_object_get(value, "utilization");
                return json_object_get(value, member);
        }
        return NULL;
}

static const char *band(double x)
{
        return x < UTIL_LOW ? "low" : x < UTIL_HIGH ? "mid" : "high";
}

static double number(const json_t *o, const char *key, double fallback)
{
        const json_t *v = json_object_get(o, key);

        return json_is_number(v) ? json_number_value(v) : fallback;
}

char *npu_bottleneck_signature(const json_t *profile)
{
        const json_t *pipes = json_object_get(profile, "pipes");
        const json_t *stalls = json_object_get(profile, "stalls_us");
        /* the sim's names, else msprof op's (Task Duration, the AIV cores' time) */
        double latency = number(profile, "latency_us", number(profile, "task_duration_us", 0));
        double launch = number(profile, "launch_us", 0);
        double kernel =
            number(profile, "kernel_us", number(profile, "aiv_time_us", latency - launch));
        double busiest = -1, worst = 0, util[4];
        const char *bound = "v", *stall = "none";
        char text[512];
        int n;

        if (!json_is_object(profile) || kernel <= 0)
                return NULL;
        for (size_t i = 0; i < 4; i++) {
                const json_t *u = pipe_member(pipes, pipe_names[i], "utilisation");
                const json_t *b = pipe_member(pipes, pipe_names[i], "busy_us");
                util[i] = json_is_number(u)   ? json_number_value(u)
                          : json_is_number(b) ? json_number_value(b) / kernel
                                              : 0;
                if (util[i] > busiest) {
                        busiest = util[i];
                        bound = pipe_names[i];
                }
        }
        if (latency > 0 && launch / latency >= LAUNCH_BOUND)
                bound = "launch";
        for (size_t i = 0; i < sizeof(stall_causes) / sizeof(*stall_causes); i++) {
                double t = number(stalls, stall_causes[i], 0);
                if (t > worst && t >= STALL_NOTABLE * kernel) {
                        worst = t;
                        stall = stall_causes[i];
                }
        }
        n = snprintf(text, sizeof(text),
                     "bound=%s v_util=%s mte2_util=%s mte3_util=%s stall=%s scalar=%s "
                     "tail_core=%s ub_headroom=%s copy=%s align=%s launch=%s",
                     bound, band(util[1]), band(util[2]), band(util[3]), stall,
                     util[0] > SCALAR_HIGH ? "high" : "low",
                     number(profile, "core_imbalance", 1) > IMBALANCE_TAIL ? "yes" : "no",
                     number(profile, "ub_peak_bytes", 0) <
                             HEADROOM_HIGH * number(profile, "ub_capacity_bytes", 1)
                         ? "high"
                         : "low",
                     number(profile, "mean_copy_bytes", COPY_LARGE) < COPY_LARGE ? "small"
                                                                                 : "large",
                     number(profile, "gm_aligned_fraction", 1) >= ALIGNED_512 ? "512" : "32",
                     json_string_value(json_object_get(profile, "kernel_type")) &&
                             strcmp(json_string_value(json_object_get(profile, "kernel_type")),
                                    "aiv_only") == 0
                         ? "aiv"
                         : "mix");
        /* only where the profile measures it (the sim does, msprof op here does not) */
        if (n >= 0 && (size_t)n < sizeof(text) &&
            json_is_number(json_object_get(profile, "bank_conflict_us")))
                n += snprintf(text + n, sizeof(text) - (size_t)n, " ub_banks=%s",
                              number(profile, "bank_conflict_us", 0) >= BANKS_NOTABLE * kernel
                                  ? "conflict"
                                  : "clean");
        if (n < 0 || (size_t)n >= sizeof(text))
                return NULL;
        return strdup(text);
}
