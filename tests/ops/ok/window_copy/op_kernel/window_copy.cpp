// SPDX-License-Identifier: MIT
//
// Kernel of window_copy: each core doubles its share of the window of x
// that starts at the tiling's begin, a tile at a time.
#include "kernel_operator.h"

using namespace AscendC;

class KernelWindowCopy {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const WindowCopyTilingData &td)
	{
		uint32_t start = td.blockLength * (uint32_t)GetBlockIdx();
		length = td.total - start < td.blockLength ? td.total - start : td.blockLength;
		tileLength = td.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + td.begin + start, length);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, length);
		pipe.InitBuffer(inQueue, 2, tileLength * sizeof(float));
		pipe.InitBuffer(outQueue, 2, tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t off = 0; off < length; off += tileLength) {
			uint32_t n = length - off < tileLength ? length - off : tileLength;
			LocalTensor<float> x = inQueue.AllocTensor<float>();
			DataCopy(x, xGm[off], n);
			inQueue.EnQue(x);
			x = inQueue.DeQue<float>();
			LocalTensor<float> y = outQueue.AllocTensor<float>();
			Muls(y, x, 2.0f, (int32_t)n);
			inQueue.FreeTensor(x);
			outQueue.EnQue(y);
			y = outQueue.DeQue<float>();
			DataCopy(yGm[off], y, n);
			outQueue.FreeTensor(y);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TQue<QuePosition::VECOUT, 2> outQueue;
	GlobalTensor<float> xGm, yGm;
	uint32_t length, tileLength;
};

extern "C" __global__ __aicore__ void window_copy(GM_ADDR x, GM_ADDR begin, GM_ADDR y, GM_ADDR workspace,
						  GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	KernelWindowCopy op;
	op.Init(x, y, td);
	op.Process();
}
