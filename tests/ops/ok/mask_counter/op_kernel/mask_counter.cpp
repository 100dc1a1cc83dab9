// SPDX-License-Identifier: MIT
//
// Kernel of mask_counter: z = (x + y) * x with SetMaskCount/SetVectorMask counter mode and the mask/repeat form with isSetMask = false.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelMaskCounter {
public:
	__aicore__ inline KernelMaskCounter() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		yGm.SetGlobalBuffer((__gm__ float *)y + start, this->length);
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(float));
		zGm.SetGlobalBuffer((__gm__ float *)z + start, this->length);
		pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(float));
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
		LocalTensor<float> xLocal = xQueue.AllocTensor<float>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
		LocalTensor<float> yLocal = yQueue.AllocTensor<float>();
		DataCopyPad(yLocal, yGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		yQueue.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.DeQue<float>();
		LocalTensor<float> yLocal = yQueue.DeQue<float>();
		LocalTensor<float> zLocal = zQueue.AllocTensor<float>();
		SetMaskCount();
		SetVectorMask<float, MaskMode::COUNTER>(0, n);
		Add<float, false>(zLocal, xLocal, yLocal, MASK_PLACEHOLDER, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
		Mul<float, false>(zLocal, zLocal, xLocal, MASK_PLACEHOLDER, 1, BinaryRepeatParams(1, 1, 1, 8, 8, 8));
		SetMaskNorm();
		ResetMask();
		zQueue.EnQue(zLocal);
		xQueue.FreeTensor(xLocal);
		yQueue.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> zLocal = zQueue.DeQue<float>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		zQueue.FreeTensor(zLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<float> xGm;
	TQue<QuePosition::VECIN, BUFFER_NUM> yQueue;
	GlobalTensor<float> yGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue;
	GlobalTensor<float> zGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void mask_counter(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelMaskCounter op;
	op.Init(x, y, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
