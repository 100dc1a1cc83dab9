// SPDX-License-Identifier: MIT
//
// Kernel of inplace_axpy: y += alpha * x in float.  y arrives twice, as the
// input y and as the output y_ref, one GM buffer; even tiles are written
// back through y and odd ones through y_ref, so the result is right only
// when both name the same memory.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void inplace_axpy(GM_ADDR y, GM_ADDR x, GM_ADDR y_ref, GM_ADDR workspace,
						   GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t start = td.perCore * (uint32_t)GetBlockIdx();
	uint32_t len = start < td.total ? (td.total - start < td.perCore ? td.total - start : td.perCore) : 0;
	GlobalTensor<float> yGm, xGm, refGm;
	yGm.SetGlobalBuffer((__gm__ float *)y + start, len);
	xGm.SetGlobalBuffer((__gm__ float *)x + start, len);
	refGm.SetGlobalBuffer((__gm__ float *)y_ref + start, len);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> yQueue, xQueue;
	TQue<QuePosition::VECOUT, 1> outQueue;
	const uint32_t tile = 1024;
	pipe.InitBuffer(yQueue, 1, tile * sizeof(float));
	pipe.InitBuffer(xQueue, 1, tile * sizeof(float));
	pipe.InitBuffer(outQueue, 1, tile * sizeof(float));
	for (uint32_t off = 0, t = 0; off < len; off += tile, t++) {
		uint32_t n = len - off < tile ? len - off : tile;
		DataCopyExtParams p(1, n * sizeof(float), 0, 0, 0);
		LocalTensor<float> yl = yQueue.AllocTensor<float>();
		LocalTensor<float> xl = xQueue.AllocTensor<float>();
		DataCopyPad(yl, yGm[off], p, DataCopyPadExtParams<float>(false, 0, 0, 0));
		DataCopyPad(xl, xGm[off], p, DataCopyPadExtParams<float>(false, 0, 0, 0));
		yQueue.EnQue(yl);
		xQueue.EnQue(xl);
		yl = yQueue.DeQue<float>();
		xl = xQueue.DeQue<float>();
		LocalTensor<float> out = outQueue.AllocTensor<float>();
		Muls(out, xl, td.alpha, n);
		Add(out, out, yl, n);
		outQueue.EnQue(out);
		yQueue.FreeTensor(yl);
		xQueue.FreeTensor(xl);
		out = outQueue.DeQue<float>();
		DataCopyPad(t % 2 ? refGm[off] : yGm[off], out, p);
		outQueue.FreeTensor(out);
	}
}
