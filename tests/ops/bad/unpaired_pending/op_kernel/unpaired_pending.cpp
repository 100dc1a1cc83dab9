// SPDX-License-Identifier: MIT
//
// Kernel of the unpaired_pending bad operator: SetFlag<V_MTE3> never waited before the kernel exits.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void unpaired_pending(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
}
