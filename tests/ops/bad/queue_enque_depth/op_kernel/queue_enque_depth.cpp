// SPDX-License-Identifier: MIT
//
// Kernel of the queue_enque_depth bad operator: two EnQue on a depth-1 queue with two buffers.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void queue_enque_depth(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> q;
	pipe.InitBuffer(q, 2, 256);
	LocalTensor<float> a = q.AllocTensor<float>();
	LocalTensor<float> b = q.AllocTensor<float>();
	q.EnQue(a);
	q.EnQue(b);
}
