/* SPDX-License-Identifier: MIT */
/*
 * The data around a run: the seeded inputs every backend sees
 * (npu/inputs.c), the output comparison that judges correctness
 * (npu/compare.c) with the output elements a kernel never wrote
 * (npu/written.c), and the bottleneck signature of a run's profile
 * (npu/signature.c).
 * Part of npu/npu.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_INPUTS_H
#define ASCENDOPT_NPU_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "manifest.h"

/* ----------------------------------------------------------------- inputs */

/*
 * The seeded inputs (docs/design.md), bit for bit as the simulator's runtime makes them
 * (npu/sim/runtime/harness.cpp, "---- inputs"): input instance k (manifest
 * order, each element of a list counting as one) is splitmix64 seeded with
 * seed XOR (0xD1B54A32D192ED03 * (k + 1)), one draw per element; floats
 * are lo + (hi - lo) * u in double, rounded to float and then to half or
 * bfloat16 (nearest even), kept as a double for float64, default [-1, 1);
 * a complex64 element takes two draws, its real then its imaginary part,
 * each made as a float32; integers are lo + x mod (hi - lo + 1), default
 * [-100, 100] clipped to the type (uint64 to [0, 2^63)), bool [0, 1].
 */
struct npu_input_generator {
        enum npu_dtype dtype;
        uint64_t state;
        double lo, hi;  /* floats */
        int64_t int_lo; /* integers */
        uint64_t span;
};

/* range: {lo, hi} from input_ranges, or NULL for the default. */
void npu_input_generator_init(struct npu_input_generator *generator, enum npu_dtype dtype,
                              uint64_t seed, uint32_t k, const double *range);
/* The next n elements, little-endian, into buf (n * the dtype's size bytes). */
void npu_input_generate(struct npu_input_generator *generator, void *buf, size_t n);

/*
 * Writes the inputs of one case for seed into dir (created) as raw
 * little-endian files in_<name>.bin (in_<name>_<j>.bin for the elements of
 * a list input), and returns their records [{name, dtype, shape, file}] in
 * *ret_inputs (owned).  The sim derives the case's seed as the evaluation's
 * seed plus the case index; pass that.  Errors name the file or field.
 */
int npu_inputs_write(const struct npu_manifest *manifest, size_t case_index, uint64_t seed,
                     const char *dir, json_t **ret_inputs, char *err, size_t err_size);

/* ------------------------------------------------------------- comparison */

struct npu_comparison {
        double max_abs_err;
        double max_rel_err;
        double mismatch_fraction;
        size_t elements;
        size_t mismatches;
        size_t first_mismatch; /* the first failing element, when mismatches > 0 */
        double first_got, first_want;
        bool passed;
};

/*
 * Compares two buffers of n elements of one dtype: an element passes when
 * |got - want| <= atol + rtol * |want|, and NaN and Inf must sit at the same
 * positions.  The comparison passes when the failing fraction is at most
 * max_mismatch_fraction.  A complex64 element is two float32 parts, each
 * judged on its own: the comparison counts 2n elements.
 */
void npu_compare(enum npu_dtype dtype, const void *got, const void *want, size_t n,
                 const struct npu_tolerance *tolerance, struct npu_comparison *ret);

/* half and bfloat16 bit patterns to float, exactly. */
float npu_half_to_float(uint16_t bits);
float npu_bfloat16_to_float(uint16_t bits);

/*
 * Compares the outputs recorded in two results of the same manifest and
 * seed, case by case.  Adds "correctness" to candidate and sets its status
 * to wrong_answer when a case fails.  Returns -EINVAL when the results
 * cannot be compared (different cases, missing files).
 */
int npu_compare_results(const struct npu_manifest *manifest, json_t *candidate,
                        const json_t *reference, char *err, size_t err_size);

/*
 * What a result's output entry says of the elements the kernel wrote
 * (npu/written.c; the simulator records it, docs/simulator.md): its
 * "written_elements", the first index of its "unwritten" ranges, and the
 * path of its one-bit-per-element "written_file" (NULL when none).
 * -ENODATA when the entry does not say (another backend, an older result).
 */
struct npu_written {
        bool known;
        uint64_t elements; /* from the entry's shape */
        uint64_t written;
        uint64_t first_unwritten; /* when written < elements */
        const char *bits_file;    /* borrowed from the entry */
};
int npu_written_read(const json_t *output, struct npu_written *ret);

/*
 * How many elements of an output the reference run wrote and the candidate
 * did not, and the first of them: 0 when either entry does not say (the
 * bytes alone judge it).  -errno when both left some elements alone and
 * their bit files cannot be read.
 */
int npu_written_missing(const json_t *got_output, const json_t *want_output, uint64_t *ret_count,
                        uint64_t *ret_first);

/*
 * Adds to result a "warnings" array with one line per output of an ok case
 * that has elements the kernel never wrote (nothing when there are none).
 */
int npu_unwritten_warnings(json_t *result);

/* ------------------------------------------------------------- signatures */

/*
 * The categorical bottleneck signature of a profile (docs/design.md,
 * "An episode"), such as "bound=mte2 v_util=low ... launch=mix";
 * a new string, or NULL when the profile has no timing.  Every token is one
 * of npu_signature_vocabulary (NULL-terminated).
 */
char *npu_bottleneck_signature(const json_t *profile);
extern const char *const npu_signature_vocabulary[];

#endif
