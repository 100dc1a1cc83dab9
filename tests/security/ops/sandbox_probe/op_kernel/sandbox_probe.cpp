// SPDX-License-Identifier: MIT
//
// Kernel of SandboxProbe: y = x, one core, one tile at most 8192 floats.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void sandbox_probe(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(t, tiling);
	TPipe pipe;
	TBuf<TPosition::VECCALC> buf;
	GlobalTensor<float> xGm, yGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, t.total);
	yGm.SetGlobalBuffer((__gm__ float *)y, t.total);
	pipe.InitBuffer(buf, 8192 * sizeof(float));
	LocalTensor<float> local = buf.Get<float>();
	DataCopyExtParams params{1, (uint32_t)(t.total * sizeof(float)), 0, 0, 0};
	DataCopyPad(local, xGm, params, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
	PipeBarrier<PIPE_ALL>();
	DataCopyPad(yGm, local, params);
}
