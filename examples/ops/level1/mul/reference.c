/* SPDX-License-Identifier: MIT */
/* Golden reference for MulCustom: z = x * y in float16.  The product of two
 * halves is exact in double; it is rounded once to half (nearest even). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 2;
	uint16_t *z = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		z[i] = ref_f2h((float)((double)ref_h2f(x[i]) * (double)ref_h2f(y[i])));
	ref_write("out_z.bin", z, n * 2);
	return 0;
}
