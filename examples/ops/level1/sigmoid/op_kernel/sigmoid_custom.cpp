// SPDX-License-Identifier: MIT
//
// Kernel of SigmoidCustom: y = 1 / (1 + exp(-x)) with the Sigmoid library
// call.  Double-buffered queues, UB-sized tiles, DataCopy for whole blocks
// and DataCopyPad only for the last core's partial block.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelSigmoid {
public:
	__aicore__ inline KernelSigmoid() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockElems,
				    uint32_t smallCoreBlocks, uint32_t bigCoreNum, uint32_t tileLength)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t blocks = smallCoreBlocks + (idx < bigCoreNum ? 1 : 0);
		uint32_t start = (idx * smallCoreBlocks + (idx < bigCoreNum ? idx : bigCoreNum)) * blockElems;
		this->length = blocks * blockElems;
		if (start + this->length > totalLength)
			this->length = totalLength - start;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		uint32_t loopCount = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < loopCount; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = i == loopCount - 1 ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		if (count * sizeof(T) % 32 == 0)
			DataCopy(xLocal, xGm[offset], count);
		else
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
		Sigmoid(yLocal, xLocal, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> yLocal = outQueueY.DeQue<T>();
		if (count * sizeof(T) % 32 == 0)
			DataCopy(yGm[offset], yLocal, count);
		else
			DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
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

extern "C" __global__ __aicore__ void sigmoid_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelSigmoid<DTYPE_X> op;
	op.Init(x, y, tilingData.totalLength, tilingData.blockElems, tilingData.smallCoreBlocks, tilingData.bigCoreNum,
		tilingData.tileLength);
	op.Process();
}
