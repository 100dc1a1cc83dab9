// SPDX-License-Identifier: MIT
//
// Kernel of the timeout bad operator: an endless loop of Duplicate, stopped by the instruction budget.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void timeout(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 256);
	LocalTensor<float> t = b.Get<float>();
	for (volatile int forever = 1; forever;)
		Duplicate(t, 0.0f, 64);
}
