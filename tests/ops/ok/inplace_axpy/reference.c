/* SPDX-License-Identifier: MIT */
/* Reference for inplace_axpy: y = y + (float)(x * alpha), each step rounded to float; out_y is y after the run. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	float alpha = (float)json_number_value(ref_attr("alpha"));
	size_t n;
	float *y = ref_read("in_y.bin", &n);
	float *x = ref_read("in_x.bin", NULL);
	n /= 4;
	for (size_t i = 0; i < n; i++) {
		float t = x[i] * alpha;
		y[i] = t + y[i];
	}
	ref_write("out_y.bin", y, n * 4);
	return 0;
}
