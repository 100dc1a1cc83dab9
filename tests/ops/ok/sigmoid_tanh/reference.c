/* SPDX-License-Identifier: MIT */
/* Reference for sigmoid_tanh: s = Sigmoid(x) and t = Tanh(x) on float. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *s = malloc(n * 4 + 4), *t = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		s[i] = 1.0f / (1.0f + expf(-x[i]));
		t[i] = tanhf(x[i]);
	}
	ref_write("out_s.bin", s, n * 4);
	ref_write("out_t.bin", t, n * 4);
	return 0;
}
