// SPDX-License-Identifier: MIT
//
// Kernel of the kernel_trap bad operator: Trap() stops the kernel on a
// shape it cannot handle (fewer than 64 blocks of 8 elements here).
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void kernel_trap(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	if (td.total / 8 < 64)
		Trap();
	zGm.SetValue(0, xGm.GetValue(0));
}
