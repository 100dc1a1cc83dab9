/* SPDX-License-Identifier: MIT */
/* Reference for tiling_scope: z = x * 1.5. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *z = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++)
		z[i] = x[i] * 1.5f;
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
