/* SPDX-License-Identifier: MIT */
/* Golden reference for HiddenSetterTile: y = 2x + 1 in float32 (each step rounded as the kernel does). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	float *y = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++) {
		float t = 2.0f * x[i];
		y[i] = t + 1.0f;
	}
	ref_write("out_y.bin", y, n * sizeof(float));
	return 0;
}
