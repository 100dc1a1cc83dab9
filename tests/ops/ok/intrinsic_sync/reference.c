/* SPDX-License-Identifier: MIT */
/*
 * Reference for intrinsic_sync: z = 2x + 1 (each step rounded to float)
 * and f = z[r][0] per row.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0], cols = d[1];
	float *x = ref_read("in_x.bin", NULL);
	float *z = malloc(rows * cols * 4 + 4), *f = malloc(rows * 4 + 4);
	for (int64_t i = 0; i < rows * cols; i++) {
		float t = x[i] * 2.0f;
		z[i] = t + 1.0f;
	}
	for (int64_t r = 0; r < rows; r++)
		f[r] = z[r * cols];
	ref_write("out_z.bin", z, rows * cols * 4);
	ref_write("out_f.bin", f, rows * 4);
	return 0;
}
