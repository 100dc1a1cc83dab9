/* SPDX-License-Identifier: MIT */
/* Reference for sum_squares: y = sum of x[i]^2 over the whole tensor, in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	double acc = 0;
	for (size_t i = 0; i < n; i++)
		acc += (double)x[i] * x[i];
	float y = (float)acc;
	ref_write("out_y.bin", &y, sizeof y);
	return 0;
}
