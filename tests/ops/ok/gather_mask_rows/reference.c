/* SPDX-License-Identifier: MIT */
/*
 * Reference for gather_mask_rows.  Bit k of a row's pattern is bit k % 16
 * of its int16 k / 16.  odd: lanes 1, 3, ...; q3: lanes 2, 6, ...; sel:
 * the row's selected lanes packed, zeros behind, cnt their number; pk: per
 * group of 16 rows, every row's selected lanes packed one after another
 * from the group's start, zeros behind.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "x", -1, d);
	int64_t rows = d[0];
	uint16_t *x = ref_read("in_x.bin", NULL), *p = ref_read("in_p.bin", NULL);
	uint16_t *odd = calloc(rows * 64 + 1, 2), *q3 = calloc(rows * 32 + 1, 2);
	uint16_t *sel = calloc(rows * 128 + 1, 2), *pk = calloc(rows * 128 + 1, 2);
	int32_t *cnt = calloc(rows + 1, 4);
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *row = x + r * 128, *pr = p + r * 16;
		for (int k = 0; k < 64; k++)
			odd[r * 64 + k] = row[2 * k + 1];
		for (int k = 0; k < 32; k++)
			q3[r * 32 + k] = row[4 * k + 2];
		int n = 0;
		for (int k = 0; k < 128; k++)
			if ((pr[k / 16] >> (k % 16)) & 1)
				sel[r * 128 + n++] = row[k];
		cnt[r] = n;
	}
	for (int64_t g = 0; g < rows; g += 16) {
		int64_t n = 0;
		for (int64_t r = g; r < g + 16; r++)
			for (int k = 0; k < 128; k++)
				if ((p[r * 16 + k / 16] >> (k % 16)) & 1)
					pk[g * 128 + n++] = x[r * 128 + k];
	}
	ref_write("out_odd.bin", odd, rows * 64 * 2);
	ref_write("out_q3.bin", q3, rows * 32 * 2);
	ref_write("out_sel.bin", sel, rows * 128 * 2);
	ref_write("out_cnt.bin", cnt, rows * 4);
	ref_write("out_pk.bin", pk, rows * 128 * 2);
	return 0;
}
