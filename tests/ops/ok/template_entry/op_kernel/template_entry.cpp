// SPDX-License-Identifier: MIT
//
// Kernel of template_entry: y = x * SCALE + MODE in half, from a templated kernel entry instantiated as scale_shift<1, 3>.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelTemplateEntry {
public:
	__aicore__ inline KernelTemplateEntry() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ half *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(half));
		yGm.SetGlobalBuffer((__gm__ half *)y + start, this->length);
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(half));
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
		Muls(yLocal, xLocal, (half)this->scale, n);
		Adds(yLocal, yLocal, (half)this->shift, n);
		yQueue.EnQue(yLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> yLocal = yQueue.DeQue<half>();
		DataCopyPad(yGm[offset], yLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		yQueue.FreeTensor(yLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<half> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	GlobalTensor<half> yGm;
	uint32_t length;
	uint32_t tileLength;
	int32_t scale = 1;
	int32_t shift = 0;
};

template <int MODE, int SCALE>
__global__ __aicore__ void scale_shift(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelTemplateEntry op;
	op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.scale = SCALE;
	op.shift = MODE;
	op.Process();
}
