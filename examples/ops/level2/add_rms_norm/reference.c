/* SPDX-License-Identifier: MIT */
/*
 * Reference for add_rms_norm: x = half(x1 + x2); y = x / sqrt(mean(x^2) + eps)
 * * gamma over the last axis, from the half-rounded x, in double, rounded
 * once to half.
 */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x1", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x1", -1) / cols;
	double eps = (float)json_number_value(ref_attr("epsilon"));
	uint16_t *x1 = ref_read("in_x1.bin", NULL), *x2 = ref_read("in_x2.bin", NULL), *g = ref_read("in_gamma.bin", NULL);
	uint16_t *x = malloc(rows * cols * 2 + 2), *y = malloc(rows * cols * 2 + 2);
	for (int64_t i = 0; i < rows * cols; i++)
		x[i] = ref_hadd(x1[i], x2[i]);
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *row = x + r * cols;
		double ss = 0;
		for (int64_t c = 0; c < cols; c++)
			ss += (double)ref_h2f(row[c]) * ref_h2f(row[c]);
		double rstd = 1.0 / sqrt(ss / (double)cols + eps);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = ref_f2h((float)((double)ref_h2f(row[c]) * rstd * ref_h2f(g[c])));
	}
	ref_write("out_y.bin", y, rows * cols * 2);
	ref_write("out_x.bin", x, rows * cols * 2);
	return 0;
}
