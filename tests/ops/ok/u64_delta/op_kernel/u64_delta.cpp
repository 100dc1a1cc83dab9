// SPDX-License-Identifier: MIT
//
// Kernel of u64_delta: each core copies its share of ts to echo through UB
// (DataCopyPad of uint64) and writes d[i] = (double)(ts[i] - base) * scale[0]
// with scalar GM reads and writes.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void u64_delta(GM_ADDR ts, GM_ADDR scale, GM_ADDR echo, GM_ADDR d,
						GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t start = td.perCore * (uint32_t)GetBlockIdx();
	uint32_t len = start < td.total ? (td.total - start < td.perCore ? td.total - start : td.perCore) : 0;
	GlobalTensor<uint64_t> tsGm, echoGm;
	GlobalTensor<double> scaleGm, dGm;
	tsGm.SetGlobalBuffer((__gm__ uint64_t *)ts + start, len);
	echoGm.SetGlobalBuffer((__gm__ uint64_t *)echo + start, len);
	scaleGm.SetGlobalBuffer((__gm__ double *)scale, 1);
	dGm.SetGlobalBuffer((__gm__ double *)d + start, len);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> buf;
	pipe.InitBuffer(buf, (len + 3) / 4 * 32);
	LocalTensor<uint64_t> tl = buf.Get<uint64_t>();
	DataCopyExtParams p(1, len * sizeof(uint64_t), 0, 0, 0);
	DataCopyPad(tl, tsGm, p, DataCopyPadExtParams<uint64_t>(false, 0, 0, 0));
	PipeBarrier<PIPE_ALL>();
	DataCopyPad(echoGm, tl, p);
	double s = scaleGm.GetValue(0);
	for (uint32_t i = 0; i < len; i++)
		dGm.SetValue(i, (double)(tsGm.GetValue(i) - td.base) * s);
}
