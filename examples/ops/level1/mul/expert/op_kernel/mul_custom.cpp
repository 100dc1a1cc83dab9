// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of MulCustom: z = x * y.  AIV-only, L2 bypassed for
// the streamed tensors, double-buffered ~30 KB tiles on 512-byte aligned GM
// addresses, no PIPE_ALL (the queues carry every dependency), x and y
// buffers 256 bytes apart in UB bank groups, DataCopyPad only for the last
// partial tile.
#include "kernel_operator.h"
#include "mul_custom_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BANK_PAD_BYTES = 256;

template <typename T> class KernelMulExpert {
public:
	__aicore__ inline KernelMulExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const MulCustomTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t startUnit = idx * t.unitsPerCore + (idx < t.bigCoreNum ? idx : t.bigCoreNum);
		uint32_t start = startUnit * t.unitElems;
		uint32_t length = (t.unitsPerCore + (idx < t.bigCoreNum ? 1 : 0)) * t.unitElems;
		if (start + length > t.totalLength)
			length = t.totalLength > start ? t.totalLength - start : 0;
		this->length = length;
		this->tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, length);
		zGm.SetGlobalBuffer((__gm__ T *)z + start, length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		zGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, t.tileLength * sizeof(T));
		pipe.InitBuffer(bankPad, BANK_PAD_BYTES);
		pipe.InitBuffer(inQueueY, BUFFER_NUM, t.tileLength * sizeof(T));
		pipe.InitBuffer(outQueueZ, BUFFER_NUM, t.tileLength * sizeof(T));
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
		LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
		if (whole) {
			DataCopy(xLocal, xGm[offset], count);
			DataCopy(yLocal, yGm[offset], count);
		} else {
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
			DataCopyPad(yLocal, yGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
		}
		inQueueX.EnQue(xLocal);
		inQueueY.EnQue(yLocal);

		xLocal = inQueueX.DeQue<T>();
		yLocal = inQueueY.DeQue<T>();
		LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
		Mul(zLocal, xLocal, yLocal, count);
		outQueueZ.EnQue(zLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueY.FreeTensor(yLocal);

		zLocal = outQueueZ.DeQue<T>();
		if (whole)
			DataCopy(zGm[offset], zLocal, count);
		else
			DataCopyPad(zGm[offset], zLocal, {1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	TBuf<QuePosition::VECCALC> bankPad;
	GlobalTensor<T> xGm, yGm, zGm;
	uint32_t length;
	uint32_t tileLength;
};

REGISTER_TILING_DEFAULT(MulCustomTilingData);

extern "C" __global__ __aicore__ void mul_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA_WITH_STRUCT(MulCustomTilingData, tilingData, tiling);
	KernelMulExpert<DTYPE_X> op;
	op.Init(x, y, z, tilingData);
	op.Process();
}
