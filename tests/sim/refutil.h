/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the operators' reference programs: file I/O, shapes and
 * attributes from the run's result.json, and half/bfloat16 conversions
 * written independently of the simulator (double arithmetic and
 * nearbyint instead of bit tricks).  Header-only so each reference.c
 * stays a single translation unit: cc reference.c -ljansson -lm.
 */
#ifndef ASCENDOPT_TESTS_SIM_REFUTIL_H
#define ASCENDOPT_TESTS_SIM_REFUTIL_H

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ref_indir, *ref_outdir;
static json_t *ref_res;

static void ref_die(const char *msg, const char *arg)
{
        fprintf(stderr, "reference: %s %s\n", msg, arg ? arg : "");
        exit(1);
}

/* reference INDIR OUTDIR: INDIR holds in_*.bin and result.json. */
static void ref_init(int argc, char **argv)
{
        if (argc != 3)
                ref_die("usage: reference INDIR OUTDIR", NULL);
        ref_indir = argv[1];
        ref_outdir = argv[2];
        char path[4096];
        snprintf(path, sizeof path, "%s/result.json", ref_indir);
        json_error_t e;
        ref_res = json_load_file(path, 0, &e);
        if (!ref_res)
                ref_die("cannot read", path);
}

static void *ref_read(const char *file, size_t *len)
{
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", ref_indir, file);
        FILE *f = fopen(path, "rb");
        if (!f)
                ref_die("cannot open", path);
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        void *p = malloc(n > 0 ? (size_t)n : 1);
        if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n)
                ref_die("short read", path);
        fclose(f);
        if (len)
                *len = (size_t)n;
        return p;
}

static void ref_write(const char *file, const void *p, size_t len)
{
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", ref_outdir, file);
        FILE *f = fopen(path, "wb");
        if (!f || (len && fwrite(p, 1, len, f) != len) || fclose(f))
                ref_die("cannot write", path);
}

/* Dims of input/output `name` (list element `index`, or -1); returns count. */
static int ref_shape(const char *which, const char *name, int index, int64_t *dims)
{
        size_t i;
        json_t *t;
        json_array_foreach(json_object_get(ref_res, which), i, t)
        {
                json_t *ix = json_object_get(t, "index");
                if (strcmp(json_string_value(json_object_get(t, "name")), name) ||
                    (ix ? json_integer_value(ix) : -1) != index)
                        continue;
                json_t *s = json_object_get(t, "shape");
                for (size_t d = 0; d < json_array_size(s); d++)
                        dims[d] = json_integer_value(json_array_get(s, d));
                return (int)json_array_size(s);
        }
        ref_die("no such tensor", name);
        return 0;
}

static int64_t ref_numel(const char *which, const char *name, int index)
{
        int64_t d[32], n = 1;
        int k = ref_shape(which, name, index, d);
        for (int i = 0; i < k; i++)
                n *= d[i];
        return n;
}

static json_t *ref_attr(const char *name)
{
        json_t *a = json_object_get(json_object_get(ref_res, "attrs"), name);
        if (!a)
                ref_die("no such attribute", name);
        return a;
}

static float ref_h2f(uint16_t h)
{
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e == 0    ? ldexp(m, -24)
                   : e == 31 ? (m ? NAN : INFINITY)
                             : ldexp(m + 1024, e - 25);
        return (float)((h & 0x8000) ? -v : v);
}

/* Round to nearest even, overflow to infinity. */
static uint16_t ref_f2h(float f)
{
        uint16_t sign = signbit(f) ? 0x8000 : 0;
        double a = fabs((double)f);
        if (isnan(f))
                return 0x7e00;
        if (a >= 65520.0)
                return sign | 0x7c00;
        if (a < ldexp(1, -14))
                return sign | (uint16_t)nearbyint(a * 16777216.0);
        int e;
        frexp(a, &e);
        int E = e - 1;
        double m = nearbyint(a / ldexp(1, E - 10));
        if (m == 2048) {
                m = 1024;
                E++;
        }
        if (E > 15)
                return sign | 0x7c00;
        return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(m - 1024);
}

static float ref_bf2f(uint16_t b)
{
        uint32_t u = (uint32_t)b << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
}

static uint16_t ref_f2bf(float f)
{
        if (isnan(f))
                return 0x7fc0;
        uint16_t sign = signbit(f) ? 0x8000 : 0;
        double a = fabs((double)f);
        if (a == 0 || isinf(f))
                return sign | (a == 0 ? 0 : 0x7f80);
        int e;
        frexp(a, &e);
        int E = e - 1;
        if (E < -126)
                E = -126;
        double m = nearbyint(a / ldexp(1, E - 7));
        double r = m * ldexp(1, E - 7);
        if (r > ldexp(255, 120))
                return sign | 0x7f80;
        float rf = (float)r;
        uint32_t u;
        memcpy(&u, &rf, 4);
        return sign | (uint16_t)(u >> 16);
}

/* a op b in half: exact in double, rounded once. */
static uint16_t ref_hadd(uint16_t a, uint16_t b)
{
        return ref_f2h((float)((double)ref_h2f(a) + ref_h2f(b)));
}

/* Round to an integral value: 1 nearest even, 2 floor, 3 ceil, 4 nearest
 * away from zero, 5 toward zero, 6 to odd (the RoundMode numbering). */
static double ref_round_int(double x, int mode)
{
        switch (mode) {
        case 2:
                return floor(x);
        case 3:
                return ceil(x);
        case 4:
                return round(x);
        case 5:
                return trunc(x);
        case 6: {
                double t = trunc(x);
                if (t != x && fmod(t, 2.0) == 0.0)
                        t += x > 0 ? 1.0 : -1.0;
                return t;
        }
        default:
                return nearbyint(x);
        }
}

/* float -> half under a rounding mode, IEEE overflow per direction. */
static uint16_t ref_f2h_mode(float f, int mode)
{
        if (isnan(f))
                return 0x7e00;
        double a = f;
        if (a == 0 || isinf(f))
                return ref_f2h(f);
        int e;
        frexp(fabs(a), &e);
        int E = e - 1 < -14 ? -14 : e - 1;
        double q = ldexp(1, E - 10);
        double r = ref_round_int(a / q, mode) * q;
        if (fabs(r) > 65504.0) {
                int pos = a > 0;
                switch (mode) {
                case 5:
                case 6:
                        return pos ? 0x7bff : 0xfbff;
                case 2:
                        return pos ? 0x7bff : 0xfc00;
                case 3:
                        return pos ? 0x7c00 : 0xfbff;
                default:
                        return pos ? 0x7c00 : 0xfc00;
                }
        }
        return ref_f2h((float)r);
}

/* A float sum as the simulator's ReduceSum adds: a pairwise tree over at
 * most 64 values (one 256-byte repeat), every partial rounded to float. */
static inline float ref_tree_f32(const float *src, int n)
{
        float v[64];
        memcpy(v, src, n * sizeof(float));
        while (n > 1) {
                int h = n / 2;
                for (int i = 0; i < h; i++)
                        v[i] = v[2 * i] + v[2 * i + 1];
                if (n & 1)
                        v[h] = v[n - 1];
                n = h + (n & 1);
        }
        return v[0];
}

/* n floats as ReduceSum's count form adds them: a tree per 64, the trees in order. */
static inline float ref_sum_in_order_f32(const float *x, int n)
{
        float acc = 0;
        for (int r = 0; r * 64 < n; r++) {
                int m = n - r * 64 < 64 ? n - r * 64 : 64;
                float part = ref_tree_f32(x + r * 64, m);
                acc = r == 0 ? part : acc + part;
        }
        return acc;
}

#endif
