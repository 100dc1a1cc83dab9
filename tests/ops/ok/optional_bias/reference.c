/* SPDX-License-Identifier: MIT */
/* Reference for optional_bias: y = (x + bias) * gamma by rows, or x * gamma when the case has no in_bias.bin. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t dims[8];
	size_t i;
	json_t *t;
	int has_bias = 0;
	json_array_foreach(json_object_get(ref_res, "inputs"), i, t) has_bias |=
	    strcmp(json_string_value(json_object_get(t, "name")), "bias") == 0;
	if (ref_shape("inputs", "x", -1, dims) != 2)
		ref_die("x is not 2-D", NULL);
	size_t rows = (size_t)dims[0], cols = (size_t)dims[1];
	float *x = ref_read("in_x.bin", NULL);
	float *g = ref_read("in_gamma.bin", NULL);
	float *b = has_bias ? ref_read("in_bias.bin", NULL) : NULL;
	float *y = malloc(rows * cols * 4 + 4);
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			float v = x[r * cols + c];
			if (b)
				v = v + b[c];
			y[r * cols + c] = v * g[c];
		}
	ref_write("out_y.bin", y, rows * cols * 4);
	return 0;
}
