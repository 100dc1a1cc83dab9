/* SPDX-License-Identifier: MIT */
/* Reference for binary_repeat: z = min(max((x - y) * x / y, -4), 4), w = x + y. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 4;
	float *z = malloc(n * 4 + 4), *w = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float v = x[i] - y[i];
		v = v * x[i];
		v = v / y[i];
		v = v > -4.0f ? v : -4.0f;
		z[i] = v < 4.0f ? v : 4.0f;
		w[i] = x[i] + y[i];
	}
	ref_write("out_z.bin", z, n * 4);
	ref_write("out_w.bin", w, n * 4);
	return 0;
}
