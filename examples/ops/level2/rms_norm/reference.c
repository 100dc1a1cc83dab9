/* SPDX-License-Identifier: MIT */
/* Reference for rms_norm: y = x / sqrt(mean(x^2) + epsilon) * gamma per row, in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	double eps = json_number_value(ref_attr("epsilon"));
	float *x = ref_read("in_x.bin", NULL), *g = ref_read("in_gamma.bin", NULL);
	float *y = malloc(rows * cols * sizeof(float) + 4);
	for (int64_t r = 0; r < rows; r++) {
		const float *row = x + r * cols;
		double ss = 0;
		for (int64_t c = 0; c < cols; c++)
			ss += (double)row[c] * row[c];
		double rstd = 1.0 / sqrt(ss / (double)cols + (double)(float)eps);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)((double)row[c] * rstd * g[c]);
	}
	ref_write("out_y.bin", y, rows * cols * sizeof(float));
	return 0;
}
