/* SPDX-License-Identifier: MIT */
/* Reference for libmath_float: row k of y[26, n] is library math API k of
 * x or p (see the kernel's list), in float with libm. */
#include "../../../sim/refutil.h"

/* The library Exp's documented Taylor form: e to floor(a), times the
 * series of e to the fractional part to `terms` terms past 1, in double. */
static float exp_taylor(float a, int terms)
{
	double whole = floor(a), frac = a - whole, sum = 1, term = 1;
	for (int k = 1; k <= terms; k++) {
		term *= frac / k;
		sum += term;
	}
	return (float)(exp(whole) * sum);
}

static float sign(float a)
{
	return a > 0 ? 1.0f : a < 0 ? -1.0f : 0.0f;
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n, np;
	float *x = ref_read("in_x.bin", &n), *p = ref_read("in_p.bin", &np);
	n /= 4;
	float *y = malloc(26 * n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float a = x[i], b = p[i], q = p[i] + -4.0f;
		float r[26] = {
			sinf(a), cosf(a), tanf(a), asinf(a), acosf(a), atanf(a),
			sinhf(a), coshf(a), tanhf(a), erff(a), erfcf(a), sign(a),
			floorf(q), ceilf(q), truncf(q), logf(b), log2f(b), log10f(b),
			powf(b, a), powf(b, 2.5f), powf(2.0f, a), 1.0f / (1.0f + expf(-a)),
			exp_taylor(b, 15), expf(a), exp_taylor(q, 3), sinf(a),
		};
		for (int k = 0; k < 26; k++)
			y[k * n + i] = r[k];
	}
	ref_write("out_y.bin", y, 26 * n * 4);
	return 0;
}
