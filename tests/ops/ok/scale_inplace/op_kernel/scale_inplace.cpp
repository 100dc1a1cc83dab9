// SPDX-License-Identifier: MIT
//
// Kernel of scale_inplace: x = x * alpha + 1, written back over x.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void scale_inplace(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t start = td.perCore * (uint32_t)GetBlockIdx();
	uint32_t len = start < td.total ? (td.total - start < td.perCore ? td.total - start : td.perCore) : 0;
	GlobalTensor<float> xGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + start, len);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TQue<QuePosition::VECOUT, 1> outQueue;
	const uint32_t tile = 2048;
	pipe.InitBuffer(inQueue, 1, tile * sizeof(float));
	pipe.InitBuffer(outQueue, 1, tile * sizeof(float));
	for (uint32_t off = 0; off < len; off += tile) {
		uint32_t n = len - off < tile ? len - off : tile;
		DataCopyExtParams p(1, n * sizeof(float), 0, 0, 0);
		LocalTensor<float> xl = inQueue.AllocTensor<float>();
		DataCopyPad(xl, xGm[off], p, DataCopyPadExtParams<float>(false, 0, 0, 0));
		inQueue.EnQue(xl);
		xl = inQueue.DeQue<float>();
		LocalTensor<float> out = outQueue.AllocTensor<float>();
		Muls(out, xl, td.alpha, n);
		Adds(out, out, 1.0f, n);
		outQueue.EnQue(out);
		inQueue.FreeTensor(xl);
		out = outQueue.DeQue<float>();
		DataCopyPad(xGm[off], out, p);
		outQueue.FreeTensor(out);
	}
}
