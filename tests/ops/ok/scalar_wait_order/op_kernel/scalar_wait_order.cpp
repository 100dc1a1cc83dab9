// SPDX-License-Identifier: MIT
//
// Kernel of scalar_wait_order: z = (x + x[0]) * (x[1] + x[0]), auto_sync
// off, where two dependencies are ordered only by a flag the scalar unit
// waited on: Adds reads what DataCopy wrote after MTE2_S (no MTE2_V), and
// Muls reads what Adds wrote after V_S (no PipeBarrier<PIPE_V>).  The
// scalar unit dispatches the vector and copy instructions in order and
// stops dispatching while it waits, so both are ordered on hardware.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void scalar_wait_order(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> a, b, c;
	pipe.InitBuffer(a, td.total * sizeof(float));
	pipe.InitBuffer(b, td.total * sizeof(float));
	pipe.InitBuffer(c, td.total * sizeof(float));
	LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>(), tc = c.Get<float>();
	DataCopy(ta, xGm, td.total);
	SetFlag<HardEvent::MTE2_S>(EVENT_ID0);
	WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);
	float first = ta.GetValue(0);
	Adds(tb, ta, first, td.total);
	SetFlag<HardEvent::V_S>(EVENT_ID0);
	WaitFlag<HardEvent::V_S>(EVENT_ID0);
	float second = tb.GetValue(1);
	Muls(tc, tb, second, td.total);
	SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
	WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
	DataCopy(zGm, tc, td.total);
}
