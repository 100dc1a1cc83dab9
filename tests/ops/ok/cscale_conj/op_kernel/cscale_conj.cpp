// SPDX-License-Identifier: MIT
//
// Kernel of cscale_conj: each core scales its complex elements' 2n float
// parts with Muls, then negates every imaginary part in scalar code.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void cscale_conj(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t start = td.perCore * (uint32_t)GetBlockIdx();
	uint32_t len = start < td.total ? (td.total - start < td.perCore ? td.total - start : td.perCore) : 0;
	uint32_t parts = 2 * len;
	GlobalTensor<float> xGm, yGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + 2 * start, parts);
	yGm.SetGlobalBuffer((__gm__ float *)y + 2 * start, parts);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> buf;
	pipe.InitBuffer(buf, (parts + 7) / 8 * 32);
	LocalTensor<float> l = buf.Get<float>();
	DataCopyExtParams p(1, parts * sizeof(float), 0, 0, 0);
	DataCopyPad(l, xGm, p, DataCopyPadExtParams<float>(false, 0, 0, 0));
	PipeBarrier<PIPE_ALL>();
	Muls(l, l, td.alpha, parts);
	PipeBarrier<PIPE_ALL>();
	for (uint32_t i = 1; i < parts; i += 2)
		l.SetValue(i, -l.GetValue(i));
	PipeBarrier<PIPE_ALL>();
	DataCopyPad(yGm, l, p);
}
