/* SPDX-License-Identifier: MIT */
/* Reference for foreach_add_list: z[i] = x[i] + float(alpha) * y[i] for each listed pair, in double, rounded once to float. */
#include "refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	double alpha = (float)json_number_value(ref_attr("alpha"));
	size_t k;
	json_t *t;
	json_array_foreach(json_object_get(ref_res, "inputs"), k, t)
	{
		if (strcmp(json_string_value(json_object_get(t, "name")), "x"))
			continue;
		int64_t i = json_integer_value(json_object_get(t, "index"));
		char xf[64], yf[64], zf[64];
		snprintf(xf, sizeof xf, "in_x_%lld.bin", (long long)i);
		snprintf(yf, sizeof yf, "in_y_%lld.bin", (long long)i);
		snprintf(zf, sizeof zf, "out_z_%lld.bin", (long long)i);
		size_t n;
		float *x = ref_read(xf, &n), *y = ref_read(yf, NULL);
		n /= sizeof(float);
		float *z = malloc(n * sizeof(float) + 4);
		for (size_t j = 0; j < n; j++)
			z[j] = (float)((double)x[j] + alpha * (double)y[j]);
		ref_write(zf, z, n * sizeof(float));
	}
	return 0;
}
