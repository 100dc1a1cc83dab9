// SPDX-License-Identifier: MIT
//
// Kernel of the unsupported_mix bad operator: a MIX (cube + vector) kernel.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void unsupported_mix(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
}
