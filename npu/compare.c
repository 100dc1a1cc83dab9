/* SPDX-License-Identifier: MIT */
/*
 * Data types and the output comparison that decides whether a candidate is
 * correct: the tolerance rule of docs/design.md, with NaN and Inf required at the same
 * positions, and no element left unwritten that the reference writes
 * (npu/written.c).
 */
#include "inputs.h"

#include "common/common.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ge_value: the type's ge::DataType number (graph/types.h in CANN's public API). */
static const struct {
        const char *name;
        const char *kernel_type;
        size_t size;
        bool is_float;
        int ge_value;
} dtypes[NPU_DTYPE_COUNT] = {
        [NPU_FLOAT16] = { "float16", "half", 2, true, 1 },
        [NPU_FLOAT32] = { "float32", "float", 4, true, 0 },
        [NPU_BFLOAT16] = { "bfloat16", "bfloat16_t", 2, true, 27 },
        [NPU_INT8] = { "int8", "int8_t", 1, false, 2 },
        [NPU_INT16] = { "int16", "int16_t", 2, false, 6 },
        [NPU_INT32] = { "int32", "int32_t", 4, false, 3 },
        [NPU_INT64] = { "int64", "int64_t", 8, false, 9 },
        [NPU_UINT8] = { "uint8", "uint8_t", 1, false, 4 },
        [NPU_UINT16] = { "uint16", "uint16_t", 2, false, 7 },
        [NPU_UINT32] = { "uint32", "uint32_t", 4, false, 8 },
        [NPU_BOOL] = { "bool", "bool", 1, false, 12 },
        [NPU_UINT64] = { "uint64", "uint64_t", 8, false, 10 },
        [NPU_FLOAT64] = { "float64", "double", 8, true, 11 },
        /* AscendC's built-in complex64 (b64); the kernels of Atlas A2 read it as float pairs */
        [NPU_COMPLEX64] = { "complex64", "complex64", 8, true, 16 },
};

int npu_dtype_from_name(const char *name, enum npu_dtype *ret)
{
        for (int i = 0; i < NPU_DTYPE_COUNT; i++) {
                if (strcmp(dtypes[i].name, name) == 0) {
                        *ret = (enum npu_dtype)i;
                        return 0;
                }
        }
        return -EINVAL;
}

const char *npu_dtype_name(enum npu_dtype dtype)
{
        return dtype < NPU_DTYPE_COUNT ? dtypes[dtype].name : "?";
}

const char *npu_dtype_kernel_type(enum npu_dtype dtype)
{
        return dtype < NPU_DTYPE_COUNT ? dtypes[dtype].kernel_type : "?";
}

int npu_dtype_ge_value(enum npu_dtype dtype)
{
        return dtype < NPU_DTYPE_COUNT ? dtypes[dtype].ge_value : -1;
}

size_t npu_dtype_size(enum npu_dtype dtype)
{
        return dtype < NPU_DTYPE_COUNT ? dtypes[dtype].size : 0;
}

bool npu_dtype_is_float(enum npu_dtype dtype)
{
        return dtype < NPU_DTYPE_COUNT && dtypes[dtype].is_float;
}

float npu_half_to_float(uint16_t bits)
{
        uint32_t sign = (uint32_t)(bits >> 15) << 31;
        uint32_t exponent = (bits >> 10) & 0x1f;
        uint32_t mantissa = bits & 0x3ff;
        uint32_t out;
        float f;

        if (exponent == 0x1f) {
                out = sign | 0x7f800000u | (mantissa << 13);
        } else if (exponent == 0) {
                /* zero or subnormal: mantissa * 2^-24, exact in float */
                f = ldexpf((float)mantissa, -24);
                return sign ? -f : f;
        } else {
                out = sign | ((exponent + 112) << 23) | (mantissa << 13);
        }
        memcpy(&f, &out, sizeof(f));
        return f;
}

float npu_bfloat16_to_float(uint16_t bits)
{
        uint32_t out = (uint32_t)bits << 16;
        float f;

        memcpy(&f, &out, sizeof(f));
        return f;
}

