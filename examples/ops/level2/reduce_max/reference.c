/* SPDX-License-Identifier: MIT */
/* Reference for reduce_max: y[r] = max of x[r, :] for a half matrix (exact, no rounding). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	uint16_t *x = ref_read("in_x.bin", NULL);
	uint16_t *y = malloc(rows * 2 + 2);
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *row = x + r * cols;
		double best = ref_h2f(row[0]);
		uint16_t bits = row[0];
		for (int64_t c = 1; c < cols; c++)
			if (ref_h2f(row[c]) > best) {
				best = ref_h2f(row[c]);
				bits = row[c];
			}
		y[r] = bits;
	}
	ref_write("out_y.bin", y, rows * 2);
	return 0;
}
