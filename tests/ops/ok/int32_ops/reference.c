/* SPDX-License-Identifier: MIT */
/* Reference for int32_ops: z = max((x + y) * x, -1000000) on int32 with wrap-around (Add, Mul, Maxs). */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	int32_t *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 4;
	int32_t *z = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		int32_t s = (int32_t)((uint32_t)x[i] + (uint32_t)y[i]);
		int32_t p = (int32_t)((uint32_t)s * (uint32_t)x[i]);
		z[i] = p > -1000000 ? p : -1000000;
	}
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
