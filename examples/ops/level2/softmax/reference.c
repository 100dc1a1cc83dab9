/* SPDX-License-Identifier: MIT */
/* Reference for softmax over the last axis, in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	float *x = ref_read("in_x.bin", NULL);
	float *y = malloc(rows * cols * sizeof(float) + 4);
	double *e = malloc(cols * sizeof(double) + 8);
	for (int64_t r = 0; r < rows; r++) {
		const float *row = x + r * cols;
		double mx = row[0], sum = 0;
		for (int64_t c = 1; c < cols; c++)
			if (row[c] > mx)
				mx = row[c];
		for (int64_t c = 0; c < cols; c++) {
			e[c] = exp((double)row[c] - mx);
			sum += e[c];
		}
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)(e[c] / sum);
	}
	ref_write("out_y.bin", y, rows * cols * sizeof(float));
	return 0;
}
