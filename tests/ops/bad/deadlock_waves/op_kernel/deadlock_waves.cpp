// SPDX-License-Identifier: MIT
//
// Kernel of the deadlock_waves bad operator: SyncAll with blockDim 100, more cores than the chip has.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void deadlock_waves(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	SyncAll();
}
