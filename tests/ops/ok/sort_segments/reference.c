/* SPDX-License-Identifier: MIT */
/*
 * Reference for sort_segments: descending, stable (equal scores keep their
 * order), NaN first; indices are global positions.  Segments of 1024,
 * groups of 32 (Sort32), of 128 (four groups merged) and whole segments
 * (Sort with isFullSort); the two-list merges that stop when a list runs
 * out count what they took from each list.
 */
#include "../../../sim/refutil.h"

static int before(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && !isnan(b);
	return a > b;
}

/* Stable insertion sort of positions [lo, hi) by key, descending. */
static void sort_range(const double *key, uint32_t *pos, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo + 1; i < hi; i++) {
		uint32_t p = pos[i], j = i;
		while (j > lo && before(key[p], key[pos[j - 1]])) {
			pos[j] = pos[j - 1];
			j--;
		}
		pos[j] = p;
	}
}

/* Merge two sorted runs of 32 positions, stopping when one runs out. */
static void merge_stop(const double *key, const uint32_t *a, const uint32_t *b, int32_t *na, int32_t *nb)
{
	int i = 0, j = 0;
	while (i < 32 && j < 32) {
		if (before(key[b[j]], key[a[i]]))
			j++;
		else
			i++;
	}
	*na = i;
	*nb = j;
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	uint16_t *h = ref_read("in_h.bin", NULL);
	n /= 4;
	double *kx = malloc(n * sizeof(double)), *kh = malloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		kx[i] = x[i];
		kh[i] = ref_h2f(h[i]);
	}
	uint32_t *p32 = malloc(n * 4), *pf = malloc(n * 4), *pm = malloc(n * 4), *ph = malloc(n * 4);
	for (uint32_t i = 0; i < n; i++)
		p32[i] = pf[i] = pm[i] = ph[i] = i;
	size_t segs = (n + 1023) / 1024;
	int32_t *ex = calloc(segs * 8 + 1, 4);
	for (uint32_t g = 0; g < n; g += 32) {
		sort_range(kx, p32, g, g + 32);
		sort_range(kh, ph, g, g + 32);
	}
	for (uint32_t g = 0; g < n; g += 128)
		sort_range(kx, pm, g, g + 128);
	for (size_t s = 0; s < segs; s++) {
		uint32_t lo = (uint32_t)s * 1024, hi = lo + 1024 < n ? lo + 1024 : (uint32_t)n;
		sort_range(kx, pf, lo, hi);
		merge_stop(kx, p32 + lo, p32 + lo + 32, &ex[s * 8], &ex[s * 8 + 1]);
		merge_stop(kx, p32 + lo + 64, p32 + lo + 96, &ex[s * 8 + 2], &ex[s * 8 + 3]);
	}
	float *v32 = malloc(n * 4), *vf = malloc(n * 4), *vm = malloc(n * 4);
	uint16_t *hv = malloc(n * 2);
	for (size_t i = 0; i < n; i++) {
		v32[i] = x[p32[i]];
		vf[i] = x[pf[i]];
		vm[i] = x[pm[i]];
		hv[i] = h[ph[i]];
	}
	ref_write("out_gv.bin", v32, n * 4);
	ref_write("out_gi.bin", p32, n * 4);
	ref_write("out_fv.bin", vf, n * 4);
	ref_write("out_fi.bin", pf, n * 4);
	ref_write("out_mv.bin", vm, n * 4);
	ref_write("out_mi.bin", pm, n * 4);
	ref_write("out_hv.bin", hv, n * 2);
	ref_write("out_hi.bin", ph, n * 4);
	ref_write("out_ex.bin", ex, segs * 32);
	return 0;
}
