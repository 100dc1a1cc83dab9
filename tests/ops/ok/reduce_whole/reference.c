/* SPDX-License-Identifier: MIT */
/*
 * Reference for reduce_whole.  Sums follow the simulator's documented order:
 * a pairwise tree over the lanes, every partial rounded to half.  The max is
 * the first largest lane, its index stored as raw bits in the next half.
 */
#include "../../../sim/refutil.h"

static uint16_t tree(uint16_t *v, int n)
{
	while (n > 1) {
		int h = n / 2;
		for (int i = 0; i < h; i++)
			v[i] = ref_hadd(v[2 * i], v[2 * i + 1]);
		if (n & 1)
			v[h] = v[n - 1];
		n = h + (n & 1);
	}
	return v[0];
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0];
	uint16_t *x = ref_read("in_x.bin", NULL);
	uint16_t *s = malloc(rows * 2 + 2), *mi = malloc(rows * 4 + 4), *b = malloc(rows * 16 + 16);
	uint16_t buf[128];
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *row = x + r * 128;
		memcpy(buf, row, sizeof buf);
		s[r] = tree(buf, 128);
		int best = 0;
		for (int k = 1; k < 128; k++)
			if (ref_h2f(row[k]) > ref_h2f(row[best]))
				best = k;
		mi[2 * r] = row[best];
		mi[2 * r + 1] = (uint16_t)best;
		for (int blk = 0; blk < 8; blk++) {
			memcpy(buf, row + blk * 16, 32);
			b[r * 8 + blk] = tree(buf, 16);
		}
	}
	ref_write("out_s.bin", s, rows * 2);
	ref_write("out_mi.bin", mi, rows * 4);
	ref_write("out_b.bin", b, rows * 16);
	return 0;
}
