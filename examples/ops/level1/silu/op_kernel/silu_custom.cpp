// SPDX-License-Identifier: MIT
//
// Kernel of SiluCustom: y = x / (1 + exp(-x)), built from four basic vector
// instructions (Muls, Exp, Adds, Div) through a scratch buffer, with a
// PIPE_V barrier after each.  Double-buffered queues, small tiles.  The
// entry is a template over the element type: silu_custom<float> and
// silu_custom<half> are instantiated.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelSilu {
public:
	__aicore__ inline KernelSilu() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t formerNum, uint32_t formerLength,
				    uint32_t tailLength, uint32_t tileLength)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t start;
		if (idx < formerNum) {
			this->length = formerLength;
			start = idx * formerLength;
		} else {
			this->length = tailLength;
			start = formerNum * formerLength + (idx - formerNum) * tailLength;
		}
		if (start + this->length > totalLength)
			this->length = totalLength - start;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(T));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(T));
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
		if (count * sizeof(T) % 32 == 0)
			DataCopy(xLocal, xGm[offset], count);
		else
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = outQueueY.AllocTensor<T>();
		LocalTensor<T> t = tmpBuf.Get<T>();
		Muls(t, xLocal, (T)-1.0f, count);
		PipeBarrier<PIPE_V>();
		Exp(t, t, count);
		PipeBarrier<PIPE_V>();
		Adds(t, t, (T)1.0f, count);
		PipeBarrier<PIPE_V>();
		Div(yLocal, xLocal, t, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> yLocal = outQueueY.DeQue<T>();
		if (count * sizeof(T) % 32 == 0)
			DataCopy(yGm[offset], yLocal, count);
		else
			DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> tmpBuf;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

template <typename T>
__global__ __aicore__ void silu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelSilu<T> op;
	op.Init(x, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.tailLength,
		tilingData.tileLength);
	op.Process();
}

template __global__ __aicore__ void silu_custom<float>(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
template __global__ __aicore__ void silu_custom<half>(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
