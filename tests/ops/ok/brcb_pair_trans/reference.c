/* SPDX-License-Identifier: MIT */
/*
 * Reference for brcb_pair_trans: broadcasts, pair sums (one float
 * rounding each), row copies (48 lanes; even blocks), plain matrix transposes of the 16-row inputs, and for the
 * int8 matrix q the 5HD layout: 32-byte block 16*r + e holds q[0..15][32r+e]
 * then q[0..15][32r+16+e].  Broadcasts: a row-wise to 16 and 20 columns,
 * the first b row of each 64-row tile to 4 rows, q's first element to 32.
 */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8];
	ref_shape("inputs", "t", -1, d);
	int64_t w = d[1];
	size_t rows;
	uint16_t *a = ref_read("in_a.bin", &rows), *h = ref_read("in_h.bin", NULL);
	rows /= 2;
	float *b = ref_read("in_b.bin", NULL), *t = ref_read("in_t.bin", NULL);
	int8_t *q = ref_read("in_q.bin", NULL);
	uint16_t *ab = malloc(rows * 32 + 2), *ab2 = calloc(rows * 32 + 1, 2);
	float *bp = malloc(rows * 128 + 4), *tt = malloc(64 * w);
	float *cp = calloc(rows * 64 + 1, 4), *cp2 = malloc(rows * 128 + 4);
	uint16_t *ht = malloc(32 * w), *hb = malloc(32 * w);
	int8_t *qt = malloc(16 * w), qb[32];
	uint16_t *bc3 = malloc(rows * 40 + 2);
	size_t tiles = (rows + 63) / 64;
	float *bc0 = malloc(tiles * 1024 + 4);
	for (size_t r = 0; r < rows; r++) {
		for (int k = 0; k < 16; k++) {
			ab[r * 16 + k] = a[r];
			ab2[r * 32 + k] = a[r];
		}
		for (int k = 0; k < 32; k++)
			bp[r * 32 + k] = b[r * 64 + 2 * k] + b[r * 64 + 2 * k + 1];
		for (int k = 0; k < 20; k++)
			bc3[r * 20 + k] = a[r];
		for (int k = 0; k < 48; k++)
			cp[r * 64 + k] = b[r * 64 + k];
		for (int k = 0; k < 32; k++)
			cp2[r * 32 + k] = b[r * 64 + (k / 8) * 16 + k % 8];
	}
	for (int64_t c = 0; c < w; c++)
		for (int i = 0; i < 16; i++) {
			tt[c * 16 + i] = t[i * w + c];
			ht[c * 16 + i] = h[i * w + c];
		}
	for (int64_t blk = 0; blk < w / 16; blk++)
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 16; j++)
				hb[blk * 256 + i * 16 + j] = h[i * w + blk * 16 + j];
	for (int64_t r = 0; r < w / 32; r++)
		for (int e = 0; e < 16; e++)
			for (int k = 0; k < 16; k++) {
				qt[(16 * r + e) * 32 + k] = q[k * w + 32 * r + e];
				qt[(16 * r + e) * 32 + 16 + k] = q[k * w + 32 * r + 16 + e];
			}
	for (size_t t = 0; t < tiles; t++)
		for (int k = 0; k < 256; k++)
			bc0[t * 256 + k] = b[t * 64 * 64 + k % 64];
	for (int k = 0; k < 32; k++)
		qb[k] = q[0];
	ref_write("out_bc.bin", ab, rows * 32);
	ref_write("out_bc3.bin", bc3, rows * 40);
	ref_write("out_bc0.bin", bc0, tiles * 1024);
	ref_write("out_qb.bin", qb, 32);
	ref_write("out_ab.bin", ab, rows * 32);
	ref_write("out_ab2.bin", ab2, rows * 64);
	ref_write("out_bp.bin", bp, rows * 128);
	ref_write("out_cp.bin", cp, rows * 256);
	ref_write("out_cp2.bin", cp2, rows * 128);
	ref_write("out_tt.bin", tt, 64 * w);
	ref_write("out_te.bin", tt, 64 * w);
	ref_write("out_ht.bin", ht, 32 * w);
	ref_write("out_hb.bin", hb, 32 * w);
	ref_write("out_qt.bin", qt, 16 * w);
	return 0;
}
