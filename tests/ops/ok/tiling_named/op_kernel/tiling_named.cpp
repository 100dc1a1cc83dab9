// SPDX-License-Identifier: MIT
//
// Kernel of tiling_named: z = x * scale, with GET_TILING_DATA reading the
// operator's own tiling class although a helper class is registered first.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void tiling_named(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t start = td.split.perCore * (uint32_t)GetBlockIdx();
	uint32_t len = td.total - start < td.split.perCore ? td.total - start : td.split.perCore;
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + start, len);
	zGm.SetGlobalBuffer((__gm__ float *)z + start, len);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TQue<QuePosition::VECOUT, 1> outQueue;
	pipe.InitBuffer(inQueue, 1, td.split.tile * sizeof(float));
	pipe.InitBuffer(outQueue, 1, td.split.tile * sizeof(float));
	for (uint32_t off = 0; off < len; off += td.split.tile) {
		uint32_t n = len - off < td.split.tile ? len - off : td.split.tile;
		LocalTensor<float> a = inQueue.AllocTensor<float>();
		DataCopyPad(a, xGm[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		inQueue.EnQue(a);
		a = inQueue.DeQue<float>();
		LocalTensor<float> b = outQueue.AllocTensor<float>();
		Muls(b, a, td.scale, (n + 7) / 8 * 8);
		outQueue.EnQue(b);
		inQueue.FreeTensor(a);
		b = outQueue.DeQue<float>();
		DataCopyPad(zGm[off], b, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		outQueue.FreeTensor(b);
	}
}
