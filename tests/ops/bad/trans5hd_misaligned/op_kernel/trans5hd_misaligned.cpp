// SPDX-License-Identifier: MIT
//
// Kernel of the trans5hd_misaligned bad operator: a TransDataTo5HD address list entry that is not 32-byte aligned.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void trans5hd_misaligned(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 4096);
	LocalTensor<half> t = b.Get<half>();
	uint64_t dl[16], sl[16];
	for (int i = 0; i < 16; i++) {
		dl[i] = (uint64_t)t[i * 16].GetPhyAddr();
		sl[i] = (uint64_t)t[256 + i * 16].GetPhyAddr();
	}
	sl[7] += 16;
	TransDataTo5HD<half>(dl, sl, TransDataTo5HDParams(false, false, 1, 0, 0));
}
