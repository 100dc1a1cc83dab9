/* SPDX-License-Identifier: MIT */
/*
 * Compares two raw little-endian tensors with the tolerance rule of docs/design.md: an
 * element passes when |got - want| <= atol + rtol * |want|; NaN and Inf must
 * sit in the same places; the case passes when the failing fraction is at
 * most max_mismatch_fraction.
 *
 *   compare DTYPE ATOL RTOL MAXFRAC GOT.bin WANT.bin
 *
 * Exits 0 on a pass, 1 on a mismatch, 2 on bad usage or unreadable files.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *len)
{
        FILE *f = fopen(path, "rb");
        if (!f)
                return NULL;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
        if (p && n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
                free(p);
                p = NULL;
        }
        fclose(f);
        *len = (size_t)n;
        return p;
}

static double half_value(uint16_t h)
{
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double v = e == 0    ? ldexp(m, -24)
                   : e == 31 ? (m ? NAN : INFINITY)
                             : ldexp(m + 1024, e - 25);
        return (h & 0x8000) ? -v : v;
}

static double load(const char *dt, const unsigned char *p, size_t i)
{
        if (!strcmp(dt, "float16")) {
                uint16_t h;
                memcpy(&h, p + 2 * i, 2);
                return half_value(h);
        }
        if (!strcmp(dt, "bfloat16")) {
                uint32_t u = (uint32_t)(p[2 * i] | p[2 * i + 1] << 8) << 16;
                float f;
                memcpy(&f, &u, 4);
                return f;
        }
        if (!strcmp(dt, "float32")) {
                float f;
                memcpy(&f, p + 4 * i, 4);
                return f;
        }
#define INT(name, type)                                         \
        if (!strcmp(dt, name)) {                                \
                type v;                                         \
                memcpy(&v, p + sizeof(type) * i, sizeof(type)); \
                return (double)v;                               \
        }
        INT("int8", int8_t)
        INT("uint8", uint8_t)
        INT("bool", uint8_t)
        INT("int16", int16_t)
        INT("uint16", uint16_t)
        INT("int32", int32_t)
        INT("uint32", uint32_t)
        INT("int64", int64_t)
        INT("uint64", uint64_t)
        fprintf(stderr, "compare: unknown dtype %s\n", dt);
        exit(2);
}

static size_t width(const char *dt)
{
        if (!strcmp(dt, "float16") || !strcmp(dt, "bfloat16") || !strcmp(dt, "int16") ||
            !strcmp(dt, "uint16"))
                return 2;
        if (!strcmp(dt, "float32") || !strcmp(dt, "int32") || !strcmp(dt, "uint32"))
                return 4;
        if (!strcmp(dt, "int64") || !strcmp(dt, "uint64"))
                return 8;
        return 1;
}

int main(int argc, char **argv)
{
        if (argc != 7) {
                fprintf(stderr, "usage: compare DTYPE ATOL RTOL MAXFRAC GOT.bin WANT.bin\n");
                return 2;
        }
        const char *dt = argv[1];
        double atol = atof(argv[2]), rtol = atof(argv[3]), maxfrac = atof(argv[4]);
        size_t ng, nw;
        unsigned char *got = slurp(argv[5], &ng), *want = slurp(argv[6], &nw);
        if (!got || !want) {
                fprintf(stderr, "compare: cannot read %s\n", !got ? argv[5] : argv[6]);
                return 2;
        }
        if (ng != nw) {
                fprintf(stderr, "compare: %s has %zu bytes, %s has %zu\n", argv[5], ng, argv[6],
                        nw);
                return 1;
        }
        size_t n = ng / width(dt), bad = 0, first = (size_t)-1;
        double max_abs = 0, max_rel = 0;
        for (size_t i = 0; i < n; i++) {
                double g = load(dt, got, i), w = load(dt, want, i);
                int ok;
                if (isnan(w) || isnan(g))
                        ok = isnan(w) && isnan(g);
                else if (isinf(w) || isinf(g))
                        ok = g == w;
                else {
                        double d = fabs(g - w);
                        ok = d <= atol + rtol * fabs(w);
                        if (d > max_abs)
                                max_abs = d;
                        if (w != 0 && d / fabs(w) > max_rel)
                                max_rel = d / fabs(w);
                }
                if (!ok && bad++ == 0)
                        first = i;
        }
        double frac = n ? (double)bad / (double)n : 0;
        if (frac > maxfrac) {
                fprintf(stderr,
                        "compare: %zu of %zu elements differ (first at %zu: got %.9g want %.9g); "
                        "max abs %.3g rel %.3g\n",
                        bad, n, first, load(dt, got, first), load(dt, want, first), max_abs,
                        max_rel);
                return 1;
        }
        return 0;
}
