// SPDX-License-Identifier: MIT
//
// Kernel of rows_no_tail: y = 2x + 1.  Core i takes rows
// [i * rowsPerCore, (i + 1) * rowsPerCore) and walks each in tileNum tiles
// of tileLen floats, double-buffered; nothing handles rows or elements the
// division left over.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelRowsNoTail {
public:
	__aicore__ inline KernelRowsNoTail() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rowsPerCore, uint32_t cols, uint32_t tileLen,
				    uint32_t tileNum)
	{
		uint32_t first = rowsPerCore * (uint32_t)GetBlockIdx();
		this->rows = rowsPerCore;
		this->cols = cols;
		this->tileLen = tileLen;
		this->tileNum = tileNum;
		xGm.SetGlobalBuffer((__gm__ float *)x + first * cols, rowsPerCore * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + first * cols, rowsPerCore * cols);
		pipe.InitBuffer(inQueue, BUFFER_NUM, tileLen * sizeof(float));
		pipe.InitBuffer(outQueue, BUFFER_NUM, tileLen * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rows; r++) {
			for (uint32_t t = 0; t < tileNum; t++) {
				uint32_t at = r * cols + t * tileLen;
				LocalTensor<float> in = inQueue.AllocTensor<float>();
				DataCopy(in, xGm[at], tileLen);
				inQueue.EnQue(in);
				in = inQueue.DeQue<float>();
				LocalTensor<float> out = outQueue.AllocTensor<float>();
				Muls(out, in, 2.0f, tileLen);
				Adds(out, out, 1.0f, tileLen);
				outQueue.EnQue(out);
				inQueue.FreeTensor(in);
				out = outQueue.DeQue<float>();
				DataCopy(yGm[at], out, tileLen);
				outQueue.FreeTensor(out);
			}
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
	GlobalTensor<float> xGm, yGm;
	uint32_t rows, cols, tileLen, tileNum;
};

extern "C" __global__ __aicore__ void rows_no_tail(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	KernelRowsNoTail op;
	op.Init(x, y, td.rowsPerCore, td.cols, td.tileLen, td.tileNum);
	op.Process();
}
