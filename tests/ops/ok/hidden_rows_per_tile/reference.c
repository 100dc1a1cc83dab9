/* SPDX-License-Identifier: MIT */
/* Golden reference for HiddenRowsPerTile: y = x + b over the rows of x, float32 (exact). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n, cols;
	float *x = ref_read("in_x.bin", &n);
	float *b = ref_read("in_b.bin", &cols);
	n /= sizeof(float);
	cols /= sizeof(float);
	float *y = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] + b[i % cols];
	ref_write("out_y.bin", y, n * sizeof(float));
	return 0;
}
