/* SPDX-License-Identifier: MIT */
/*
 * Reference for sum_rows: each row's sum as ReduceSum adds, a pairwise
 * tree in every 64-float repeat (each partial rounded to float), the
 * repeat sums then in order; y and z are the same.
 */
#include "../../../sim/refutil.h"

static float tree(float *v, int n)
{
	while (n > 1) {
		int h = n / 2;
		for (int i = 0; i < h; i++)
			v[i] = v[2 * i] + v[2 * i + 1];
		if (n & 1)
			v[h] = v[n - 1];
		n = h + (n & 1);
	}
	return v[0];
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0], cols = d[1];
	float *x = ref_read("in_x.bin", NULL), *y = malloc(rows * sizeof(float) + 4), buf[64];
	for (int64_t r = 0; r < rows; r++) {
		float acc = 0;
		for (int64_t c0 = 0; c0 < cols; c0 += 64) {
			int m = cols - c0 < 64 ? (int)(cols - c0) : 64;
			for (int k = 0; k < m; k++)
				buf[k] = x[r * cols + c0 + k];
			float part = tree(buf, m);
			acc = c0 == 0 ? part : acc + part;
		}
		y[r] = acc;
	}
	ref_write("out_y.bin", y, rows * sizeof(float));
	ref_write("out_z.bin", y, rows * sizeof(float));
	return 0;
}
