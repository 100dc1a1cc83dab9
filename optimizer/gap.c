/* SPDX-License-Identifier: MIT */
/*
 * profile_gap(): the structural differences between a candidate's profile
 * and a faster kernel's, each named by the transformation that would close
 * it and weighed by the kernel time it explains (optimizer/gap.h).  The
 * thresholds are coarse on purpose: a difference is named only where it
 * is large enough to matter at the simulator's resolution.
 */
#include "gap.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The numbers of one profile that the comparison reads. */
struct shape {
        double kernel_us, cores, bytes, copies, mean_copy, vector_instr, vector_repeats;
        double mte_us, v_us, s_us, copy_waits_us, sync_waits_us, imbalance;
};

static double number(const json_t *o, const char *key)
{
        return json_number_value(json_object_get(o, key));
}

static double path_number(const json_t *o, const char *a, const char *b, const char *c)
{
        const json_t *v = json_object_get(json_object_get(o, a), b);

        return json_number_value(c ? json_object_get(v, c) : v);
}

static int read_shape(const json_t *p, struct shape *s)
{
        if (!json_is_object(p) || !json_is_number(json_object_get(p, "kernel_us")) ||
            !json_is_object(json_object_get(p, "pipes")))
                return -EINVAL;
        *s = (struct shape){
                .kernel_us = number(p, "kernel_us"),
                .cores = number(p, "cores") > 0 ? number(p, "cores") : number(p, "block_dim"),
                .bytes = number(p, "bytes_in") + number(p, "bytes_out"),
                .copies = number(p, "copies"),
                .mean_copy = number(p, "mean_copy_bytes"),
                .vector_instr = number(p, "vector_instructions"),
                .vector_repeats = number(p, "vector_repeats"),
                .mte_us = path_number(p, "pipes", "mte2", "busy_us") +
                          path_number(p, "pipes", "mte3", "busy_us"),
                .v_us = path_number(p, "pipes", "v", "busy_us"),
                .s_us = path_number(p, "pipes", "s", "busy_us"),
                .copy_waits_us = path_number(p, "stalls_us", "mte2_v", NULL) +
                                 path_number(p, "stalls_us", "v_mte3", NULL),
                .sync_waits_us = path_number(p, "stalls_us", "pipe_all", NULL) +
                                 path_number(p, "stalls_us", "sync_all", NULL) +
                                 path_number(p, "stalls_us", "other_flag", NULL),
                .imbalance = number(p, "core_imbalance"),
        };
        return 0;
}

/* One kind of difference: what is measured, and what closes it. */
struct finding {
        const char *kind, *measure, *remedy;
        bool found;
        double us, ours, theirs; /* us: the kernel time it explains, an estimate */
};

/* Appends a found difference; its time is never more than the whole kernel's. */
static int add(json_t *gaps, const struct shape *o, const struct finding *f)
{
        char detail[256];
        json_t *g;

        snprintf(detail, sizeof(detail), "%s %.4g against %.4g: %s", f->measure, f->ours, f->theirs,
                 f->remedy);
        g = json_pack("{s:s, s:s, s:f, s:f, s:f}", "kind", f->kind, "detail", detail, "us",
                      round(fmin(f->us, o->kernel_us) * 1000) / 1000, "ours", f->ours, "theirs",
                      f->theirs);
        return g && json_array_append_new(gaps, g) == 0 ? 0 : -ENOMEM;
}

static int by_time(const void *a, const void *b)
{
        double x = json_number_value(json_object_get(*(json_t *const *)a, "us"));
        double y = json_number_value(json_object_get(*(json_t *const *)b, "us"));

        return (x < y) - (x > y);
}

static int sort_by_time(json_t *gaps)
{
        size_t n = json_array_size(gaps);
        json_t **items = calloc(n ? n : 1, sizeof(*items));

        if (!items)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                items[i] = json_incref(json_array_get(gaps, i));
        qsort(items, n, sizeof(*items), by_time);
        json_array_clear(gaps);
        for (size_t i = 0; i < n; i++)
                json_array_append_new(gaps, items[i]);
        free(items);
        return 0;
}

