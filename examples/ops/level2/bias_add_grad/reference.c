/* SPDX-License-Identifier: MIT */
/* Reference for bias_add_grad: dbias[c] = sum over rows of dy[n, c], in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[16];
	int nd = ref_shape("inputs", "dy", -1, d);
	int64_t cols = d[nd - 1], rows = ref_numel("inputs", "dy", -1) / cols;
	float *dy = ref_read("in_dy.bin", NULL);
	double *acc = calloc(cols + 1, sizeof(double));
	float *db = malloc(cols * sizeof(float) + 4);
	for (int64_t r = 0; r < rows; r++)
		for (int64_t c = 0; c < cols; c++)
			acc[c] += dy[r * cols + c];
	for (int64_t c = 0; c < cols; c++)
		db[c] = (float)acc[c];
	ref_write("out_dbias.bin", db, cols * sizeof(float));
	return 0;
}
