// SPDX-License-Identifier: MIT
//
// Kernel of the acc_val_unset bad operator: GetAccVal with no accumulating ReduceSum before it.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void acc_val_unset(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<TPosition::VECCALC> buf;
	pipe.InitBuffer(buf, 1024);
	LocalTensor<float> t = buf.Get<float>();
	DataCopy(t, xGm, 256);
	PipeBarrier<PIPE_ALL>();
	uint64_t acc = GetAccVal(); /* no ReduceSum count form ran: the register holds nothing */
	t.SetValue(0, (float)acc);
	PipeBarrier<PIPE_ALL>();
	DataCopy(zGm, t, 256);
}
