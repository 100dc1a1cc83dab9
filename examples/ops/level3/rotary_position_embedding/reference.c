/* SPDX-License-Identifier: MIT */
/* Reference for rotary_position_embedding, rotate-half form: for x of
 * [tokens, heads, dim] and cos, sin of [tokens, dim],
 *   y[i] = x[i] cos[i] - x[i + dim/2] sin[i]          for i <  dim/2
 *   y[i] = x[i] cos[i] + x[i - dim/2] sin[i]          for i >= dim/2
 * in double from the half inputs, rounded once to half. */
#include "refutil.h"

/* double -> half, round to nearest even once (no detour through float). */
static uint16_t d2h(double v)
{
	if (isnan(v))
		return 0x7e00;
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
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

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t tokens = d[0], heads = d[1], dim = d[2], half = dim / 2;
	uint16_t *x = ref_read("in_x.bin", NULL), *c = ref_read("in_cos.bin", NULL), *s = ref_read("in_sin.bin", NULL);
	size_t n = (size_t)(tokens * heads * dim);
	uint16_t *y = malloc(n * 2 + 2);
	for (int64_t t = 0; t < tokens; t++)
		for (int64_t h = 0; h < heads; h++) {
			const uint16_t *xr = x + (t * heads + h) * dim;
			uint16_t *yr = y + (t * heads + h) * dim;
			for (int64_t i = 0; i < dim; i++) {
				double ci = ref_h2f(c[t * dim + i]), si = ref_h2f(s[t * dim + i]);
				double rot = i < half ? -(double)ref_h2f(xr[i + half]) : (double)ref_h2f(xr[i - half]);
				yr[i] = d2h((double)ref_h2f(xr[i]) * ci + rot * si);
			}
		}
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
