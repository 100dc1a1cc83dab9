// SPDX-License-Identifier: MIT
//
// Kernel of the ub_overflow bad operator: two 100000-byte queue buffers exceed the UB InitBuffer may use.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void ub_overflow(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> q;
	pipe.InitBuffer(q, 2, 100000);
}
