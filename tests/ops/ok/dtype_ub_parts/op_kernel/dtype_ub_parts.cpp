// SPDX-License-Identifier: MIT
//
// Kernel of DtypeUbParts: y = 2x + 1.  Each core takes blockLength
// elements (the last what is left) in tiles of the tiling's tileLength,
// with x and y double-buffered through VECIN/VECOUT queues.  float16 and
// float32 compute in place in y; int32 is cast to a float copy of the tile
// (one more UB part, a TBuf), computed there and cast back, rounding to
// the nearest integer.
#include "kernel_operator.h"
#include "dtype_ub_parts_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelDtypeUbParts {
public:
	__aicore__ inline KernelDtypeUbParts() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const DtypeUbPartsTilingData &tiling)
	{
		uint32_t start = tiling.blockLength * GetBlockIdx();
		this->length = 0;
		if (start < tiling.totalLength)
			this->length = tiling.totalLength - start < tiling.blockLength ? tiling.totalLength - start
										      : tiling.blockLength;
		this->tileLength = tiling.tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(T));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(T));
		if constexpr (std::is_same_v<T, int32_t>)
			pipe.InitBuffer(floatCopy, this->tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
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
		if constexpr (std::is_same_v<T, int32_t>) {
			LocalTensor<float> f = floatCopy.Get<float>();
			Cast(f, xLocal, RoundMode::CAST_NONE, count);
			Muls(f, f, 2.0f, count);
			Adds(f, f, 1.0f, count);
			Cast(yLocal, f, RoundMode::CAST_RINT, count);
		} else {
			Muls(yLocal, xLocal, (T)2.0f, count);
			Adds(yLocal, yLocal, (T)1.0f, count);
		}
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
	TBuf<QuePosition::VECCALC> floatCopy;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

REGISTER_TILING_DEFAULT(DtypeUbPartsTilingData);

extern "C" __global__ __aicore__ void dtype_ub_parts(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA_WITH_STRUCT(DtypeUbPartsTilingData, tilingData, tiling);
	KernelDtypeUbParts<DTYPE_X> op;
	op.Init(x, y, tilingData);
	op.Process();
}
