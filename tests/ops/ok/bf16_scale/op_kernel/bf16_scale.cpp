// SPDX-License-Identifier: MIT
//
// Kernel of bf16_scale: y = bfloat16(float(x) * 1.5) through Cast bfloat16 <-> float.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelBf16Scale {
public:
	__aicore__ inline KernelBf16Scale() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ bfloat16_t *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(bfloat16_t));
		yGm.SetGlobalBuffer((__gm__ bfloat16_t *)y + start, this->length);
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(bfloat16_t));
		pipe.InitBuffer(fBuf, tileLength * sizeof(float));
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
		LocalTensor<bfloat16_t> xLocal = xQueue.AllocTensor<bfloat16_t>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(bfloat16_t), 0, 0, 0),
			    DataCopyPadExtParams<bfloat16_t>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<bfloat16_t> xLocal = xQueue.DeQue<bfloat16_t>();
		LocalTensor<bfloat16_t> yLocal = yQueue.AllocTensor<bfloat16_t>();
		LocalTensor<float> f = fBuf.Get<float>();
		Cast(f, xLocal, RoundMode::CAST_NONE, n);
		Muls(f, f, 1.5f, n);
		Cast(yLocal, f, RoundMode::CAST_RINT, n);
		yQueue.EnQue(yLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<bfloat16_t> yLocal = yQueue.DeQue<bfloat16_t>();
		DataCopyPad(yGm[offset], yLocal, DataCopyExtParams(1, n * sizeof(bfloat16_t), 0, 0, 0));
		yQueue.FreeTensor(yLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<bfloat16_t> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	GlobalTensor<bfloat16_t> yGm;
	TBuf<QuePosition::VECCALC> fBuf;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void bf16_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBf16Scale op;
	op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
