/* SPDX-License-Identifier: MIT */
/* Reference for bf16_scale: y = bfloat16(float(x) * 1.5) through Cast bfloat16 <-> float. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		y[i] = ref_f2bf(ref_bf2f(x[i]) * 1.5f);
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
