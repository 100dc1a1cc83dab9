// SPDX-License-Identifier: MIT
//
// Kernel of the repeat_overflow bad operator: Adds in mask/repeat form with 300 repeats.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void repeat_overflow(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 256);
	LocalTensor<float> t = b.Get<float>();
	int32_t repeats = 300;
	Adds(t, t, 1.0f, 64, repeats, UnaryRepeatParams(1, 1, 8, 8));
}
