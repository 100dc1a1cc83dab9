// SPDX-License-Identifier: MIT
//
// Kernel of the race_mte2_v bad operator: auto_sync off: Adds reads UB that DataCopy (MTE2) just wrote, with no MTE2_V flag.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void race_mte2_v(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> a, b;
	pipe.InitBuffer(a, 256);
	pipe.InitBuffer(b, 256);
	LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
	DataCopy(ta, xGm, 64);
	Adds(tb, ta, 1.0f, 64);
}
