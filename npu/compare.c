/* SPDX-License-Identifier: MIT */
/*
 * Data types and the output comparison that decides whether a candidate is
 * correct: DESIGN's tolerance rule, with NaN and Inf required at the same
 * positions.
 */
#include "npu.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const struct {
        const char *name;
        const char *kernel_type;
        size_t size;
        bool is_float;
} dtypes[NPU_DTYPE_COUNT] = {
        [NPU_FLOAT16] = { "float16", "half", 2, true },
        [NPU_FLOAT32] = { "float32", "float", 4, true },
        [NPU_BFLOAT16] = { "bfloat16", "bfloat16_t", 2, true },
        [NPU_INT8] = { "int8", "int8_t", 1, false },
        [NPU_INT16] = { "int16", "int16_t", 2, false },
        [NPU_INT32] = { "int32", "int32_t", 4, false },
        [NPU_INT64] = { "int64", "int64_t", 8, false },
        [NPU_UINT8] = { "uint8", "uint8_t", 1, false },
        [NPU_UINT16] = { "uint16", "uint16_t", 2, false },
        [NPU_UINT32] = { "uint32", "uint32_t", 4, false },
        [NPU_BOOL] = { "bool", "bool", 1, false },
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
        default:
                return 0;
        }
}

void npu_compare(enum npu_dtype dtype, const void *got, const void *want, size_t n,
                 const struct npu_tolerance *tolerance, struct npu_comparison *ret)
{
        struct npu_comparison c = { .elements = n };

        for (size_t i = 0; i < n; i++) {
                double g = element(dtype, got, i);
                double w = element(dtype, want, i);
                double abs_err, rel_err;
                bool ok;

                if (isnan(g) || isnan(w) || isinf(g) || isinf(w)) {
                        ok = (isnan(g) && isnan(w)) || (isinf(g) && isinf(w) && g == w);
                        if (!ok)
                                c.mismatches++;
                        continue;
                }
                abs_err = fabs(g - w);
                rel_err = w != 0 ? abs_err / fabs(w) : (abs_err != 0 ? INFINITY : 0);
                if (abs_err > c.max_abs_err)
                        c.max_abs_err = abs_err;
                if (rel_err > c.max_rel_err && isfinite(rel_err))
                        c.max_rel_err = rel_err;
                ok = abs_err <= tolerance->atol + tolerance->rtol * fabs(w);
                if (!ok)
                        c.mismatches++;
        }
        c.mismatch_fraction = n ? (double)c.mismatches / (double)n : 0;
        c.passed = c.mismatch_fraction <= tolerance->max_mismatch_fraction;
        *ret = c;
}
