// SPDX-License-Identifier: MIT
//
// Kernel of AddCustom: z = x + y.  Double-buffered VECIN/VECOUT queues, one
// tile per loop iteration; the last, short tile of the last core goes
// through DataCopyPad because it need not be a whole number of 32-byte
// blocks.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelAdd {
public:
	__aicore__ inline KernelAdd() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t blockElems,
				    uint32_t smallCoreBlocks, uint32_t bigCoreNum, uint32_t tileLength)
	{
		uint32_t coreIdx = GetBlockIdx();
		uint32_t offset;
		if (coreIdx < bigCoreNum) {
			this->coreLength = (smallCoreBlocks + 1) * blockElems;
			offset = coreIdx * this->coreLength;
		} else {
			this->coreLength = smallCoreBlocks * blockElems;
			offset = bigCoreNum * (smallCoreBlocks + 1) * blockElems + (coreIdx - bigCoreNum) * this->coreLength;
		}
		// The last core's range may run past the end of the data.
		if (offset + this->coreLength > totalLength)
			this->coreLength = totalLength - offset;
		this->tileLength = tileLength;

		xGm.SetGlobalBuffer((__gm__ T *)x + offset, this->coreLength);
		yGm.SetGlobalBuffer((__gm__ T *)y + offset, this->coreLength);
		zGm.SetGlobalBuffer((__gm__ T *)z + offset, this->coreLength);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
		pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
		pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		uint32_t loopCount = (this->coreLength + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < loopCount; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = this->coreLength - offset < this->tileLength ? this->coreLength - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
		if ((count * sizeof(T)) % 32 == 0) {
			DataCopy(xLocal, xGm[offset], count);
			DataCopy(yLocal, yGm[offset], count);
		} else {
			DataCopyExtParams copyParams{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
			DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
			DataCopyPad(xLocal, xGm[offset], copyParams, padParams);
			DataCopyPad(yLocal, yGm[offset], copyParams, padParams);
		}
		inQueueX.EnQue(xLocal);
		inQueueY.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = inQueueY.DeQue<T>();
		LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
		Add(zLocal, xLocal, yLocal, count);
		outQueueZ.EnQue<T>(zLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueY.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
		if ((count * sizeof(T)) % 32 == 0) {
			DataCopy(zGm[offset], zLocal, count);
		} else {
			DataCopyExtParams copyParams{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
			DataCopyPad(zGm[offset], zLocal, copyParams);
		}
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	GlobalTensor<T> xGm;
	GlobalTensor<T> yGm;
	GlobalTensor<T> zGm;
	uint32_t coreLength;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelAdd<DTYPE_X> op;
	op.Init(x, y, z, tilingData.totalLength, tilingData.blockElems, tilingData.smallCoreBlocks,
		tilingData.bigCoreNum, tilingData.tileLength);
	op.Process();
}
