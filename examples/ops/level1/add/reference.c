/* SPDX-License-Identifier: MIT */
/* Golden reference for AddCustom: z = x + y in float32, computed in double
 * and rounded once (the sum of two floats rounds the same way). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= sizeof(float);
	float *z = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++)
		z[i] = (float)((double)x[i] + (double)y[i]);
	ref_write("out_z.bin", z, n * sizeof(float));
	return 0;
}
