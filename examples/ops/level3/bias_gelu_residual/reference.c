/* SPDX-License-Identifier: MIT */
/* Reference for bias_gelu_residual: y = gelu(x + bias) + residual with the
 * tanh form gelu(u) = 0.5 u (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3))), bias
 * broadcast along the last axis, computed in double from the half inputs
 * and rounded once to half. */
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
	int64_t cols = ref_numel("inputs", "bias", -1);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n), *b = ref_read("in_bias.bin", NULL), *r = ref_read("in_residual.bin", NULL);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2);
	const double k = sqrt(2.0 / M_PI);
	for (size_t i = 0; i < n; i++) {
		double u = (double)ref_h2f(x[i]) + (double)ref_h2f(b[i % (size_t)cols]);
		double g = 0.5 * u * (1.0 + tanh(k * (u + 0.044715 * u * u * u)));
		y[i] = d2h(g + (double)ref_h2f(r[i]));
	}
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
