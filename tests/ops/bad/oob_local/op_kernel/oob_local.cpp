// SPDX-License-Identifier: MIT
//
// Kernel of the oob_local bad operator: Adds over 128 floats of a 64-float LocalTensor.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void oob_local(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 256);
	LocalTensor<float> t = b.Get<float>();
	Adds(t, t, 1.0f, 128);
}
