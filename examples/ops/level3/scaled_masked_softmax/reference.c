/* SPDX-License-Identifier: MIT */
/* Reference for scaled_masked_softmax: per row of x [batch, heads, sq, sk],
 * z = mask ? -10000 : x * scale with the mask [batch or 1, 1, sq, sk]
 * broadcast over the heads, y = softmax(z) over the row, in double from the
 * half inputs and the float value of scale, rounded once to half. */
#include "refutil.h"

/* double -> half, round to nearest even once (no detour through float). */
static uint16_t d2h(double v)
{
	if (isnan(v))
		return 0x7e00;
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (a >= 65520.0)
		return sign | 0x7c00;
	if (a < ldexp(1, -14))
		return sign | (uint16_t)nearbyint(a * 16777216.0);
	int e;
	frexp(a, &e);
	int E = e - 1;
	double m = nearbyint(a / ldexp(1, E - 10));
	if (m == 2048) {
		m = 1024;
		E++;
	}
	if (E > 15)
		return sign | 0x7c00;
	return sign | (uint16_t)((E + 15) << 10) | (uint16_t)(m - 1024);
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	int64_t d[8], md[8];
	ref_shape("inputs", "x", -1, d);
	ref_shape("inputs", "mask", -1, md);
	int64_t batch = d[0], heads = d[1], sq = d[2], sk = d[3];
	double scale = (double)(float)json_number_value(ref_attr("scale"));
	uint16_t *x = ref_read("in_x.bin", NULL);
	uint8_t *mask = ref_read("in_mask.bin", NULL);
	size_t n = (size_t)(batch * heads * sq * sk);
	uint16_t *y = malloc(n * 2 + 2);
	double *z = malloc((size_t)sk * sizeof(double));
	for (int64_t b = 0; b < batch; b++)
		for (int64_t h = 0; h < heads; h++)
			for (int64_t q = 0; q < sq; q++) {
				int64_t row = (b * heads + h) * sq + q;
				const uint8_t *mr = mask + ((md[0] == 1 ? 0 : b) * sq + q) * sk;
				double mx = -INFINITY, sum = 0;
				for (int64_t k = 0; k < sk; k++) {
					z[k] = mr[k] ? -10000.0 : (double)ref_h2f(x[row * sk + k]) * scale;
					if (z[k] > mx)
						mx = z[k];
				}
				for (int64_t k = 0; k < sk; k++) {
					z[k] = exp(z[k] - mx);
					sum += z[k];
				}
				for (int64_t k = 0; k < sk; k++)
					y[row * sk + k] = d2h(z[k] / sum);
			}
	ref_write("out_y.bin", y, n * 2);
	return 0;
}
