/* SPDX-License-Identifier: MIT */
/* Reference for cast_modes: float -> half under CAST_NONE/RINT/FLOOR/ODD, float -> int32 under CAST_ROUND/TRUNC, float -> bfloat16 (RINT). */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	const char *hn[4] = {"none", "rint", "floor", "odd"};
	int hm[4] = {1, 1, 2, 6};
	const char *in[2] = {"round", "trunc"};
	int im[2] = {4, 5};
	uint16_t *h = malloc(n * 2 + 2);
	int32_t *iv = malloc(n * 4 + 4);
	char file[64];
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < n; i++)
			h[i] = ref_f2h_mode(x[i], hm[k]);
		snprintf(file, sizeof file, "out_h_%s.bin", hn[k]);
		ref_write(file, h, n * 2);
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < n; i++) {
			double r = ref_round_int(x[i], im[k]);
			iv[i] = r <= -2147483648.0 ? INT32_MIN : r >= 2147483647.0 ? INT32_MAX : (int32_t)r;
		}
		snprintf(file, sizeof file, "out_i_%s.bin", in[k]);
		ref_write(file, iv, n * 4);
	}
	for (size_t i = 0; i < n; i++)
		h[i] = ref_f2bf(x[i]);
	ref_write("out_b_rint.bin", h, n * 2);
	return 0;
}
