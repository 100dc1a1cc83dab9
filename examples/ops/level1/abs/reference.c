/* SPDX-License-Identifier: MIT */
/* Golden reference for AbsCustom: y = |x| in float16 (exact). */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	uint16_t *x = ref_read("in_x.bin", &n);
	n /= 2;
	uint16_t *y = malloc(n * 2 + 2);
	for (size_t i = 0; i < n; i++)
		y[i] = ref_f2h((float)fabs((double)ref_h2f(x[i])));
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
