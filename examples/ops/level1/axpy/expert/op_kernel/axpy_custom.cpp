// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of AxpyCustom: z = alpha * x + y.
//  - y is copied from GM straight into the output buffer and updated in
//    place by one fused Axpy (no Muls/Add pair, no scratch tensor), so UB
//    holds two tensors and each tile is ~45 KB;
//  - AIV-only, L2 bypass for the streamed tensors, double buffering,
//    512-byte aligned GM ranges with the remainder on the first cores;
//  - the x and z buffers sit in different UB bank groups.
// The queue carries V -> MTE3 and V's release of the buffer; the two
// dependencies it cannot see are explicit flags: MTE2 -> V (y has landed in
// the z buffer) and MTE3 -> MTE2 (the store of the tile that used the same
// buffer two steps earlier is done before y overwrites it).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t BANK_PAD_BYTES = 256;

template <typename T> class KernelAxpyExpert {
public:
	__aicore__ inline KernelAxpyExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AxpyCustomTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t start = (idx * t.unitsPerCore + (idx < t.bigCoreNum ? idx : t.bigCoreNum)) * t.unitElems;
		uint32_t length = (t.unitsPerCore + (idx < t.bigCoreNum ? 1 : 0)) * t.unitElems;
		if (start + length > t.totalLength)
			length = t.totalLength > start ? t.totalLength - start : 0;
		this->length = length;
		this->tileLength = t.tileLength;
		this->alpha = (T)t.alpha;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, length);
		zGm.SetGlobalBuffer((__gm__ T *)z + start, length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		zGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, t.tileLength * sizeof(T));
		pipe.InitBuffer(bankPad, BANK_PAD_BYTES);
		pipe.InitBuffer(outQueueZ, BUFFER_NUM, t.tileLength * sizeof(T));
		for (int32_t i = 0; i < BUFFER_NUM; i++)
			storeDone[i] = static_cast<event_t>(pipe.AllocEventID<HardEvent::MTE3_MTE2>());
	}

	__aicore__ inline void Process()
	{
		uint32_t full = this->length / this->tileLength;
		uint32_t rest = this->length - full * this->tileLength;
		uint32_t steps = full + (rest > 0 ? 1 : 0);
		for (uint32_t i = 0; i < steps; i++)
			Step(i, i * this->tileLength, i < full ? this->tileLength : rest);
		/* the last stores of each buffer still hold a flag */
		for (uint32_t i = steps > BUFFER_NUM ? steps - BUFFER_NUM : 0; i < steps; i++)
			WaitFlag<HardEvent::MTE3_MTE2>(storeDone[i % BUFFER_NUM]);
	}

private:
	__aicore__ inline void Step(uint32_t step, uint32_t offset, uint32_t count)
	{
		uint32_t slot = step % BUFFER_NUM;
		bool whole = (count * sizeof(T)) % 32 == 0;
		DataCopyExtParams params{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
		if (step >= BUFFER_NUM)
			WaitFlag<HardEvent::MTE3_MTE2>(storeDone[slot]);
		if (whole) {
			DataCopy(xLocal, xGm[offset], count);
			DataCopy(zLocal, yGm[offset], count);
		} else {
			DataCopyPad(xLocal, xGm[offset], params, {false, 0, 0, 0});
			DataCopyPad(zLocal, yGm[offset], params, {false, 0, 0, 0});
		}
		inQueueX.EnQue(xLocal);
		event_t yLoaded = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
		SetFlag<HardEvent::MTE2_V>(yLoaded);

		xLocal = inQueueX.DeQue<T>();
		WaitFlag<HardEvent::MTE2_V>(yLoaded);
		Axpy(zLocal, xLocal, this->alpha, count);
		outQueueZ.EnQue(zLocal);
		inQueueX.FreeTensor(xLocal);

		zLocal = outQueueZ.DeQue<T>();
		if (whole)
			DataCopy(zGm[offset], zLocal, count);
		else
			DataCopyPad(zGm[offset], zLocal, params);
		SetFlag<HardEvent::MTE3_MTE2>(storeDone[slot]);
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	TBuf<QuePosition::VECCALC> bankPad;
	GlobalTensor<T> xGm, yGm, zGm;
	uint32_t length;
	uint32_t tileLength;
	T alpha;
	event_t storeDone[BUFFER_NUM];
};

extern "C" __global__ __aicore__ void axpy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	KernelAxpyExpert<DTYPE_X> op;
	op.Init(x, y, z, tilingData);
	op.Process();
}
