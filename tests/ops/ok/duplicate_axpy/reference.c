/* SPDX-License-Identifier: MIT */
/* Reference for duplicate_axpy: z = x + (1 + y * 0.5) with Duplicate and Axpy (float += half * half); w = 2.5 in lanes 0..31 of each repeat (mask form). */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	uint16_t *y = ref_read("in_y.bin", NULL);
	n /= 4;
	float *z = malloc(n * 4 + 4), *w = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float t = 1.0f + ref_h2f(y[i]) * 0.5f;
		z[i] = t + x[i];
		w[i] = (i % 64) < 32 ? 2.5f : 0.0f;
	}
	ref_write("out_z.bin", z, n * 4);
	ref_write("out_w.bin", w, n * 4);
	return 0;
}