/* Element i as a double; exact for every supported type but int64 extremes. */
static double element(enum npu_dtype dtype, const void *data, size_t i)
{
        const unsigned char *p = (const unsigned char *)data + i * npu_dtype_size(dtype);
        union {
                uint16_t u16;
                float f32;
                int8_t i8;
                int16_t i16;
                int32_t i32;
                int64_t i64;
                uint8_t u8;
                uint32_t u32;
                uint64_t u64;
                double f64;
        } v;

        memcpy(&v, p, npu_dtype_size(dtype));
        switch (dtype) {
        case NPU_FLOAT16:
                return npu_half_to_float(v.u16);
        case NPU_BFLOAT16:
                return npu_bfloat16_to_float(v.u16);
        case NPU_FLOAT32:
                return v.f32;
        case NPU_INT8:
                return v.i8;
        case NPU_INT16:
                return v.i16;
        case NPU_INT32:
                return v.i32;
        case NPU_INT64:
                return (double)v.i64;
        case NPU_UINT8:
        case NPU_BOOL:
                return v.u8;
        case NPU_UINT16:
                return v.u16;
        case NPU_UINT32:
                return v.u32;
        case NPU_UINT64:
                return (double)v.u64;
        case NPU_FLOAT64:
                return v.f64;
        default:
                return 0;
        }
}

void npu_compare(enum npu_dtype dtype, const void *got, const void *want, size_t n,
                 const struct npu_tolerance *tolerance, struct npu_comparison *ret)
{
        struct npu_comparison c = { .elements = n };

        if (dtype == NPU_COMPLEX64) {
                npu_compare(NPU_FLOAT32, got, want, 2 * n, tolerance, ret);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                double g = element(dtype, got, i);
                double w = element(dtype, want, i);
                double abs_err, rel_err;
                bool ok;

                if (isnan(g) || isnan(w) || isinf(g) || isinf(w)) {
                        ok = (isnan(g) && isnan(w)) || (isinf(g) && isinf(w) && g == w);
                        if (!ok && c.mismatches++ == 0) {
                                c.first_mismatch = i;
                                c.first_got = g;
                                c.first_want = w;
                        }
                        continue;
                }
                abs_err = fabs(g - w);
                rel_err = w != 0 ? abs_err / fabs(w) : (abs_err != 0 ? INFINITY : 0);
                if (abs_err > c.max_abs_err)
                        c.max_abs_err = abs_err;
                if (rel_err > c.max_rel_err && isfinite(rel_err))
                        c.max_rel_err = rel_err;
                ok = abs_err <= tolerance->atol + tolerance->rtol * fabs(w);
                if (!ok && c.mismatches++ == 0) {
                        c.first_mismatch = i;
                        c.first_got = g;
                        c.first_want = w;
                }
        }
        c.mismatch_fraction = n ? (double)c.mismatches / (double)n : 0;
        c.passed = c.mismatch_fraction <= tolerance->max_mismatch_fraction;
        *ret = c;
}

/*
 * Reads a whole output file, which a sandboxed run wrote: without
 * following links, a regular file only.  The caller frees *ret.
 */

static const json_t *find_case(const json_t *result, const char *name)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_object_get(result, "cases"), i,
                           c) if (strcmp(json_string_value(json_object_get(c, "case")), name) ==
                                  0) return c;
        return NULL;
}

static const json_t *find_output(const json_t *c, const char *name)
{
        size_t i;
        json_t *o;

        json_array_foreach(json_object_get(c, "outputs"), i,
                           o) if (strcmp(json_string_value(json_object_get(o, "name")), name) ==
                                  0) return o;
        return NULL;
}

/*
 * Compares one output tensor of one case; adds its verdict to the case's
 * record, and the elements the reference wrote and the candidate did not
 * to *unwritten (their first, and a line saying so, to *why when it is
 * still empty).
 */
