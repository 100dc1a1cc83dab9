// SPDX-License-Identifier: MIT
//
// Kernel of add_case2, case 2: every vector core, 8 KB copies, single-buffered.
// CopyIn / Compute / CopyOut per tile through VECIN and VECOUT queues of
// depth 1; the last tile of a core may be shorter.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelAdd {
public:
	__aicore__ inline KernelAdd() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t rowsPerCore, uint32_t remRows, uint32_t cols,
				    uint32_t tileLen)
	{
		uint32_t idx = (uint32_t)GetBlockIdx();
		uint64_t myRows = rowsPerCore + (idx < remRows ? 1 : 0);
		uint64_t firstRow = (uint64_t)rowsPerCore * idx + (idx < remRows ? idx : remRows);
		this->length = myRows * cols;
		this->tileLen = tileLen;
		xGm.SetGlobalBuffer((__gm__ half *)x + firstRow * cols, this->length);
		yGm.SetGlobalBuffer((__gm__ half *)y + firstRow * cols, this->length);
		zGm.SetGlobalBuffer((__gm__ half *)z + firstRow * cols, this->length);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLen * sizeof(half));
		pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLen * sizeof(half));
		pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLen * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		uint64_t tiles = (this->length + this->tileLen - 1) / this->tileLen;
		for (uint64_t t = 0; t < tiles; t++) {
			uint64_t offset = t * this->tileLen;
			uint32_t n = (uint32_t)(this->length - offset < this->tileLen ? this->length - offset : this->tileLen);
			CopyIn(offset, n);
			Compute(n);
			CopyOut(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint64_t offset, uint32_t n)
	{
		LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
		LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
		DataCopy(xLocal, xGm[offset], n);
		DataCopy(yLocal, yGm[offset], n);
		inQueueX.EnQue(xLocal);
		inQueueY.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<half> xLocal = inQueueX.DeQue<half>();
		LocalTensor<half> yLocal = inQueueY.DeQue<half>();
		LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
		Add(zLocal, xLocal, yLocal, n);
		outQueueZ.EnQue<half>(zLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueY.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint64_t offset, uint32_t n)
	{
		LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
		DataCopy(zGm[offset], zLocal, n);
		outQueueZ.FreeTensor(zLocal);
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	GlobalTensor<half> xGm, yGm, zGm;
	uint64_t length;
	uint32_t tileLen;
};

extern "C" __global__ __aicore__ void add_case2(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelAdd op;
	op.Init(x, y, z, tilingData.rowsPerCore, tilingData.remRows, tilingData.cols, tilingData.tileLen);
	op.Process();
}
