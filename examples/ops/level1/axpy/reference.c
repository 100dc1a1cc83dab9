/* SPDX-License-Identifier: MIT */
/* Golden reference for AxpyCustom: z = alpha * x + y in float32.  alpha is
 * the attribute as a float; the expression is evaluated in double and
 * rounded once (the kernel rounds the product and the sum separately, hence
 * the tolerance of the manifest). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	double alpha = (float)json_number_value(ref_attr("alpha"));
	size_t n;
	float *x = ref_read("in_x.bin", &n), *y = ref_read("in_y.bin", NULL);
	n /= sizeof(float);
	float *z = malloc(n * sizeof(float) + 4);
	for (size_t i = 0; i < n; i++)
		z[i] = (float)(alpha * (double)x[i] + (double)y[i]);
	ref_write("out_z.bin", z, n * sizeof(float));
	return 0;
}
