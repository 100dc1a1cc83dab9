/* SPDX-License-Identifier: MIT */
/*
 * What separates a candidate from a faster kernel of the same operator
 * (issue #27: the optimizer's best against the corpus expert), read from
 * the two profiles the simulator gave them: cores, GM traffic, copy
 * sizes, vector and scalar work, overlap, synchronisation and balance.
 * Each difference is named by the kind of transformation that closes it.
 */
#ifndef ASCENDOPT_OPTIMIZER_GAP_H
#define ASCENDOPT_OPTIMIZER_GAP_H

#include <jansson.h>
#include <stdbool.h>

/*
 * The structural differences between profile (the candidate's) and
 * faster (the other kernel's), both a result's "profile" object, as a new
 * array of {"kind", "detail", "us", "ours", "theirs"} in *ret, largest
 * first by us, an estimate of the kernel time it explains (at most the
 * kernel's; estimates of different kinds may overlap, so they do not add
 * up); empty when the two look alike.  kind is
 * one of core_mapping, extra_gm_traffic, small_copies, more_vector_work,
 * short_vectors, scalar_work, no_overlap, synchronisation, imbalance.
 * -EINVAL when either lacks the fields, -ENOMEM.
 */
int profile_gap(const json_t *profile, const json_t *faster, json_t **ret);

/*
 * How near the roofline a kernel doing this profile's vector work can get
 * (docs/results.md, "What the roofline leaves out").  The roofline counts
 * only the operator's bytes at the HBM peak; a kernel also pays its launch
 * and its vector instructions.  The ceiling is the time of a kernel that
 * ran this profile's vector instructions (the mean per core, without the
 * beats lost to bank conflicts, which placing buffers removes) entirely
 * under its copies, moved the bytes at the peak and launched as this one:
 *
 *   ceiling_us = launch_us + max(roofline_us, vector_us)
 *
 * fraction (roofline_us / ceiling_us) is the most of the roofline such a
 * kernel reaches; reached (ceiling_us / latency_us) is how much of that
 * this kernel has.  vector_bound: the vector work alone outlasts the
 * roofline, so only fewer or cheaper vector instructions go past it.
 */
struct profile_ceiling {
        double roofline_us, latency_us, launch_us, vector_us, ceiling_us;
        double fraction, reached;
        bool vector_bound;
};

/* Reads *ret from a result's "profile"; -EINVAL when it lacks the fields. */
int profile_ceiling(const json_t *profile, struct profile_ceiling *ret);

#endif
