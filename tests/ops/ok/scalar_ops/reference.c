/* SPDX-License-Identifier: MIT */
/* Reference for scalar_ops: z = min(max((x + 0.5) * 2, -1), 1.5) with Adds, Muls, Maxs and Mins (count form). */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *z = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float v = x[i] + 0.5f;
		v = v * 2.0f;
		v = v > -1.0f ? v : -1.0f;
		z[i] = v < 1.5f ? v : 1.5f;
	}
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
