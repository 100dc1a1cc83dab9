/* SPDX-License-Identifier: MIT */
/* Reference for apply_adam: one Adam step in double from the float inputs and
 * the float values of the attributes, each output rounded once to float:
 *   m' = b1 m + (1 - b1) g,  v' = b2 v + (1 - b2) g^2,
 *   p' = p - lr (m' / (1 - b1^step)) / (sqrt(v' / (1 - b2^step)) + eps). */
#include "refutil.h"

static double attr_f(const char *name)
{
	return (double)(float)json_number_value(ref_attr(name));
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	double lr = attr_f("lr"), b1 = attr_f("beta1"), b2 = attr_f("beta2"), eps = attr_f("epsilon");
	double step = (double)json_integer_value(ref_attr("step"));
	size_t n;
	float *p = ref_read("in_param.bin", &n), *g = ref_read("in_grad.bin", NULL);
	float *m = ref_read("in_m.bin", NULL), *v = ref_read("in_v.bin", NULL);
	n /= 4;
	float *po = malloc(n * 4 + 4), *mo = malloc(n * 4 + 4), *vo = malloc(n * 4 + 4);
	double bc1 = 1.0 - pow(b1, step), bc2 = 1.0 - pow(b2, step);
	for (size_t i = 0; i < n; i++) {
		double gi = g[i];
		double mn = b1 * m[i] + (1.0 - b1) * gi;
		double vn = b2 * v[i] + (1.0 - b2) * gi * gi;
		double pn = p[i] - lr * (mn / bc1) / (sqrt(vn / bc2) + eps);
		mo[i] = (float)mn;
		vo[i] = (float)vn;
		po[i] = (float)pn;
	}
	ref_write("out_param_out.bin", po, n * 4);
	ref_write("out_m_out.bin", mo, n * 4);
	ref_write("out_v_out.bin", vo, n * 4);
	return 0;
}
