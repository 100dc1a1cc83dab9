/* SPDX-License-Identifier: MIT */
/* Reference for cast_int8: int8 -> half, 2x + 1 in half, back to int8 (CAST_TRUNC) and uint8 (CAST_FLOOR) with saturation. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	int8_t *x = ref_read("in_x.bin", &n);
	int8_t *y = malloc(n + 1);
	uint8_t *u = malloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		int v = 2 * x[i] + 1;
		y[i] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
		u[i] = (uint8_t)(v > 255 ? 255 : v < 0 ? 0 : v);
	}
	ref_write("out_y.bin", y, n);
	ref_write("out_u.bin", u, n);
	return 0;
}
