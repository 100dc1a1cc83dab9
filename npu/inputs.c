/* SPDX-License-Identifier: MIT */
/*
 * the seeded inputs (docs/design.md, "Inputs, tolerance and identity") computed in C, bit for bit as
 * the simulator's runtime makes them (npu/sim/runtime/harness.cpp, "----
 * inputs"), so that a backend that cannot generate its own inputs (the real
 * NPU's aclnn harness reads .bin files) sees exactly what the sim sees.
 */
#include "inputs.h"

#include "common/common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_ELEMENTS 65536

static uint64_t splitmix64(uint64_t *s)
{
        uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
}

static uint32_t float_bits(float f)
{
        uint32_t x;

        memcpy(&x, &f, sizeof(x));
        return x;
}

static float bits_float(uint32_t x)
{
        float f;

        memcpy(&f, &x, sizeof(f));
        return f;
}

/* Round to nearest even, overflow to infinity, NaN stays quiet: as the sim. */
static uint16_t float_to_half_bits(float f)
{
        uint32_t x = float_bits(f);
        uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
        uint32_t ax = x & 0x7fffffffu;
        float a;

        if (ax >= 0x7f800000u) {
                if (ax > 0x7f800000u)
                        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x1ffu));
                return (uint16_t)(sign | 0x7c00u);
        }
        if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity */
                return (uint16_t)(sign | 0x7c00u);
        if (ax >= 0x38800000u) { /* normal half range */
                uint32_t r = ax - 0x38000000u;
                r += 0x0fffu + ((r >> 13) & 1u);
                return (uint16_t)(sign | (r >> 13));
        }
        /* subnormal or zero: the FPU rounds at the half subnormal step */
        a = bits_float(ax) + 0.5f;
        return (uint16_t)(sign | (float_bits(a) - 0x3f000000u));
}

static uint16_t float_to_bf16_bits(float f)
{
        uint32_t x = float_bits(f);

        if ((x & 0x7fffffffu) > 0x7f800000u)
                return (uint16_t)((x >> 16) | 0x0040u);
        x += 0x7fffu + ((x >> 16) & 1u);
        return (uint16_t)(x >> 16);
}

static void int_limits(enum npu_dtype dtype, double *lo, double *hi)
{
        switch (dtype) {
        case NPU_INT8:
                *lo = -128, *hi = 127;
                break;
        case NPU_UINT8:
                *lo = 0, *hi = 255;
                break;
        case NPU_INT16:
                *lo = -32768, *hi = 32767;
                break;
        case NPU_UINT16:
                *lo = 0, *hi = 65535;
                break;
        case NPU_INT32:
                *lo = -2147483648.0, *hi = 2147483647.0;
                break;
        case NPU_UINT32:
                *lo = 0, *hi = 4294967295.0;
                break;
        case NPU_BOOL:
                *lo = 0, *hi = 1;
                break;
        case NPU_UINT64:
                *lo = 0, *hi = 9.2e18; /* the generator's arithmetic is signed */
                break;
        default:
                *lo = -9.2e18, *hi = 9.2e18;
                break;
        }
}

void npu_input_generator_init(struct npu_input_generator *g, enum npu_dtype dtype, uint64_t seed,
                              uint32_t k, const double *range)
{
        memset(g, 0, sizeof(*g));
        g->dtype = dtype;
        g->state = seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(k + 1));
        if (npu_dtype_is_float(dtype)) {
                g->lo = range ? range[0] : -1.0;
                g->hi = range ? range[1] : 1.0;
                return;
        }
        {
                double tlo, thi, lo, hi;
                int_limits(dtype, &tlo, &thi);
                lo = range ? ceil(range[0]) : (dtype == NPU_BOOL ? 0 : -100);
                hi = range ? floor(range[1]) : (dtype == NPU_BOOL ? 1 : 100);
                lo = lo < tlo ? tlo : lo;
                hi = hi > thi ? thi : hi;
                if (hi < lo)
                        hi = lo;
                g->int_lo = (int64_t)lo;
                g->span = (uint64_t)((int64_t)hi - g->int_lo) + 1;
        }
}

void npu_input_generate(struct npu_input_generator *g, void *buf, size_t n)
{
        uint8_t *p = buf;
        size_t size = npu_dtype_size(g->dtype);

        if (g->dtype == NPU_FLOAT64) {
                for (size_t i = 0; i < n; i++) {
                        double u = (double)(splitmix64(&g->state) >> 11) * 0x1p-53;
                        double d = g->lo + (g->hi - g->lo) * u;
                        memcpy(p + 8 * i, &d, 8);
                }
                return;
        }
        if (npu_dtype_is_float(g->dtype)) {
                /* complex64: the real and imaginary parts, one float32 draw each */
                size_t parts = g->dtype == NPU_COMPLEX64 ? 2 * n : n;
                for (size_t i = 0; i < parts; i++) {
                        double u = (double)(splitmix64(&g->state) >> 11) * 0x1p-53;
                        float f = (float)(g->lo + (g->hi - g->lo) * u);
                        if (g->dtype == NPU_FLOAT32 || g->dtype == NPU_COMPLEX64) {
                                memcpy(p + 4 * i, &f, 4);
                        } else {
                                uint16_t b = g->dtype == NPU_FLOAT16 ? float_to_half_bits(f)
                                                                     : float_to_bf16_bits(f);
                                memcpy(p + 2 * i, &b, 2);
                        }
                }
                return;
        }
        for (size_t i = 0; i < n; i++) {
                uint64_t x = splitmix64(&g->state);
                int64_t v = g->int_lo + (int64_t)(g->span ? x % g->span : x);
                memcpy(p + size * i, &v, size); /* little-endian: the low bytes */
        }
}

