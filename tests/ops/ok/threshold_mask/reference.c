/* SPDX-License-Identifier: MIT */
/* Reference for ThresholdMask: y = (x > 1) as bool (one byte, 0 or 1). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	unsigned char *y = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] > 1.0f;
	ref_write("out_y.bin", y, n);
	return 0;
}
