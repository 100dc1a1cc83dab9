/* SPDX-License-Identifier: MIT */
/*
 * Reference for sum_rows: each row's sum as ReduceSum adds, a pairwise
 * tree in every 64-float repeat (each partial rounded to float), the
 * repeat sums then in order; y and z are the same.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0], cols = d[1];
	float *x = ref_read("in_x.bin", NULL), *y = malloc(rows * sizeof(float) + 4);
	for (int64_t r = 0; r < rows; r++)
		y[r] = ref_sum_in_order_f32(x + r * cols, (int)cols);
	ref_write("out_y.bin", y, rows * sizeof(float));
	ref_write("out_z.bin", y, rows * sizeof(float));
	return 0;
}
