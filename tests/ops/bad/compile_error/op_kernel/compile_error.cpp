// SPDX-License-Identifier: MIT
//
// Kernel of the compile_error bad operator: Div on int32 tensors, which the vector unit does not support.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void compile_error(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 256);
	LocalTensor<int32_t> t = b.Get<int32_t>();
	Div(t, t, t, 64);
}
