// SPDX-License-Identifier: MIT
//
// Kernel of manual_sync: y = (x * x + x) * 0.5 with single TBuf buffers and
// every synchronisation written by hand, as a kernel built without
// auto-sync must: MTE2->V before computing, PipeBarrier<PIPE_V> between
// dependent vector ops, V->MTE3 before copying out, and V->MTE2 / MTE3->V
// before a buffer is reused in the next tile.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void manual_sync(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t start = td.blockLength * (uint32_t)GetBlockIdx();
	uint32_t length = td.totalLength - start < td.blockLength ? td.totalLength - start : td.blockLength;
	GlobalTensor<float> xGm, yGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
	yGm.SetGlobalBuffer((__gm__ float *)y + start, length);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> xBuf, tBuf, yBuf;
	pipe.InitBuffer(xBuf, td.tileLength * sizeof(float));
	pipe.InitBuffer(tBuf, td.tileLength * sizeof(float));
	pipe.InitBuffer(yBuf, td.tileLength * sizeof(float));
	LocalTensor<float> xl = xBuf.Get<float>(), tl = tBuf.Get<float>(), yl = yBuf.Get<float>();

	for (uint32_t off = 0; off < length; off += td.tileLength) {
		uint32_t n = length - off < td.tileLength ? length - off : td.tileLength;
		DataCopyExtParams p(1, n * sizeof(float), 0, 0, 0);
		if (off > 0)
			WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
		DataCopyPad(xl, xGm[off], p, DataCopyPadExtParams<float>(false, 0, 0, 0));
		SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
		WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
		if (off > 0)
			WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
		Mul(tl, xl, xl, n);
		PipeBarrier<PIPE_V>();
		Add(tl, tl, xl, n);
		PipeBarrier<PIPE_V>();
		Muls(yl, tl, 0.5f, n);
		SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
		SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
		WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
		DataCopyPad(yGm[off], yl, p);
		SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
	}
	if (length > 0) {
		WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
		WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
	}
}
