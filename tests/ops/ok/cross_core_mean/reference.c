/* SPDX-License-Identifier: MIT */
/* Reference for cross_core_mean: z = x - mean(x), the mean taken in double. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	float mean = (float)(sum / (double)n);
	float *z = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++)
		z[i] = x[i] - mean;
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
