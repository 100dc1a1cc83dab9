// SPDX-License-Identifier: MIT
//
// Kernel of ReluCustom: y = max(x, 0).  Double-buffered queues; every copy
// goes through DataCopyPad so that any length works without a special case.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelRelu {
public:
	__aicore__ inline KernelRelu() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * GetBlockIdx();
		this->length = totalLength - start < blockLength ? totalLength - start : blockLength;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < tiles; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		DataCopyExtParams copyParams{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
		DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
		DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
		Relu(yLocal, xLocal, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> yLocal = outQueueY.DeQue<T>();
		DataCopyExtParams copyParams{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
		DataCopyPad(yGm[offset], yLocal, copyParams);
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelRelu<DTYPE_X> op;
	op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