int profile_gap(const json_t *profile, const json_t *faster, json_t **ret)
{
        struct shape o, t;
        json_t *gaps = NULL;
        double floor_us, per_instr_o, per_instr_t;
        int r = 0;

        *ret = NULL;
        if (read_shape(profile, &o) < 0 || read_shape(faster, &t) < 0)
                return -EINVAL;
        /* smaller than this, a difference explains nothing worth naming */
        floor_us = 0.05 * o.kernel_us;
        per_instr_o = o.vector_instr > 0 ? o.vector_repeats / o.vector_instr : 0;
        per_instr_t = t.vector_instr > 0 ? t.vector_repeats / t.vector_instr : 0;
        const struct finding findings[] = {
                { "core_mapping", "cores used", "a different core mapping",
                  o.cores > 0 && t.cores > 1.25 * o.cores,
                  o.kernel_us * (1 - o.cores / (t.cores > 0 ? t.cores : 1)), o.cores, t.cores },
                { "extra_gm_traffic", "GM bytes moved",
                  "an extra pass over the data or a workspace round trip",
                  t.bytes > 0 && o.bytes > 1.15 * t.bytes,
                  o.mte_us * (1 - t.bytes / (o.bytes > 0 ? o.bytes : 1)), o.bytes, t.bytes },
                { "small_copies", "bytes per copy", "larger or multi-row tiles",
                  o.mean_copy > 0 && t.mean_copy > 2 * o.mean_copy,
                  o.mte_us * (1 - o.mean_copy / (t.mean_copy > 0 ? t.mean_copy : 1)) / 2,
                  o.mean_copy, t.mean_copy },
                { "more_vector_work", "vector repeats",
                  "fused passes, a hoisted cast or fewer temporaries",
                  t.vector_repeats > 0 && o.vector_repeats > 1.25 * t.vector_repeats,
                  o.v_us * (1 - t.vector_repeats / (o.vector_repeats > 0 ? o.vector_repeats : 1)),
                  o.vector_repeats, t.vector_repeats },
                { "short_vectors", "repeats per vector instruction",
                  "longer vectors per instruction (multi-row tiles, fewer short loops)",
                  per_instr_o > 0 && per_instr_t > 1.5 * per_instr_o,
                  o.v_us * (1 - per_instr_o / (per_instr_t > 0 ? per_instr_t : 1)) / 2, per_instr_o,
                  per_instr_t },
                { "scalar_work", "scalar unit busy (us)",
                  "a scalar loop the faster kernel vectorizes, or per-element addressing",
                  o.s_us > 2 * t.s_us, o.s_us - t.s_us, o.s_us, t.s_us },
                { "no_overlap", "waits between copies and vector work (us)",
                  "double buffering or a deeper queue",
                  o.copy_waits_us - t.copy_waits_us > 2 * floor_us,
                  o.copy_waits_us - t.copy_waits_us, o.copy_waits_us, t.copy_waits_us },
                { "synchronisation", "waits at barriers and flags (us)",
                  "fewer or finer synchronisation points", o.sync_waits_us > t.sync_waits_us,
                  o.sync_waits_us - t.sync_waits_us, o.sync_waits_us, t.sync_waits_us },
                { "imbalance", "slowest core against the mean", "a more even split of the work",
                  o.imbalance > 0 && o.imbalance > t.imbalance + 0.15,
                  o.kernel_us * (1 - t.imbalance / (o.imbalance > 0 ? o.imbalance : 1)),
                  o.imbalance, t.imbalance },
        };

        gaps = json_array();
        if (!gaps)
                return -ENOMEM;
        for (size_t i = 0; i < sizeof(findings) / sizeof(findings[0]) && r == 0; i++)
                if (findings[i].found && findings[i].us > floor_us)
                        r = add(gaps, &o, &findings[i]);
        r = r ?: sort_by_time(gaps);
        if (r < 0) {
                json_decref(gaps);
                return r;
        }
        *ret = gaps;
        return 0;
}

int profile_ceiling(const json_t *p, struct profile_ceiling *ret)
{
        struct profile_ceiling c = {
                .roofline_us = number(p, "roofline_us"),
                .latency_us = number(p, "latency_us"),
                .launch_us = number(p, "launch_us"),
                .vector_us =
                    path_number(p, "pipes", "v", "busy_us") - number(p, "bank_conflict_us"),
        };

        if (!json_is_object(p) || !(c.roofline_us > 0) || !(c.latency_us > 0) ||
            !json_is_number(json_object_get(p, "launch_us")) ||
            !json_is_number(
                json_object_get(json_object_get(json_object_get(p, "pipes"), "v"), "busy_us")))
                return -EINVAL;
        if (c.vector_us < 0)
                c.vector_us = 0;
        c.vector_bound = c.vector_us > c.roofline_us;
        c.ceiling_us = c.launch_us + fmax(c.roofline_us, c.vector_us);
        c.fraction = c.roofline_us / c.ceiling_us;
        c.reached = c.ceiling_us / c.latency_us;
        *ret = c;
        return 0;
}
