// SPDX-License-Identifier: MIT
//
// Kernel of the gather_mask_pattern bad operator: a GatherMask built-in pattern outside 1..7.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void gather_mask_pattern(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b;
	pipe.InitBuffer(b, 4096);
	LocalTensor<float> t = b.Get<float>();
	uint64_t kept = 0;
	GatherMask(t[128], t, (uint8_t)9, false, 0, {1, 1, 8, 0}, kept);
}
