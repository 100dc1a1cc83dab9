/* SPDX-License-Identifier: MIT */
/* Reference for log_softmax over the last axis of a half matrix: y = x - max - ln(sum(exp(x - max))) in double, rounded once to half. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	uint16_t *x = ref_read("in_x.bin", NULL);
	uint16_t *y = malloc(rows * cols * 2 + 2);
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *row = x + r * cols;
		double mx = ref_h2f(row[0]), sum = 0;
		for (int64_t c = 1; c < cols; c++)
			if (ref_h2f(row[c]) > mx)
				mx = ref_h2f(row[c]);
		for (int64_t c = 0; c < cols; c++)
			sum += exp((double)ref_h2f(row[c]) - mx);
		double lse = mx + log(sum);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = ref_f2h((float)((double)ref_h2f(row[c]) - lse));
	}
	ref_write("out_y.bin", y, rows * cols * 2);
	return 0;
}
