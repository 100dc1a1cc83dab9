/* SPDX-License-Identifier: MIT */
/* Reference for real_idioms: y = x > 0 ? x : 0 (NaN gives 0), z = 1.5 in bfloat16. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t len;
	float *x = ref_read("in_x.bin", &len);
	size_t n = len / sizeof(float);
	float *y = malloc(n * sizeof(float) + 4);
	uint16_t *z = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++) {
		y[i] = x[i] > 0 ? x[i] : 0.0f;
		z[i] = ref_f2bf(1.5f);
	}
	ref_write("out_y.bin", y, n * sizeof(float));
	ref_write("out_z.bin", z, n * 2);
	return 0;
}
