/* SPDX-License-Identifier: MIT */
/* Reference for scalar_wait_order: z = (x + x[0]) * (x[1] + x[0]), each step rounded to float. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *z = malloc(n * 4 + 4);
	float second = x[1] + x[0];
	for (size_t i = 0; i < n; i++) {
		float t = x[i] + x[0];
		z[i] = t * second;
	}
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
