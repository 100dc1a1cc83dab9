// SPDX-License-Identifier: MIT
//
// Kernel of scalar_loop: z = x + y in half, one element at a time with LocalTensor GetValue/SetValue.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelScalarLoop {
public:
	__aicore__ inline KernelScalarLoop() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ half *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(half));
		yGm.SetGlobalBuffer((__gm__ half *)y + start, this->length);
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(half));
		zGm.SetGlobalBuffer((__gm__ half *)z + start, this->length);
		pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * this->tileLength;
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, n);
			Compute(n);
			CopyOut(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> xLocal = xQueue.AllocTensor<half>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
			    DataCopyPadExtParams<half>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
		LocalTensor<half> yLocal = yQueue.AllocTensor<half>();
		DataCopyPad(yLocal, yGm[offset], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
			    DataCopyPadExtParams<half>(false, 0, 0, 0));
		yQueue.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<half> xLocal = xQueue.DeQue<half>();
		LocalTensor<half> yLocal = yQueue.DeQue<half>();
		LocalTensor<half> zLocal = zQueue.AllocTensor<half>();
		for (uint32_t i = 0; i < n; i++)
			zLocal.SetValue(i, (half)(xLocal.GetValue(i) + yLocal.GetValue(i)));
		zQueue.EnQue(zLocal);
		xQueue.FreeTensor(xLocal);
		yQueue.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> zLocal = zQueue.DeQue<half>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		zQueue.FreeTensor(zLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<half> xGm;
	TQue<QuePosition::VECIN, BUFFER_NUM> yQueue;
	GlobalTensor<half> yGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue;
	GlobalTensor<half> zGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void scalar_loop(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelScalarLoop op;
	op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
