// SPDX-License-Identifier: MIT
//
// Kernel of LeakyReluCustom: y = x >= 0 ? x : negative_slope * x.
// Whole 32-byte blocks go through the queues and DataCopy, in tiles of the
// tiling's tileLength with the tiling's bufferNum buffers per queue (the
// host's TILE_NUM and BUFFER_NUM; one buffer by default); the elements past
// the last whole block (fewer than one block) are computed by the last core
// one at a time with scalar GetValue/SetValue on GM.
#include "kernel_operator.h"
#include "leaky_relu_custom_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

template <typename T> class KernelLeakyRelu {
public:
	__aicore__ inline KernelLeakyRelu() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const LeakyReluCustomTilingData &tiling)
	{
		uint32_t start = tiling.blockLength * GetBlockIdx();
		this->length = 0;
		if (start < tiling.alignedLength)
			this->length = tiling.alignedLength - start < tiling.blockLength ? tiling.alignedLength - start
											: tiling.blockLength;
		this->tileLength = tiling.tileLength;
		this->slope = (T)tiling.negativeSlope;
		this->isLastCore = GetBlockIdx() == GetBlockNum() - 1;
		this->tailStart = tiling.alignedLength;
		this->totalLength = tiling.totalLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		xAll.SetGlobalBuffer((__gm__ T *)x, tiling.totalLength);
		yAll.SetGlobalBuffer((__gm__ T *)y, tiling.totalLength);
		pipe.InitBuffer(inQueueX, tiling.bufferNum, this->tileLength * sizeof(T));
		pipe.InitBuffer(outQueueY, tiling.bufferNum, this->tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
		if (this->isLastCore) {
			float s = (float)this->slope;
			for (uint32_t i = this->tailStart; i < this->totalLength; i++) {
				float v = (float)xAll.GetValue(i);
				yAll.SetValue(i, (T)(v >= 0.0f ? v : v * s));
			}
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		DataCopy(xLocal, xGm[offset], count);
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
		LeakyRelu(yLocal, xLocal, this->slope, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> yLocal = outQueueY.DeQue<T>();
		DataCopy(yGm[offset], yLocal, count);
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	GlobalTensor<T> xGm, yGm, xAll, yAll;
	uint32_t length;
	uint32_t tileLength;
	uint32_t tailStart;
	uint32_t totalLength;
	bool isLastCore;
	T slope;
};

REGISTER_TILING_DEFAULT(LeakyReluCustomTilingData);

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA_WITH_STRUCT(LeakyReluCustomTilingData, tilingData, tiling);
	KernelLeakyRelu<DTYPE_X> op;
	op.Init(x, y, tilingData);
	op.Process();
}
