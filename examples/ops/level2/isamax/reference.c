/* SPDX-License-Identifier: MIT */
/* Reference for isamax: the 0-based index of the first element with the largest |x|. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= sizeof(float);
	double best = -1;
	int32_t idx = 0;
	for (size_t i = 0; i < n; i++)
		if (fabs((double)x[i]) > best) {
			best = fabs((double)x[i]);
			idx = (int32_t)i;
		}
	ref_write("out_y.bin", &idx, sizeof idx);
	return 0;
}
