/* SPDX-License-Identifier: MIT */
/* Reference for rows_no_tail: y = (float)(2x) + 1, each step rounded to float. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *y = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float t = x[i] * 2.0f;
		y[i] = t + 1.0f;
	}
	ref_write("out_y.bin", y, n * 4);
	return 0;
}
