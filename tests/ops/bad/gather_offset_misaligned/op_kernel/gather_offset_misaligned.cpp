// SPDX-License-Identifier: MIT
//
// Kernel of the gather_offset_misaligned bad operator: a Gather byte offset that is not a multiple of the element size.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void gather_offset_misaligned(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 4096);
	LocalTensor<float> src = b.Get<float>(256);
	LocalTensor<float> dst = b.GetWithOffset<float>(64, 1024);
	LocalTensor<uint32_t> off = b.GetWithOffset<uint32_t>(64, 2048);
	Duplicate(off, (uint32_t)8, 64);
	off.SetValue(3, 6);
	Gather(dst, src, off, (uint32_t)0, 64);
}
