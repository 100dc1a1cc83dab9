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

/* One difference; the time it explains is an estimate, never more than the whole kernel. */
static int add(json_t *gaps, const struct shape *o, const char *kind, double us, double ours,
               double theirs, const char *detail)
{
        json_t *g =
            json_pack("{s:s, s:s, s:f, s:f, s:f}", "kind", kind, "detail", detail, "us",
                      round(fmin(us, o->kernel_us) * 1000) / 1000, "ours", ours, "theirs", theirs);

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
        char d[256];
        double floor_us;
        int r = -EINVAL;

        *ret = NULL;
        if (read_shape(profile, &o) < 0 || read_shape(faster, &t) < 0)
                return -EINVAL;
        gaps = json_array();
        if (!gaps)
                return -ENOMEM;
        /* smaller than this, a difference explains nothing worth naming */
        floor_us = 0.05 * o.kernel_us;
        r = 0;
        if (o.cores > 0 && t.cores > 1.25 * o.cores) {
                snprintf(d, sizeof(d),
                         "runs on %.0f cores where the faster kernel uses %.0f: a different core "
                         "mapping",
                         o.cores, t.cores);
                r = r
                        ?: add(gaps, &o, "core_mapping", o.kernel_us * (1 - o.cores / t.cores),
                               o.cores, t.cores, d);
        }
        if (t.bytes > 0 && o.bytes > 1.15 * t.bytes &&
            o.mte_us * (1 - t.bytes / o.bytes) > floor_us) {
                snprintf(d, sizeof(d),
                         "moves %.2fx the GM bytes (%.0f against %.0f): an extra pass over the "
                         "data or a workspace round trip",
                         o.bytes / t.bytes, o.bytes, t.bytes);
                r = r
                        ?: add(gaps, &o, "extra_gm_traffic", o.mte_us * (1 - t.bytes / o.bytes),
                               o.bytes, t.bytes, d);
        }
        if (o.mean_copy > 0 && t.mean_copy > 2 * o.mean_copy &&
            o.mte_us * (1 - o.mean_copy / t.mean_copy) / 2 > floor_us) {
                snprintf(d, sizeof(d),
                         "copies %.0f bytes at a time against %.0f: larger or multi-row tiles",
                         o.mean_copy, t.mean_copy);
                r = r
                        ?: add(gaps, &o, "small_copies",
                               o.mte_us * (1 - o.mean_copy / t.mean_copy) / 2, o.mean_copy,
                               t.mean_copy, d);
        }
        if (t.vector_repeats > 0 && o.vector_repeats > 1.25 * t.vector_repeats &&
            o.v_us * (1 - t.vector_repeats / o.vector_repeats) > floor_us) {
                snprintf(d, sizeof(d),
                         "%.2fx the vector repeats (%.0f against %.0f): fused passes, a hoisted "
                         "cast or fewer temporaries",
                         o.vector_repeats / t.vector_repeats, o.vector_repeats, t.vector_repeats);
                r = r
                        ?: add(gaps, &o, "more_vector_work",
                               o.v_us * (1 - t.vector_repeats / o.vector_repeats), o.vector_repeats,
                               t.vector_repeats, d);
        }
        if (o.vector_instr > 0 && t.vector_instr > 0) {
                double ours = o.vector_repeats / o.vector_instr;
                double theirs = t.vector_repeats / t.vector_instr;

                if (theirs > 1.5 * ours && o.v_us * (1 - ours / theirs) / 2 > floor_us) {
                        snprintf(d, sizeof(d),
                                 "%.1f repeats per vector instruction against %.1f: longer "
                                 "vectors per instruction (multi-row tiles, fewer short loops)",
                                 ours, theirs);
                        r = r
                                ?: add(gaps, &o, "short_vectors", o.v_us * (1 - ours / theirs) / 2,
                                       ours, theirs, d);
                }
        }
        if (o.s_us > 2 * t.s_us && o.s_us - t.s_us > floor_us) {
                snprintf(d, sizeof(d),
                         "the scalar unit is busy %.2f us against %.2f: a scalar loop the faster "
                         "kernel vectorizes, or per-element addressing",
                         o.s_us, t.s_us);
                r = r ?: add(gaps, &o, "scalar_work", o.s_us - t.s_us, o.s_us, t.s_us, d);
        }
        if (o.copy_waits_us - t.copy_waits_us > 2 * floor_us) {
                snprintf(d, sizeof(d),
                         "waits %.2f us between copies and vector work against %.2f: double "
                         "buffering or a deeper queue",
                         o.copy_waits_us, t.copy_waits_us);
                r = r
                        ?: add(gaps, &o, "no_overlap", o.copy_waits_us - t.copy_waits_us,
                               o.copy_waits_us, t.copy_waits_us, d);
        }
        if (o.sync_waits_us - t.sync_waits_us > floor_us) {
                snprintf(d, sizeof(d),
                         "waits %.2f us at barriers and flags against %.2f: fewer or finer "
                         "synchronisation points",
                         o.sync_waits_us, t.sync_waits_us);
                r = r
                        ?: add(gaps, &o, "synchronisation", o.sync_waits_us - t.sync_waits_us,
                               o.sync_waits_us, t.sync_waits_us, d);
        }
        if (o.imbalance > t.imbalance + 0.15 && o.imbalance > 0 &&
            o.kernel_us * (1 - t.imbalance / o.imbalance) > floor_us) {
                snprintf(d, sizeof(d),
                         "the slowest core takes %.2fx the mean against %.2fx: a more even split "
                         "of the work",
                         o.imbalance, t.imbalance);
                r = r
                        ?: add(gaps, &o, "imbalance", o.kernel_us * (1 - t.imbalance / o.imbalance),
                               o.imbalance, t.imbalance, d);
        }
        r = r ?: sort_by_time(gaps);
        if (r < 0) {
                json_decref(gaps);
                return r;
        }
        *ret = gaps;
        return 0;
}
