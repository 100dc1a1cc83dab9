/* SPDX-License-Identifier: MIT */
/* Reference for group_norm_silu: for x [N, C, *] and every (n, g) group of
 * C / num_groups channels, mean and the biased variance in double,
 * rstd = 1 / sqrt(var + epsilon), y = silu((x - mean) rstd gamma[c] + beta[c])
 * with silu(v) = v / (1 + exp(-v)); y, mean and rstd rounded once to half. */
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
	int64_t d[16];
	int k = ref_shape("inputs", "x", -1, d);
	int64_t batch = d[0], channels = d[1], spatial = 1;
	for (int i = 2; i < k; i++)
		spatial *= d[i];
	int64_t groups = json_integer_value(ref_attr("num_groups"));
	double eps = (double)(float)json_number_value(ref_attr("epsilon"));
	int64_t cpg = channels / groups, cnt = cpg * spatial;
	uint16_t *x = ref_read("in_x.bin", NULL), *gamma = ref_read("in_gamma.bin", NULL);
	uint16_t *beta = ref_read("in_beta.bin", NULL);
	size_t n = (size_t)(batch * channels * spatial);
	uint16_t *y = malloc(n * 2 + 2), *mo = malloc((size_t)(batch * groups) * 2 + 2);
	uint16_t *ro = malloc((size_t)(batch * groups) * 2 + 2);
	for (int64_t b = 0; b < batch; b++)
		for (int64_t g = 0; g < groups; g++) {
			const uint16_t *xg = x + (b * channels + g * cpg) * spatial;
			uint16_t *yg = y + (b * channels + g * cpg) * spatial;
			double sum = 0, ss = 0;
			for (int64_t i = 0; i < cnt; i++)
				sum += ref_h2f(xg[i]);
			double mean = sum / (double)cnt;
			for (int64_t i = 0; i < cnt; i++) {
				double dv = ref_h2f(xg[i]) - mean;
				ss += dv * dv;
			}
			double rstd = 1.0 / sqrt(ss / (double)cnt + eps);
			for (int64_t c = 0; c < cpg; c++) {
				double ga = ref_h2f(gamma[g * cpg + c]), be = ref_h2f(beta[g * cpg + c]);
				for (int64_t i = 0; i < spatial; i++) {
					double v = (ref_h2f(xg[c * spatial + i]) - mean) * rstd * ga + be;
					yg[c * spatial + i] = d2h(v / (1.0 + exp(-v)));
				}
			}
			mo[b * groups + g] = d2h(mean);
			ro[b * groups + g] = d2h(rstd);
		}
	ref_write("out_y.bin", y, n * 2);
	ref_write("out_mean.bin", mo, (size_t)(batch * groups) * 2);
	ref_write("out_rstd.bin", ro, (size_t)(batch * groups) * 2);
	return 0;
}
