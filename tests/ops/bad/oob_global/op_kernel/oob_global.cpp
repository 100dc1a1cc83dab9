// SPDX-License-Identifier: MIT
//
// Kernel of the oob_global bad operator: DataCopy of 2048 floats from a 1024-float GM tensor.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void oob_global(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 8192);
	LocalTensor<float> t = b.Get<float>();
	DataCopy(t, xGm, 2048);
}
