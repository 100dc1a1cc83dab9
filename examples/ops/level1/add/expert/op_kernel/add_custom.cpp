// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of AddCustom: z = x + y.
//  - AIV-only launch; inputs and output bypass L2 (each byte is touched once);
//  - double-buffered queues with ~30 KB tiles, 512-byte aligned on GM;
//  - a 256-byte pad between the x and y buffers so the two reads of every
//    Add fall in different UB bank groups;
//  - whole-block DataCopy everywhere except the last partial tile of the
//    last core, which uses DataCopyPad.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BANK_PAD_BYTES = 256;

template <typename T> class KernelAddExpert {
public:
	__aicore__ inline KernelAddExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t myUnits = t.unitsPerCore + (idx < t.bigCoreNum ? 1 : 0);
		uint32_t startUnit = idx * t.unitsPerCore + (idx < t.bigCoreNum ? idx : t.bigCoreNum);
		uint32_t start = startUnit * t.unitElems;
		uint32_t length = myUnits * t.unitElems;
		if (start + length > t.totalLength)
			length = t.totalLength > start ? t.totalLength - start : 0;
		this->coreLength = length;
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
		uint32_t fullTiles = this->coreLength / this->tileLength;
		uint32_t rest = this->coreLength - fullTiles * this->tileLength;
		for (uint32_t i = 0; i < fullTiles; i++) {
			CopyIn(i * this->tileLength, this->tileLength);
			Compute(this->tileLength);
			CopyOut(i * this->tileLength, this->tileLength);
		}
		if (rest > 0) {
			CopyIn(fullTiles * this->tileLength, rest);
			Compute(rest);
			CopyOut(fullTiles * this->tileLength, rest);
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
			DataCopyExtParams params{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
			DataCopyPadExtParams<T> pad{false, 0, 0, 0};
			DataCopyPad(xLocal, xGm[offset], params, pad);
			DataCopyPad(yLocal, yGm[offset], params, pad);
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
			DataCopyExtParams params{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
			DataCopyPad(zGm[offset], zLocal, params);
		}
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	TBuf<QuePosition::VECCALC> bankPad;
	GlobalTensor<T> xGm, yGm, zGm;
	uint32_t coreLength;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	KernelAddExpert<DTYPE_X> op;
	op.Init(x, y, z, tilingData);
	op.Process();
}
