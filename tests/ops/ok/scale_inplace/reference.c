/* SPDX-License-Identifier: MIT */
/* Reference for scale_inplace: x = (float)(x * alpha) + 1, each step rounded to float; out_x is x after the run. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	float alpha = (float)json_number_value(ref_attr("alpha"));
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	for (size_t i = 0; i < n; i++) {
		float t = x[i] * alpha;
		x[i] = t + 1.0f;
	}
	ref_write("out_x.bin", x, n * 4);
	return 0;
}
