/* SPDX-License-Identifier: MIT */
/* Reference for compare_select: z = select(x < y, x, y) and w = select(x > 0, x, 0) with Compare, CompareScalar and Select. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 4;
	float *z = malloc(n * 4 + 4), *w = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		z[i] = x[i] < y[i] ? x[i] : y[i];
		w[i] = x[i] > 0.0f ? x[i] : 0.0f;
	}
	ref_write("out_z.bin", z, n * 4);
	ref_write("out_w.bin", w, n * 4);
	return 0;
}
