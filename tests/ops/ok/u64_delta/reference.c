/* SPDX-License-Identifier: MIT */
/* Reference for u64_delta: echo = ts; d = (double)(ts - base) * scale[0]. */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	uint64_t base = (uint64_t)json_integer_value(ref_attr("base"));
	size_t n;
	uint64_t *ts = ref_read("in_ts.bin", &n);
	double *scale = ref_read("in_scale.bin", NULL);
	n /= 8;
	double *d = malloc(n * 8 + 8);
	for (size_t i = 0; i < n; i++)
		d[i] = (double)(ts[i] - base) * scale[0];
	ref_write("out_echo.bin", ts, n * 8);
	ref_write("out_d.bin", d, n * 8);
	return 0;
}
