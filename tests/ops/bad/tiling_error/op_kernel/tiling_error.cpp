// SPDX-License-Identifier: MIT
//
// Kernel of the tiling_error bad operator: the tiling function returns GRAPH_FAILED.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void tiling_error(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	(void)xGm;
}
