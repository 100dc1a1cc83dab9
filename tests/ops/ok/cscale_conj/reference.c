/* SPDX-License-Identifier: MIT */
/* Reference for cscale_conj: y = alpha * conj(x), complex64 as (real, imaginary) float pairs. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	float alpha = (float)json_number_value(ref_attr("alpha"));
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 8;
	float *y = malloc(n * 8 + 8);
	for (size_t i = 0; i < n; i++) {
		y[2 * i] = x[2 * i] * alpha;
		y[2 * i + 1] = -(x[2 * i + 1] * alpha);
	}
	ref_write("out_y.bin", y, n * 8);
	return 0;
}
