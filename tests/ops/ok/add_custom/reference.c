/* SPDX-License-Identifier: MIT */
/* Reference for add_custom: z = x + y in half, rounded once to nearest even. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 2;
	uint16_t *z = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		z[i] = ref_hadd(x[i], y[i]);
	ref_write("out_z.bin", z, n * 2);
	return 0;
}
