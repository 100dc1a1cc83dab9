/* SPDX-License-Identifier: MIT */
/* Golden reference for LeakyReluCustom in float16: the slope attribute is
 * taken as a float16 scalar (the operator's element type); x * slope is
 * exact in double and is rounded once to half. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	double slope = ref_h2f(ref_f2h((float)json_number_value(ref_attr("negative_slope"))));
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++) {
		double v = ref_h2f(x[i]);
		y[i] = ref_f2h((float)(v >= 0.0 ? v : v * slope));
	}
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
