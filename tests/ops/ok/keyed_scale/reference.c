/* SPDX-License-Identifier: MIT */
/* Golden reference for KeyedScale: y = 3x in float32 (exact for the generated inputs). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	float *y = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++)
		y[i] = 3.0f * x[i];
	ref_write("out_y.bin", y, n * sizeof(float));
	return 0;
}
