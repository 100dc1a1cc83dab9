/* SPDX-License-Identifier: MIT */
/* Reference for libmath_power_int: y[3, n] = x ^ e, x ^ 3 and 2 ^ e on
 * int32_t, by repeated multiplication in 64 bits, wrapped to 32. */
#include "../../../sim/refutil.h"

static int32_t ipow(int32_t b, int32_t e)
{
	int64_t r = 1;
	for (int32_t i = 0; i < e; i++)
		r = (int64_t)(int32_t)(uint32_t)(r * b);
	return (int32_t)r;
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n, ne;
	int32_t *x = ref_read("in_x.bin", &n), *e = ref_read("in_e.bin", &ne);
	n /= 4;
	int32_t *y = malloc(3 * n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		y[i] = ipow(x[i], e[i]);
		y[n + i] = ipow(x[i], 3);
		y[2 * n + i] = ipow(2, e[i]);
	}
	ref_write("out_y.bin", y, 3 * n * 4);
	return 0;
}
