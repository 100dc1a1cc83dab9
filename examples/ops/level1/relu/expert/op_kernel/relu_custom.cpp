// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of ReluCustom: y = max(x, 0).  AIV-only launch over
// all vector cores, L2 bypass for the streamed tensors, double-buffered
// ~45 KB tiles on 512-byte aligned GM addresses, input and output buffers in
// different UB bank groups, whole-block DataCopy except for the very last
// partial tile.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BANK_PAD_BYTES = 256;

template <typename T> class KernelReluExpert {
public:
	__aicore__ inline KernelReluExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReluCustomTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t start = (idx * t.unitsPerCore + (idx < t.bigCoreNum ? idx : t.bigCoreNum)) * t.unitElems;
		uint32_t length = (t.unitsPerCore + (idx < t.bigCoreNum ? 1 : 0)) * t.unitElems;
		if (start + length > t.totalLength)
			length = t.totalLength > start ? t.totalLength - start : 0;
		this->length = length;
		this->tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, t.tileLength * sizeof(T));
		pipe.InitBuffer(bankPad, BANK_PAD_BYTES);
		pipe.InitBuffer(outQueueY, BUFFER_NUM, t.tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		uint32_t full = this->length / this->tileLength;
		uint32_t rest = this->length - full * this->tileLength;
		for (uint32_t i = 0; i < full; i++)
			Step(i * this->tileLength, this->tileLength);
		if (rest > 0)
			Step(full * this->tileLength, rest);
	}

private:
	__aicore__ inline void Step(uint32_t offset, uint32_t count)
	{
		bool whole = (count * sizeof(T)) % 32 == 0;
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		if (whole)
			DataCopy(xLocal, xGm[offset], count);
		else
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);

		xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
		Relu(yLocal, xLocal, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);

		yLocal = outQueueY.DeQue<T>();
		if (whole)
			DataCopy(yGm[offset], yLocal, count);
		else
			DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> bankPad;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	KernelReluExpert<DTYPE_X> op;
	op.Init(x, y, tilingData);
	op.Process();
}
