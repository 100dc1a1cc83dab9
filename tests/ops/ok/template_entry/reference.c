/* SPDX-License-Identifier: MIT */
/* Reference for template_entry: y = x * SCALE + MODE in half, from a templated kernel entry instantiated as scale_shift<1, 3>. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++) {
		uint16_t t = ref_f2h(ref_h2f(x[i]) * 3.0f);
		y[i] = ref_f2h(ref_h2f(t) + 1.0f);
	}
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
