/* SPDX-License-Identifier: MIT */
/* Reference for unary_ops: Exp, Ln, Sqrt, Rsqrt, Reciprocal and Abs of a float tensor, one output each. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *o[6];
	for (int k = 0; k < 6; k++)
		o[k] = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		o[0][i] = expf(x[i]);
		o[1][i] = logf(x[i]);
		o[2][i] = sqrtf(x[i]);
		o[3][i] = 1.0f / sqrtf(x[i]);
		o[4][i] = 1.0f / x[i];
		o[5][i] = fabsf(x[i] + -2.0f);
	}
	const char *names[6] = {"out_e.bin", "out_l.bin", "out_s.bin", "out_r.bin", "out_c.bin", "out_a.bin"};
	for (int k = 0; k < 6; k++)
		ref_write(names[k], o[k], n * 4);
	return 0;
}
