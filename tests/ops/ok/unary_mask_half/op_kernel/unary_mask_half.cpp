// SPDX-License-Identifier: MIT
//
// Kernel of unary_mask_half: Relu (continuous mask), Abs (bit mask) and Exp on half lanes 0..63 of each repeat, mask/repeat form.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelUnaryMaskHalf {
public:
	__aicore__ inline KernelUnaryMaskHalf() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, uint32_t total, uint32_t blockLength, uint32_t tileLength)
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
		wGm.SetGlobalBuffer((__gm__ half *)w + start, this->length);
		pipe.InitBuffer(wQueue, BUFFER_NUM, tileLength * sizeof(half));
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
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<half> xLocal = xQueue.DeQue<half>();
		LocalTensor<half> yLocal = yQueue.AllocTensor<half>();
		LocalTensor<half> zLocal = zQueue.AllocTensor<half>();
		LocalTensor<half> wLocal = wQueue.AllocTensor<half>();
		int32_t reps = (int32_t)((n + 127) / 128);
		Relu(yLocal, xLocal, 128, reps, UnaryRepeatParams(1, 1, 8, 8));
		uint64_t full[2] = {~0ULL, ~0ULL};
		Abs(zLocal, xLocal, full, reps, UnaryRepeatParams(1, 1, 8, 8));
		Duplicate(wLocal, (half)0, reps * 128);
		Exp(wLocal, xLocal, 64, reps, UnaryRepeatParams(1, 1, 8, 8));
		yQueue.EnQue(yLocal);
		zQueue.EnQue(zLocal);
		wQueue.EnQue(wLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> yLocal = yQueue.DeQue<half>();
		DataCopyPad(yGm[offset], yLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		yQueue.FreeTensor(yLocal);
		LocalTensor<half> zLocal = zQueue.DeQue<half>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		zQueue.FreeTensor(zLocal);
		LocalTensor<half> wLocal = wQueue.DeQue<half>();
		DataCopyPad(wGm[offset], wLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		wQueue.FreeTensor(wLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<half> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	GlobalTensor<half> yGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue;
	GlobalTensor<half> zGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> wQueue;
	GlobalTensor<half> wGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void unary_mask_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelUnaryMaskHalf op;
	op.Init(x, y, z, w, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
