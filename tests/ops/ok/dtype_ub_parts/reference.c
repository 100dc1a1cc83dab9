/* SPDX-License-Identifier: MIT */
/* Reference for dtype_ub_parts: y = 2x + 1 in float32, rounded once. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	float *y = malloc(n * sizeof(float) + 1);
	for (size_t i = 0; i < n; i++)
		y[i] = (float)(2.0 * (double)x[i] + 1.0);
	ref_write("out_y.bin", y, n * sizeof(float));
	return 0;
}