/* The [lo, hi] of an input from input_ranges; -EINVAL names the field when malformed. */
static int input_range(const struct npu_manifest *m, const struct npu_case *c, const char *name,
                       double range[2], bool *ret_have, char *err, size_t err_size)
{
        const json_t *r = json_object_get(c->input_ranges, name);

        *ret_have = false;
        if (!r)
                return 0;
        if (!json_is_array(r) || json_array_size(r) != 2 || !json_is_number(json_array_get(r, 0)) ||
            !json_is_number(json_array_get(r, 1))) {
                snprintf(err, err_size, "%s: .input_ranges.%s: expected [lo, hi]", m->source, name);
                return -EINVAL;
        }
        range[0] = json_number_value(json_array_get(r, 0));
        range[1] = json_number_value(json_array_get(r, 1));
        *ret_have = true;
        return 0;
}

static int shape_elements(const json_t *shape, uint64_t *ret)
{
        uint64_t n = 1;
        size_t i;
        json_t *d;

        if (!json_is_array(shape))
                return -EINVAL;
        json_array_foreach(shape, i, d)
        {
                if (!json_is_integer(d) || json_integer_value(d) < 0)
                        return -EINVAL;
                n *= (uint64_t)json_integer_value(d);
                if (n > NPU_MAX_CASE_ELEMENTS)
                        return -E2BIG;
        }
        *ret = n;
        return 0;
}

/* Streams one tensor's elements into path. */
static int write_tensor(struct npu_input_generator *g, uint64_t elements, const char *path)
{
        size_t size = npu_dtype_size(g->dtype);
        uint8_t *buf = malloc(CHUNK_ELEMENTS * size);
        FILE *f = NULL;
        int r = 0;

        if (!buf)
                return -ENOMEM;
        f = fopen(path, "we");
        if (!f) {
                r = -errno;
                goto out;
        }
        while (elements > 0) {
                size_t n = elements < CHUNK_ELEMENTS ? (size_t)elements : CHUNK_ELEMENTS;
                npu_input_generate(g, buf, n);
                if (fwrite(buf, size, n, f) != n) {
                        r = -EIO;
                        goto out;
                }
                elements -= n;
        }
out:
        if (f && fclose(f) != 0 && r == 0)
                r = -errno;
        free(buf);
        return r;
}

int npu_inputs_write(const struct npu_manifest *m, size_t case_index, uint64_t seed,
                     const char *dir, json_t **ret_inputs, char *err, size_t err_size)
{
        const struct npu_case *c;
        json_t *list = NULL;
        uint32_t k = 0;
        int r;

        if (!m || case_index >= m->n_cases || !dir || !ret_inputs)
                return -EINVAL;
        c = &m->cases[case_index];
        r = mkdir_p(dir);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot create: %s", dir, strerror(-r));
                return r;
        }
        list = json_array();
        if (!list)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_inputs; i++) {
                const struct npu_tensor *t = &m->inputs[i];
                const json_t *shape = json_object_get(c->shapes, t->name);
                size_t n_instances = t->is_list ? json_array_size(shape) : 1;
                double range[2];
                bool have_range;

                if (json_is_null(shape))
                        continue; /* absent: no instance, as in the runtime */
                r = input_range(m, c, t->name, range, &have_range, err, err_size);
                if (r < 0)
                        goto fail;
                for (size_t j = 0; j < n_instances; j++, k++) {
                        const json_t *dims = t->is_list ? json_array_get(shape, j) : shape;
                        struct npu_input_generator g;
                        char path[PATH_MAX];
                        uint64_t elements;
                        json_t *entry;

                        r = shape_elements(dims, &elements);
                        if (r < 0) {
                                snprintf(err, err_size, "%s: .cases[%zu].shapes.%s: %s", m->source,
                                         case_index, t->name,
                                         r == -E2BIG ? "too many elements" : "not a shape");
                                goto fail;
                        }
                        if (t->is_list)
                                r = format_path(path, sizeof(path), "%s/in_%s_%zu.bin", dir,
                                                t->name, j);
                        else
                                r = format_path(path, sizeof(path), "%s/in_%s.bin", dir, t->name);
                        if (r < 0) {
                                snprintf(err, err_size, "%s: path too long", dir);
                                goto fail;
                        }
                        npu_input_generator_init(&g, t->dtype, seed, k, have_range ? range : NULL);
                        r = write_tensor(&g, elements, path);
                        if (r < 0) {
                                snprintf(err, err_size, "%s: cannot write: %s", path, strerror(-r));
                                goto fail;
                        }
                        entry = json_pack("{s:s, s:s, s:O, s:s}", "name", t->name, "dtype",
                                          npu_dtype_name(t->dtype), "shape", dims, "file", path);
                        if (!entry || json_array_append_new(list, entry) < 0) {
                                r = -ENOMEM;
                                goto fail;
                        }
                }
        }
        *ret_inputs = list;
        return 0;
fail:
        json_decref(list);
        return r;
}
