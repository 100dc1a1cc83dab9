/* SPDX-License-Identifier: MIT */
/* Reference for bind_positions: y = 2x. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t len;
	float *x = ref_read("in_x.bin", &len);
	for (size_t i = 0; i < len / sizeof(float); i++)
		x[i] *= 2.0f;
	ref_write("out_y.bin", x, len);
	return 0;
}
