// SPDX-License-Identifier: MIT
//
// Kernel of AbsCustom: y = |x|.  The entry is a template over the element
// type (instantiated as abs_custom<half> or abs_custom<float>).  Queues are
// single-buffered and every copy goes through DataCopyPad.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

template <typename T> class KernelAbs {
public:
	__aicore__ inline KernelAbs() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t lastBlockLength,
				    uint32_t tileLength)
	{
		uint32_t idx = GetBlockIdx();
		this->length = idx == GetBlockNum() - 1 ? lastBlockLength : blockLength;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + idx * blockLength, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + idx * blockLength, this->length);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		uint32_t loopCount = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < loopCount; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = i == loopCount - 1 ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
		Abs(yLocal, xLocal, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> yLocal = outQueueY.DeQue<T>();
		DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

template <typename T>
__global__ __aicore__ void abs_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelAbs<T> op;
	op.Init(x, y, tilingData.blockLength, tilingData.lastBlockLength, tilingData.tileLength);
	op.Process();
}

template __global__ __aicore__ void abs_custom<half>(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
template __global__ __aicore__ void abs_custom<float>(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
