/* SPDX-License-Identifier: MIT */
/* Reference for window_copy: y[i] = 2 * x[begin + i]. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t nx, ny;
	float *x = ref_read("in_x.bin", &nx);
	int64_t *begin = ref_read("in_begin.bin", NULL);
	float *y = ref_read("out_y.bin", &ny);
	nx /= 4;
	ny /= 4;
	if (begin[0] < 0 || (size_t)begin[0] + ny > nx)
		ref_die("begin out of range", NULL);
	for (size_t i = 0; i < ny; i++)
		y[i] = 2.0f * x[begin[0] + i];
	ref_write("out_y.bin", y, ny * 4);
	return 0;
}
