// SPDX-License-Identifier: MIT
//
// Kernel of int32_ops: z = max((x + y) * x, -1000000) on int32 with wrap-around (Add, Mul, Maxs).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelInt32Ops {
public:
	__aicore__ inline KernelInt32Ops() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ int32_t *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		yGm.SetGlobalBuffer((__gm__ int32_t *)y + start, this->length);
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		zGm.SetGlobalBuffer((__gm__ int32_t *)z + start, this->length);
		pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
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
		LocalTensor<int32_t> xLocal = xQueue.AllocTensor<int32_t>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0),
			    DataCopyPadExtParams<int32_t>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
		LocalTensor<int32_t> yLocal = yQueue.AllocTensor<int32_t>();
		DataCopyPad(yLocal, yGm[offset], DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0),
			    DataCopyPadExtParams<int32_t>(false, 0, 0, 0));
		yQueue.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<int32_t> xLocal = xQueue.DeQue<int32_t>();
		LocalTensor<int32_t> yLocal = yQueue.DeQue<int32_t>();
		LocalTensor<int32_t> zLocal = zQueue.AllocTensor<int32_t>();
		Add(zLocal, xLocal, yLocal, n);
		Mul(zLocal, zLocal, xLocal, n);
		Maxs(zLocal, zLocal, (int32_t)-1000000, n);
		zQueue.EnQue(zLocal);
		xQueue.FreeTensor(xLocal);
		yQueue.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<int32_t> zLocal = zQueue.DeQue<int32_t>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0));
		zQueue.FreeTensor(zLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<int32_t> xGm;
	TQue<QuePosition::VECIN, BUFFER_NUM> yQueue;
	GlobalTensor<int32_t> yGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue;
	GlobalTensor<int32_t> zGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void int32_ops(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelInt32Ops op;
	op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
