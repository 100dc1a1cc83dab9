/* SPDX-License-Identifier: MIT */
/* Golden reference for HiddenCoreCount: y = softplus(softplus(softplus(x))), softplus(v) = ln(exp(v) + 1), in float32. */
#include "refutil.h"

/* each step rounded to float, as the kernel's Exp, Adds and Ln are */
static float softplus(float v)
{
	float e = expf(v);
	return logf(e + 1.0f);
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	float *y = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++)
		y[i] = softplus(softplus(softplus(x[i])));
	ref_write("out_y.bin", y, n * sizeof(float));
	return 0;
}
