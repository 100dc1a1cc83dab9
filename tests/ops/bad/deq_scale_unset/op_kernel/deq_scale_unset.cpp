// SPDX-License-Identifier: MIT
//
// Kernel of the deq_scale_unset bad operator: Cast int32_t -> half before any SetDeqScale.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void deq_scale_unset(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<TPosition::VECCALC> ibuf, hbuf;
	pipe.InitBuffer(ibuf, 1024);
	pipe.InitBuffer(hbuf, 512);
	LocalTensor<float> f = ibuf.Get<float>();
	DataCopy(f, xGm, 256);
	PipeBarrier<PIPE_ALL>();
	LocalTensor<int32_t> n = ibuf.Get<int32_t>();
	Cast(n, f, RoundMode::CAST_RINT, 256);
	Cast(hbuf.Get<half>(), n, RoundMode::CAST_NONE, 256); /* DEQSCALE was never set */
}
