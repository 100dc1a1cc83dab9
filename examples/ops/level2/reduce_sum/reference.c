/* SPDX-License-Identifier: MIT */
/* Reference for reduce_sum: y[r] = sum of x[r, :] in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	float *x = ref_read("in_x.bin", NULL);
	float *y = malloc(rows * sizeof(float) + 4);
	for (int64_t r = 0; r < rows; r++) {
		double acc = 0;
		for (int64_t c = 0; c < cols; c++)
			acc += x[r * cols + c];
		y[r] = (float)acc;
	}
	ref_write("out_y.bin", y, rows * sizeof(float));
	return 0;
}
