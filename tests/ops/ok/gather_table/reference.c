/* SPDX-License-Identifier: MIT */
/*
 * Reference for gather_table: y[i] = x[idx[i]]; z[i] = x[idx[i]] for even i
 * and -1 for odd i; r[i] = 4*i + 7; w[i] = 0.5*i.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", NULL);
	int32_t *idx = ref_read("in_idx.bin", &n);
	n /= 4;
	float *y = malloc(n * 4 + 4), *z = malloc(n * 4 + 4), *w = malloc(n * 4 + 4);
	int32_t *r = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		y[i] = x[idx[i]];
		z[i] = i % 2 == 0 ? x[idx[i]] : -1.0f;
		r[i] = (int32_t)(4 * i + 7);
		w[i] = 0.5f * (float)i;
	}
	ref_write("out_y.bin", y, n * 4);
	ref_write("out_z.bin", z, n * 4);
	ref_write("out_r.bin", r, n * 4);
	ref_write("out_w.bin", w, n * 4);
	return 0;
}
