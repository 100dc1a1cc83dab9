// SPDX-License-Identifier: MIT
//
// Kernel of the queue_deque_empty bad operator: DeQue with nothing enqueued.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void queue_deque_empty(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> q;
	pipe.InitBuffer(q, 1, 256);
	LocalTensor<float> t = q.DeQue<float>();
}
