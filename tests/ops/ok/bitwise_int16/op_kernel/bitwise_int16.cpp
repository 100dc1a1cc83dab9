// SPDX-License-Identifier: MIT
//
// Kernel of bitwise_int16: z = ~(x & y) | (x << 2) on int16 with And, Not, ShiftLeft and Or.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelBitwiseInt16 {
public:
	__aicore__ inline KernelBitwiseInt16() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ int16_t *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(int16_t));
		yGm.SetGlobalBuffer((__gm__ int16_t *)y + start, this->length);
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(int16_t));
		zGm.SetGlobalBuffer((__gm__ int16_t *)z + start, this->length);
		pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(int16_t));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(int16_t));
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
		LocalTensor<int16_t> xLocal = xQueue.AllocTensor<int16_t>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(int16_t), 0, 0, 0),
			    DataCopyPadExtParams<int16_t>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
		LocalTensor<int16_t> yLocal = yQueue.AllocTensor<int16_t>();
		DataCopyPad(yLocal, yGm[offset], DataCopyExtParams(1, n * sizeof(int16_t), 0, 0, 0),
			    DataCopyPadExtParams<int16_t>(false, 0, 0, 0));
		yQueue.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<int16_t> xLocal = xQueue.DeQue<int16_t>();
		LocalTensor<int16_t> yLocal = yQueue.DeQue<int16_t>();
		LocalTensor<int16_t> zLocal = zQueue.AllocTensor<int16_t>();
		LocalTensor<int16_t> shifted = tmpBuf.Get<int16_t>();
		And(zLocal, xLocal, yLocal, n);
		Not(zLocal, zLocal, n);
		ShiftLeft(shifted, xLocal, (int16_t)2, n);
		Or(zLocal, zLocal, shifted, n);
		zQueue.EnQue(zLocal);
		xQueue.FreeTensor(xLocal);
		yQueue.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<int16_t> zLocal = zQueue.DeQue<int16_t>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, n * sizeof(int16_t), 0, 0, 0));
		zQueue.FreeTensor(zLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<int16_t> xGm;
	TQue<QuePosition::VECIN, BUFFER_NUM> yQueue;
	GlobalTensor<int16_t> yGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue;
	GlobalTensor<int16_t> zGm;
	TBuf<QuePosition::VECCALC> tmpBuf;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void bitwise_int16(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBitwiseInt16 op;
	op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
