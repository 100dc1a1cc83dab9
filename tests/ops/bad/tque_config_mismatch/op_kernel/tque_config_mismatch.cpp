// SPDX-License-Identifier: MIT
//
// Kernel of the tque_config_mismatch bad operator: InitBuffer with 1 buffer for a queue whose TQueConfig says 2.
#include "kernel_operator.h"

using namespace AscendC;

constexpr TQueConfig CFG = {false, false, false, 0, 2, 0, {}, false, false};

extern "C" __global__ __aicore__ void tque_config_mismatch(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<TPosition::VECIN, 1, &CFG> q;
	pipe.InitBuffer(q, 1, 1024);
}
