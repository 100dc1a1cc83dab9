// SPDX-License-Identifier: MIT
//
// Kernel of the tiling_crash bad operator: never reached, the tiling crashes first.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void tiling_crash(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	(void)xGm;
}
