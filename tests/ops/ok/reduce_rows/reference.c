/* SPDX-License-Identifier: MIT */
/* Reference for reduce_rows: per-row sum (in double) and max of a float matrix. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	float *x = ref_read("in_x.bin", NULL);
	float *s = malloc(d[0] * 4 + 4), *m = malloc(d[0] * 4 + 4);
	for (int64_t r = 0; r < d[0]; r++) {
		double acc = 0;
		float mx = x[r * d[1]];
		for (int64_t c = 0; c < d[1]; c++) {
			acc += x[r * d[1] + c];
			if (x[r * d[1] + c] > mx)
				mx = x[r * d[1] + c];
		}
		s[r] = (float)acc;
		m[r] = mx;
	}
	ref_write("out_s.bin", s, d[0] * 4);
	ref_write("out_m.bin", m, d[0] * 4);
	return 0;
}
