/* SPDX-License-Identifier: MIT */
/* Reference for mask_counter: z = (x + y) * x with SetMaskCount/SetVectorMask counter mode and the mask/repeat form with isSetMask = false. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 4;
	float *z = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float s = x[i] + y[i];
		z[i] = s * x[i];
	}
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
