/* SPDX-License-Identifier: MIT */
/* Golden reference for ReciprocalCustom: y = 1 / x for float16 x, computed
 * in double and rounded once to half. */
#include "refutil.h"

/* double -> half, round to nearest even, overflow to infinity. */
static uint16_t d2h(double v)
{
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v))
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

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		y[i] = d2h(1.0 / (double)ref_h2f(x[i]));
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
