/* SPDX-License-Identifier: MIT */
/* Reference for tiling_key_dispatch: z = x + y, x * y or x - y by attribute mode. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int mode = (int)json_integer_value(ref_attr("mode"));
	size_t n;
	float *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= 4;
	float *z = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++)
		z[i] = mode == 0 ? x[i] + y[i] : mode == 1 ? x[i] * y[i] : x[i] - y[i];
	ref_write("out_z.bin", z, n * 4);
	return 0;
}
