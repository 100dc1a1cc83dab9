/* SPDX-License-Identifier: MIT */
/* Reference for manual_sync: y = (x * x + x) * 0.5 with TBuf buffers and hand-written SetFlag/WaitFlag and PipeBarrier (auto_sync off). */
#include "../../../sim/refutil.h"

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n;
	float *x = ref_read("in_x.bin", &n);
	n /= 4;
	float *y = malloc(n * 4 + 4);
	for (size_t i = 0; i < n; i++) {
		float t = x[i] * x[i];
		t = t + x[i];
		y[i] = t * 0.5f;
	}
	ref_write("out_y.bin", y, n * 4);
	return 0;
}
