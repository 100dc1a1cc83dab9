// SPDX-License-Identifier: MIT
//
// Kernel of the kernel_assert bad operator: the kernel assert(expr, fmt, args...) with a false expr.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void kernel_assert(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	uint32_t blocks = td.total / 8;
	assert(blocks > 0);
	assert(blocks % 3 == 0, "%u blocks do not split into 3 parts", blocks);
}
