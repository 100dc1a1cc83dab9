/* SPDX-License-Identifier: MIT */
/* Reference for foreach_add_scalar: y[i] = x[i] + half(alpha) for each listed tensor. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	uint16_t alpha = ref_f2h((float)json_number_value(ref_attr("alpha")));
	size_t k;
	json_t *t;
	json_array_foreach(json_object_get(ref_res, "inputs"), k, t)
	{
		char in[64], out[64];
		snprintf(in, sizeof in, "in_x_%zu.bin", k);
		snprintf(out, sizeof out, "out_y_%zu.bin", k);
		size_t n;
		uint16_t *x = ref_read(in, &n);
		n /= 2;
		uint16_t *y = malloc(n * 2 + 2);
		for (size_t i = 0; i < n; i++)
			y[i] = ref_hadd(x[i], alpha);
		ref_write(out, y, n * 2);
	}
	return 0;
}
