// SPDX-License-Identifier: MIT
//
// Kernel of KeyedScale: y = 3x.  The tiling key says which dtype the
// tensors hold: 1 float32, 2 float16 (computed in float32 through Cast).
// Any other key computes nothing.  A core walks its share in
// double-buffered tiles through DataCopyPad, so any length works.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelKeyedScale {
public:
	__aicore__ inline KernelKeyedScale() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const KeyedScaleTilingData &t)
	{
		uint32_t start = t.blockLength * (uint32_t)GetBlockIdx();
		this->length = start < t.totalLength ? (t.totalLength - start < t.blockLength ? t.totalLength - start : t.blockLength) : 0;
		this->tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, t.tileLength * sizeof(T));
		pipe.InitBuffer(yQueue, BUFFER_NUM, t.tileLength * sizeof(T));
		pipe.InitBuffer(fBuf, t.tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, n);
			Compute(n);
			CopyOut(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t n)
	{
		LocalTensor<T> xLocal = xQueue.template AllocTensor<T>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(T), 0, 0, 0),
			    DataCopyPadExtParams<T>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<T> xLocal = xQueue.template DeQue<T>();
		LocalTensor<T> yLocal = yQueue.template AllocTensor<T>();
		if constexpr (sizeof(T) == sizeof(float)) {
			Muls(yLocal, xLocal, (T)3.0f, n);
		} else {
			LocalTensor<float> f = fBuf.Get<float>();
			Cast(f, xLocal, RoundMode::CAST_NONE, n);
			Muls(f, f, 3.0f, n);
			Cast(yLocal, f, RoundMode::CAST_RINT, n);
		}
		yQueue.EnQue(yLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<T> yLocal = yQueue.template DeQue<T>();
		DataCopyPad(yGm[offset], yLocal, DataCopyExtParams(1, n * sizeof(T), 0, 0, 0));
		yQueue.FreeTensor(yLocal);
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	TBuf<QuePosition::VECCALC> fBuf;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void keyed_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	if (TILING_KEY_IS(1)) {
		KernelKeyedScale<float> op;
		op.Init(x, y, tilingData);
		op.Process();
	} else if (TILING_KEY_IS(2)) {
		KernelKeyedScale<half> op;
		op.Init(x, y, tilingData);
		op.Process();
	}
}
