// SPDX-License-Identifier: MIT
//
// Kernel of the queue_alloc_full bad operator: AllocTensor twice on a one-buffer queue without freeing.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void queue_alloc_full(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> q;
	pipe.InitBuffer(q, 1, 256);
	LocalTensor<float> a = q.AllocTensor<float>();
	LocalTensor<float> b = q.AllocTensor<float>();
}
