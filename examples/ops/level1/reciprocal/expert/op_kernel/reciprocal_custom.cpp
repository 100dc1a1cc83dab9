// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of ReciprocalCustom: y = 1 / x, divided in float.
//  - AIV-only launch; x and y bypass L2 (each byte is touched once);
//  - double-buffered queues with UB-sized tiles, 512-byte aligned on GM,
//    the remainder units on the first cores;
//  - the tensor of ones is filled once, before the tile loop: every tile
//    only reads it;
//  - Cast, Div, Cast with no barriers (the queues order the pipes), and
//    whole-block DataCopy except for a partial last tile.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelReciprocalExpert {
public:
	__aicore__ inline KernelReciprocalExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReciprocalCustomTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t myUnits = t.unitsPerCore + (idx < t.bigCoreNum ? 1 : 0);
		uint32_t startUnit = idx * t.unitsPerCore + (idx < t.bigCoreNum ? idx : t.bigCoreNum);
		uint32_t start = startUnit * t.unitElems;
		uint32_t length = myUnits * t.unitElems;
		if (start + length > t.totalLength)
			length = t.totalLength > start ? t.totalLength - start : 0;
		this->length = length;
		this->tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ half *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ half *)y + start, length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, t.tileLength * sizeof(half));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, t.tileLength * sizeof(half));
		pipe.InitBuffer(floatBuf, t.tileLength * sizeof(float));
		pipe.InitBuffer(onesBuf, t.tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		uint32_t loopCount = (length + tileLength - 1) / tileLength;
		LocalTensor<float> ones = onesBuf.Get<float>();
		Duplicate(ones, 1.0f, tileLength);
		for (uint32_t i = 0; i < loopCount; i++) {
			uint32_t offset = i * tileLength;
			uint32_t count = length - offset < tileLength ? length - offset : tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
		if ((count * sizeof(half)) % 32 == 0) {
			DataCopy(xLocal, xGm[offset], count);
		} else {
			DataCopyExtParams params{1, (uint32_t)(count * sizeof(half)), 0, 0, 0};
			DataCopyPadExtParams<half> pad{false, 0, 0, 0};
			DataCopyPad(xLocal, xGm[offset], params, pad);
		}
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<half> xLocal = inQueueX.DeQue<half>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		LocalTensor<float> xf = floatBuf.Get<float>();
		LocalTensor<float> ones = onesBuf.Get<float>();
		Cast(xf, xLocal, RoundMode::CAST_NONE, count);
		Div(xf, ones, xf, count);
		Cast(yLocal, xf, RoundMode::CAST_RINT, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<half> yLocal = outQueueY.DeQue<half>();
		if ((count * sizeof(half)) % 32 == 0) {
			DataCopy(yGm[offset], yLocal, count);
		} else {
			DataCopyExtParams params{1, (uint32_t)(count * sizeof(half)), 0, 0, 0};
			DataCopyPad(yGm[offset], yLocal, params);
		}
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> floatBuf, onesBuf;
	GlobalTensor<half> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void reciprocal_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	KernelReciprocalExpert op;
	op.Init(x, y, tilingData);
	op.Process();
}
