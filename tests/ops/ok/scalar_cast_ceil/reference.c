/* SPDX-License-Identifier: MIT */
/*
 * Reference for scalar_cast_ceil: h = x (odd j) or x * 1e-9 (even j) to
 * half rounding to odd, saturating at the largest finite half; i = k / 4
 * rounded half away from zero, up, down and half to even by j % 4.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n, nk;
	float *x = ref_read("in_x.bin", &n);
	int32_t *k = ref_read("in_k.bin", &nk);
	n /= 4;
	if (nk / 4 != n)
		ref_die("x and k differ in length", NULL);
	uint16_t *h = malloc(n * 2 + 2);
	int32_t *i = malloc(n * 4 + 4);
	static const int modes[4] = {4, 3, 2, 1};
	for (size_t j = 0; j < n; j++) {
		float v = x[j];
		if (j % 2 == 0)
			v = v * 1e-9f;
		h[j] = ref_f2h_mode(v, 6);
		i[j] = (int32_t)ref_round_int((double)k[j] / 4.0, modes[j % 4]);
	}
	ref_write("out_h.bin", h, n * 2);
	ref_write("out_i.bin", i, n * 4);
	return 0;
}
