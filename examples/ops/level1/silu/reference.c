/* SPDX-License-Identifier: MIT */
/* Golden reference for SiluCustom: y = x / (1 + exp(-x)) in float32,
 * computed in double and rounded once. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	float *y = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++) {
		double v = x[i];
		y[i] = (float)(v / (1.0 + exp(-v)));
	}
	ref_write("out_y.bin", y, n * sizeof(float));
	return 0;
}
