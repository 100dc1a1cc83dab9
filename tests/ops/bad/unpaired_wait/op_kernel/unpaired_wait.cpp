// SPDX-License-Identifier: MIT
//
// Kernel of the unpaired_wait bad operator: WaitFlag<MTE2_V> with no SetFlag before it.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void unpaired_wait(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
}
