// SPDX-License-Identifier: MIT
//
// Kernel of the misaligned_operand bad operator: a vector instruction whose destination is not 32-byte aligned.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void misaligned_operand(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 1024);
	LocalTensor<float> t = b.Get<float>();
	Duplicate(t, 0.0f, 64);
	Adds(t[1], t, 1.0f, 32);
}
