/* SPDX-License-Identifier: MIT */
/* Reference for datacopy_pad_2d: z = 3x in half; t = z[:, :16]. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	uint16_t *x = ref_read("in_x.bin", NULL);
	uint16_t *z = malloc(d[0] * d[1] * 2 + 2), *t = malloc(d[0] * 32 + 2);
	for (int64_t r = 0; r < d[0]; r++)
		for (int64_t c = 0; c < d[1]; c++) {
			uint16_t v = ref_f2h(ref_h2f(x[r * d[1] + c]) * 3.0f);
			z[r * d[1] + c] = v;
			if (c < 16)
				t[r * 16 + c] = v;
		}
	ref_write("out_z.bin", z, d[0] * d[1] * 2);
	ref_write("out_t.bin", t, d[0] * 32);
	return 0;
}
