/* SPDX-License-Identifier: MIT */
/* Reference for bias_add: y[n, c] = x[n, c] + bias[c] in half, rounded once to nearest even. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "x", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "x", -1) / cols;
	uint16_t *x = ref_read("in_x.bin", NULL), *b = ref_read("in_bias.bin", NULL);
	uint16_t *y = malloc(rows * cols * 2 + 2);
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = ref_hadd(x[r * cols + c], b[c]);
	ref_write("out_y.bin", y, rows * cols * 2);
	return 0;
}
