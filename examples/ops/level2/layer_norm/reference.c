/* SPDX-License-Identifier: MIT */
/* Reference for layer_norm over the last axis: y = (x - mean) / sqrt(var + eps) * gamma + beta (biased variance), in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	double eps = (float)json_number_value(ref_attr("epsilon"));
	float *x = ref_read("in_x.bin", NULL), *g = ref_read("in_gamma.bin", NULL), *b = ref_read("in_beta.bin", NULL);
	float *y = malloc(rows * cols * sizeof(float) + 4);
	for (int64_t r = 0; r < rows; r++) {
		const float *row = x + r * cols;
		double mean = 0, var = 0;
		for (int64_t c = 0; c < cols; c++)
			mean += row[c];
		mean /= (double)cols;
		for (int64_t c = 0; c < cols; c++)
			var += ((double)row[c] - mean) * ((double)row[c] - mean);
		var /= (double)cols;
		double rstd = 1.0 / sqrt(var + eps);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)(((double)row[c] - mean) * rstd * g[c] + b[c]);
	}
	ref_write("out_y.bin", y, rows * cols * sizeof(float));
	return 0;
}
