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

#endif
