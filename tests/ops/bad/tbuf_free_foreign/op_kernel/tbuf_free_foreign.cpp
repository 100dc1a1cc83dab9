// SPDX-License-Identifier: MIT
//
// Kernel of the tbuf_free_foreign bad operator: TBuf::FreeTensor of a tensor from another TBuf.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void tbuf_free_foreign(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<TPosition::VECCALC> a, b;
	pipe.InitBuffer(a, 1024);
	pipe.InitBuffer(b, 1024);
	LocalTensor<float> ta = a.AllocTensor<float>();
	DataCopy(ta, xGm, 256);
	PipeBarrier<PIPE_ALL>();
	DataCopy(zGm, ta, 256);
	b.FreeTensor(ta); /* ta belongs to a */
}
