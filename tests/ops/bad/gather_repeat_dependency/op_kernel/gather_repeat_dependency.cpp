// SPDX-License-Identifier: MIT
//
// Kernel of the gather_repeat_dependency bad operator: an in-place Gather whose second repeat reads what its first repeat wrote.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void gather_repeat_dependency(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 4096);
	LocalTensor<float> t = b.Get<float>(128);
	LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(128, 1024);
	Duplicate(t, 1.0f, 128);
	Duplicate(off, (uint32_t)0, 128);
	Gather(t, t, off, (uint32_t)0, 128);
}
