// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of CastCustom (float32 -> float16, nearest even).
// AIV-only, L2 bypass on both streams, double-buffered tiles that fill the
// UB (~60 KB in, ~30 KB out per step), 512-byte aligned GM ranges with the
// remainder on the first cores, and the float input and half output in
// different UB bank groups.  DataCopyPad only for the very last partial tile.
#include "kernel_operator.h"
#include "cast_custom_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t UNIT_ELEMS = 256;
constexpr uint32_t BANK_PAD_BYTES = 256;

class KernelCastExpert {
public:
	__aicore__ inline KernelCastExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const CastCustomTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t start = (idx * t.unitsPerCore + (idx < t.bigCoreNum ? idx : t.bigCoreNum)) * UNIT_ELEMS;
		uint32_t length = (t.unitsPerCore + (idx < t.bigCoreNum ? 1 : 0)) * UNIT_ELEMS;
		if (start + length > t.totalLength)
			length = t.totalLength > start ? t.totalLength - start : 0;
		this->length = length;
		this->tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ half *)y + start, length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, t.tileLength * sizeof(float));
		pipe.InitBuffer(bankPad, BANK_PAD_BYTES);
		pipe.InitBuffer(outQueueY, BUFFER_NUM, t.tileLength * sizeof(half));
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
		bool whole = count % 16 == 0;
		LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
		if (whole)
			DataCopy(xLocal, xGm[offset], count);
		else
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(float)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);

		xLocal = inQueueX.DeQue<float>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		Cast(yLocal, xLocal, RoundMode::CAST_RINT, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);

		yLocal = outQueueY.DeQue<half>();
		if (whole)
			DataCopy(yGm[offset], yLocal, count);
		else
			DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(half)), 0, 0, 0});
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> bankPad;
	GlobalTensor<float> xGm;
	GlobalTensor<half> yGm;
	uint32_t length;
	uint32_t tileLength;
};

REGISTER_TILING_DEFAULT(CastCustomTilingData);

extern "C" __global__ __aicore__ void cast_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA_WITH_STRUCT(CastCustomTilingData, tilingData, tiling);
	KernelCastExpert op;
	op.Init(x, y, tilingData);
	op.Process();
}
