/* SPDX-License-Identifier: MIT */
/* Golden reference for CastCustom: float32 -> float16, round to nearest
 * even; magnitudes that round past 65504 become infinity (IEEE). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	uint16_t *y = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		y[i] = ref_f2h(x[i]);
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
