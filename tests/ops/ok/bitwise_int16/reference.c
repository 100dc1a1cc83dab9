/* SPDX-License-Identifier: MIT */
/* Reference for bitwise_int16: z = ~(x & y) | (x << 2) on int16 with And, Not, ShiftLeft and Or. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	int16_t *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 2;
	int16_t *z = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		z[i] = (int16_t)(~(x[i] & y[i]) | (int16_t)(uint16_t)((uint16_t)x[i] << 2));
	ref_write("out_z.bin", z, n * 2);
	return 0;
}
