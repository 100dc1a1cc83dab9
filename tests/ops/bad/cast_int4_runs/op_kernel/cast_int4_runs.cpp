// SPDX-License-Identifier: MIT
//
// Kernel of the cast_int4_runs bad operator: a Cast half -> int4b_t, which
// Atlas A2 documents, actually runs; the simulator's tensors cannot hold
// two elements a byte, so it must stop as unsupported, not guess.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void cast_int4_runs(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> a, b;
	pipe.InitBuffer(a, 256);
	pipe.InitBuffer(b, 256);
	LocalTensor<half> ta = a.Get<half>();
	LocalTensor<int8_t> tb = b.Get<int8_t>();
	Duplicate(ta, (half)1.0, 64);
	PipeBarrier<PIPE_V>();
	Cast(tb.ReinterpretCast<int4b_t>(), ta, RoundMode::CAST_RINT, 64);
}
