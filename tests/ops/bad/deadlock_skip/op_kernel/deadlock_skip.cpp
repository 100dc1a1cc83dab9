// SPDX-License-Identifier: MIT
//
// Kernel of the deadlock_skip bad operator: only core 0 calls SyncAll; core 1 finishes without it.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void deadlock_skip(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	if (GetBlockIdx() == 0)
		SyncAll();
}
