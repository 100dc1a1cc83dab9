/* SPDX-License-Identifier: MIT */
/*
 * Reference for select_bytes (see the kernel for the seven results): plain
 * element-wise selects on half bits, half arithmetic rounded per step, and
 * x * 100 rounded to nearest even as an integer, back to half.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0];
	uint16_t *x = ref_read("in_x.bin", NULL), *y = ref_read("in_y.bin", NULL);
	uint8_t *c = ref_read("in_c.bin", NULL);
	uint16_t *z = malloc(rows * 7 * 256 * 2 + 2);
	uint16_t seven = ref_f2h(7.0f), zero = ref_f2h(0.0f), minus2 = ref_f2h(-2.0f);
	for (int64_t r = 0; r < rows; r++)
		for (int k = 0; k < 256; k++) {
			int64_t i = r * 256 + k;
			uint16_t *out = z + r * 7 * 256 + k;
			float fx = ref_h2f(x[i]), fy = ref_h2f(y[i]);
			int lt = fx < fy;
			out[0] = lt ? x[i] : y[i];
			out[256] = (k % 2) ? seven : (lt ? x[i] : zero);
			out[512] = c[i] == 0 ? x[i] : minus2;
			uint16_t prod = ref_f2h(fx * fy);
			out[768] = ref_f2h(ref_h2f(prod) + fx);
			out[1024] = lt ? y[i] : x[i];
			float s = ref_h2f(ref_f2h(fx * 100.0f));
			out[1280] = ref_f2h((float)nearbyint(s));
			out[1536] = fx < ref_h2f(y[r * 256 + k % 128]) ? x[i] : zero;
		}
	ref_write("out_z.bin", z, rows * 7 * 256 * 2);
	return 0;
}
