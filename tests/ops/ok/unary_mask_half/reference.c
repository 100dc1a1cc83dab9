/* SPDX-License-Identifier: MIT */
/* Reference for unary_mask_half: Relu (continuous mask), Abs (bit mask) and Exp on half lanes 0..63 of each repeat, mask/repeat form. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2), *z = malloc(n * 2 + 2), *w = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++) {
		float v = ref_h2f(x[i]);
		y[i] = v > 0 ? x[i] : 0;
		z[i] = x[i] & 0x7fff;
		w[i] = (i % 128) < 64 ? ref_f2h(expf(v)) : 0;
	}
	ref_write("out_y.bin", y, n * 2);
	ref_write("out_z.bin", z, n * 2);
	ref_write("out_w.bin", w, n * 2);
	return 0;
}
