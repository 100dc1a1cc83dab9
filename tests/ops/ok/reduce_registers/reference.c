/* SPDX-License-Identifier: MIT */
/*
 * Reference for reduce_registers.  The documented Atlas A2 orders: a
 * repeat (64 floats) sums as a pairwise tree (lane 2i with 2i+1, an odd
 * last one carried up); the count form of ReduceSum and vcadd in mode 1
 * add the repeat sums in order, the mask/repeat form folds them as a tree
 * again.  Extremes keep the first occurrence; indices count r*64 + lane
 * and are stored as the bits of a uint32 in the float slot.
 */
#include "../../../sim/refutil.h"

static float index_bits(uint32_t i)
{
	float f;
	memcpy(&f, &i, 4);
	return f;
}

static int extreme(const float *x, int n, int want_max)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (want_max ? x[i] > x[best] : x[i] < x[best])
			best = i;
	return best;
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0];
	float *x = ref_read("in_x.bin", NULL);
	float *o = calloc(rows * 24 + 1, sizeof(float));
	for (int64_t r = 0; r < rows; r++) {
		const float *row = x + r * 320;
		float *out = o + r * 24;
		float sums[5];
		for (int k = 0; k < 5; k++)
			sums[k] = ref_tree_f32(row + k * 64, 64);
		out[0] = out[1] = out[2] = ref_sum_in_order_f32(row, 300);
		out[3] = ref_tree_f32(sums, 5);
		out[4] = ref_sum_in_order_f32(row, 320);
		int mx = extreme(row, 320, 1), mn = extreme(row, 300, 0);
		out[5] = row[mx];
		out[6] = index_bits((uint32_t)mx);
		out[7] = row[mx];
		out[8] = index_bits((uint32_t)mx);
		out[9] = row[mn];
		out[10] = index_bits((uint32_t)mn);
		out[11] = row[mn];
		for (int k = 0; k < 5; k++)
			out[12 + k] = out[17 + k] = sums[k];
	}
	ref_write("out_o.bin", o, rows * 24 * 4);
	return 0;
}
