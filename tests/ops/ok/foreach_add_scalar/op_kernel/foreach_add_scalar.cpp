// SPDX-License-Identifier: MIT
//
// Kernel of foreach_add_scalar: core i finds tensor i of the input and output
// lists through ListTensorDesc and adds alpha in tiles of 4096 halves.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void foreach_add_scalar(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t idx = (uint32_t)GetBlockIdx();
	uint32_t len = td.lengths[idx];
	ListTensorDesc xList(x), yList(y);
	GlobalTensor<half> xGm, yGm;
	xGm.SetGlobalBuffer(xList.GetDataPtr<half>(idx), len);
	yGm.SetGlobalBuffer(yList.GetDataPtr<half>(idx), len);
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TQue<QuePosition::VECOUT, 2> outQueue;
	const uint32_t tile = 4096;
	pipe.InitBuffer(inQueue, 2, tile * sizeof(half));
	pipe.InitBuffer(outQueue, 2, tile * sizeof(half));
	half alpha = (half)td.alpha;
	for (uint32_t off = 0; off < len; off += tile) {
		uint32_t n = len - off < tile ? len - off : tile;
		DataCopyExtParams p(1, n * sizeof(half), 0, 0, 0);
		LocalTensor<half> xl = inQueue.AllocTensor<half>();
		DataCopyPad(xl, xGm[off], p, DataCopyPadExtParams<half>(false, 0, 0, 0));
		inQueue.EnQue(xl);
		xl = inQueue.DeQue<half>();
		LocalTensor<half> yl = outQueue.AllocTensor<half>();
		Adds(yl, xl, alpha, n);
		outQueue.EnQue(yl);
		inQueue.FreeTensor(xl);
		yl = outQueue.DeQue<half>();
		DataCopyPad(yGm[off], yl, p);
		outQueue.FreeTensor(yl);
	}
}