static int compare_output(const struct npu_manifest *m, const struct npu_tensor *t,
                          const json_t *got_case, const json_t *want_case,
                          struct npu_comparison *total, uint64_t *unwritten, char *why,
                          size_t why_size, char *err, size_t err_size)
{
        const char *case_name = json_string_value(json_object_get(got_case, "case"));
        const json_t *got = find_output(got_case, t->name), *want = find_output(want_case, t->name);
        const char *got_file = json_string_value(json_object_get(got, "file"));
        const char *want_file = json_string_value(json_object_get(want, "file"));
        size_t esize = npu_dtype_size(t->dtype);
        const void *a = NULL, *b = NULL;
        size_t a_len = 0, b_len = 0;
        struct npu_comparison c;
        int r;

        if (!got_file || !want_file) {
                snprintf(err, err_size, "case %s: output %s was not recorded", case_name, t->name);
                return -EINVAL;
        }
        /* mapped, not read: a bench case's outputs are tens of megabytes, compared once */
        r = map_untrusted_file(got_file, (size_t)16 << 30, &a, &a_len);
        if (r == 0)
                r = map_untrusted_file(want_file, (size_t)16 << 30, &b, &b_len);
        if (r < 0) {
                snprintf(err, err_size, "case %s: output %s: cannot read: %s", case_name, t->name,
                         strerror(-r));
                goto out;
        }
        if (a_len != b_len || a_len % esize) {
                snprintf(err, err_size, "case %s: output %s: %zu bytes against %zu", case_name,
                         t->name, a_len, b_len);
                r = -EINVAL;
                goto out;
        }
        npu_compare(t->dtype, a, b, a_len / esize, &m->tolerance[t->dtype], &c);
        {
                uint64_t missing = 0, first = 0;
                r = npu_written_missing(got, want, &missing, &first);
                if (r < 0) {
                        snprintf(err, err_size,
                                 "case %s: output %s: cannot read which elements were written: %s",
                                 case_name, t->name, strerror(-r));
                        goto out;
                }
                if (missing && !why[0])
                        snprintf(why, why_size,
                                 "case %s: %s: %" PRIu64 " of %zu elements never written by the "
                                 "kernel (the reference writes them; the first at index %" PRIu64
                                 "); GM is not zeroed on an NPU, so they would hold garbage there",
                                 case_name, t->name, missing, a_len / esize, first);
                *unwritten += missing;
        }
        if (c.max_abs_err > total->max_abs_err)
                total->max_abs_err = c.max_abs_err;
        if (c.max_rel_err > total->max_rel_err)
                total->max_rel_err = c.max_rel_err;
        if (c.mismatch_fraction > total->mismatch_fraction)
                total->mismatch_fraction = c.mismatch_fraction;
        total->elements += c.elements;
        total->mismatches += c.mismatches;
        total->passed = total->passed && c.passed;
out:
        unmap_file(a, a_len);
        unmap_file(b, b_len);
        return r;
}

int npu_compare_results(const struct npu_manifest *m, json_t *candidate, const json_t *reference,
                        char *err, size_t err_size)
{
        json_t *verdicts = json_array();
        bool all_passed = true;
        size_t i;
        json_t *got_case;
        char why[512] = "";
        int r = 0;

        if (!verdicts)
                return -ENOMEM;
        json_array_foreach(json_object_get(candidate, "cases"), i, got_case)
        {
                const char *name = json_string_value(json_object_get(got_case, "case"));
                const json_t *want_case = name ? find_case(reference, name) : NULL;
                struct npu_comparison total = { .passed = true };
                uint64_t unwritten = 0;
                json_t *verdict;

                if (!want_case) {
                        snprintf(err, err_size, "case %s has no reference result",
                                 name ? name : "?");
                        r = -EINVAL;
                        goto out;
                }
                for (size_t t = 0; t < m->n_outputs; t++) {
                        r = compare_output(m, &m->outputs[t], got_case, want_case, &total,
                                           &unwritten, why, sizeof(why), err, err_size);
                        if (r < 0)
                                goto out;
                }
                /* an element left unwritten fails whatever bytes it happens to hold */
                if (unwritten)
                        total.passed = false;
                all_passed = all_passed && total.passed;
                verdict =
                    json_pack("{s:s, s:f, s:f, s:f, s:b}", "case", name, "max_abs_err",
                              total.max_abs_err, "max_rel_err", total.max_rel_err,
                              "mismatch_fraction", total.mismatch_fraction, "passed", total.passed);
                if (verdict && unwritten &&
                    json_object_set_new(verdict, "unwritten_elements",
                                        json_integer((json_int_t)unwritten)) < 0) {
                        json_decref(verdict);
                        verdict = NULL;
                }
                if (json_array_append_new(verdicts, verdict) < 0) {
                        r = format_error(err, err_size, -ENOMEM, "out of memory");
                        goto out;
                }
        }
        json_object_set(candidate, "correctness", verdicts);
        if (!all_passed) {
                json_object_set_new(candidate, "status", json_string("wrong_answer"));
                if (json_object_set_new(candidate, "error",
                                        json_pack("{s:s, s:s}", "kind", "wrong_answer", "message",
                                                  why[0] ? why
                                                         : "outputs differ from the reference "
                                                           "beyond the tolerance; see "
                                                           "correctness")) < 0)
                        r = format_error(err, err_size, -ENOMEM, "out of memory");
        }
out:
        json_decref(verdicts);
        return r;
}
