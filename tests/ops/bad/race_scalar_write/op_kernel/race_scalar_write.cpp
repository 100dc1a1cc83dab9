// SPDX-License-Identifier: MIT
//
// Kernel of the race_scalar_write bad operator: auto_sync off: after
// V_S, SetValue writes UB that Adds then reads with no S_V flag.  The V_S
// wait orders later vector instructions after earlier ones, not after the
// scalar unit's own stores.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void race_scalar_write(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> a, b;
	pipe.InitBuffer(a, 256);
	pipe.InitBuffer(b, 256);
	LocalTensor<float> ta = a.Get<float>(), tb = b.Get<float>();
	Duplicate(ta, 0.0f, 64);
	SetFlag<HardEvent::V_S>(EVENT_ID0);
	WaitFlag<HardEvent::V_S>(EVENT_ID0);
	ta.SetValue(0, 1.0f);
	Adds(tb, ta, 1.0f, 64);
}
