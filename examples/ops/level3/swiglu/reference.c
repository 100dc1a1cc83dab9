/* SPDX-License-Identifier: MIT */
/* Reference for swiglu: y = silu(a) * b with x = [a, b] split along the last
 * axis, computed in double from the half inputs and rounded once to half. */
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
	int64_t d[16];
	int k = ref_shape("inputs", "x", -1, d);
	int64_t last = d[k - 1], rows = ref_numel("inputs", "x", -1) / last, cols = last / 2;
	uint16_t *x = ref_read("in_x.bin", NULL);
	uint16_t *y = malloc((size_t)(rows * cols) * 2 + 2);
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++) {
			double a = ref_h2f(x[r * last + c]), b = ref_h2f(x[r * last + cols + c]);
			double v = a / (1.0 + exp(-a)) * b;
			y[r * cols + c] = d2h(v);
		}
	ref_write("out_y.bin", y, (size_t)(rows * cols) * 2);
	return 0;
}
