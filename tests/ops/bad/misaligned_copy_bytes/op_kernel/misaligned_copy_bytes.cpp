// SPDX-License-Identifier: MIT
//
// Kernel of the misaligned_copy_bytes bad operator: DataCopy of 10 floats = 40 bytes, not a multiple of 32.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void misaligned_copy_bytes(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> q;
	pipe.InitBuffer(q, 1, 1024);
	LocalTensor<float> t = q.AllocTensor<float>();
	DataCopy(t, xGm, 10);
}
