/* SPDX-License-Identifier: MIT */
/* Golden reference for Narrow: y[r][j] = x[r][start + j] for every row r
 * of the last axis and 0 <= j < length (an exact copy). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t dims[8];
	int nd = ref_shape("inputs", "x", -1, dims);
	int64_t start = (int64_t)json_number_value(ref_attr("start"));
	int64_t length = (int64_t)json_number_value(ref_attr("length"));
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	if (nd < 1)
		ref_die("x has no axes", NULL);
	int64_t cols = dims[nd - 1];
	int64_t rows = (int64_t)(n / sizeof(float)) / (cols ? cols : 1);
	float *y = malloc((size_t)(rows * length) * sizeof(float) + 4);
	for (int64_t r = 0; r < rows; r++)
		for (int64_t j = 0; j < length; j++)
			y[r * length + j] = x[r * cols + start + j];
	ref_write("out_y.bin", y, (size_t)(rows * length) * sizeof(float));
	return 0;
}
