/*
 * SPDX-License-Identifier: MIT
 *
 * Reference for atomic_colsum.  The simulator's order is deterministic: core
 * c owns rows [c*per, (c+1)*per) with per = ceil(rows / block_dim rounded as
 * the tiling does), sums them in row order from 0, and the atomic adds land
 * in core order on a zeroed output; float rounding follows that order.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0], cols = d[1];
	int64_t cores = json_integer_value(json_object_get(ref_res, "block_dim"));
	int64_t per = (rows + cores - 1) / cores;
	/* The tiling took per = ceil(rows / coreNum) and block_dim = ceil(rows / per);
	 * recover per from block_dim: the smallest per giving that many cores. */
	for (per = 1; (rows + per - 1) / per > cores; per++)
		;
	float *x = ref_read("in_x.bin", NULL);
	float *z = calloc(cols + 1, 4), *acc = malloc(cols * 4 + 4);
	for (int64_t c = 0; c < cores; c++) {
		for (int64_t j = 0; j < cols; j++)
			acc[j] = 0.0f;
		for (int64_t r = c * per; r < rows && r < (c + 1) * per; r++)
			for (int64_t j = 0; j < cols; j++)
				acc[j] = acc[j] + x[r * cols + j];
		for (int64_t j = 0; j < cols; j++)
			z[j] = z[j] + acc[j];
	}
	ref_write("out_z.bin", z, cols * 4);
	return 0;
}
