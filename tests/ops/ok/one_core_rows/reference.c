/* SPDX-License-Identifier: MIT */
/* Reference for one_core_rows: the mean of each row of a float matrix (summed in double). */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	float *x = ref_read("in_x.bin", NULL), *y = malloc(d[0] * 4 + 4);
	for (int64_t r = 0; r < d[0]; r++) {
		double acc = 0;
		for (int64_t c = 0; c < d[1]; c++)
			acc += x[r * d[1] + c];
		y[r] = (float)(acc / (double)d[1]);
	}
	ref_write("out_y.bin", y, d[0] * 4);
	return 0;
}
