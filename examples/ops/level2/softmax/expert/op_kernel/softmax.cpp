// SPDX-License-Identifier: MIT
//
// Hand-tuned kernel of softmax over the last axis.  Each core owns a
// balanced, contiguous range of rows and streams it in tiles of whole rows:
// the next tile's copy is issued before the current one is computed, input
// and output are double-buffered, the whole tile moves in one DataCopy (or
// one multi-row DataCopyPad when rows are not whole 32-byte blocks), and GM
// is streamed with the L2 bypassed.  Per row the chain runs in place in the
// ping-pongs between the input and output buffers (never in place, which
// would make every repeat read and write the same UB bank): ReduceMax,
// Adds(-max), Exp, ReduceSum, Muls(1/sum).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <bool ALIGNED> class KernelSoftmax {
public:
	__aicore__ inline KernelSoftmax() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTilingData &t, TPipe *pipe)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		colsAligned = t.colsAligned;
		tileRows = t.tileRows;
		uint64_t rowStart;
		if (blockIdx < t.bigCoreNum) {
			rowNum = t.smallCoreRows + 1;
			rowStart = (uint64_t)blockIdx * rowNum;
		} else {
			rowNum = t.smallCoreRows;
			rowStart = (uint64_t)blockIdx * t.smallCoreRows + t.bigCoreNum;
		}
		xGm.SetGlobalBuffer((__gm__ float *)x + rowStart * cols, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + rowStart * cols, (uint64_t)rowNum * cols);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe->InitBuffer(inQueue, BUFFER_NUM, tileRows * colsAligned * sizeof(float));
		pipe->InitBuffer(outQueue, BUFFER_NUM, tileRows * colsAligned * sizeof(float));
		pipe->InitBuffer(workBuf, t.workStride * sizeof(float));
		pipe->InitBuffer(redBuf, 64);
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (rowNum + tileRows - 1) / tileRows;
		if (tiles == 0)
			return;
		CopyIn(0);
		for (uint32_t i = 0; i < tiles; i++) {
			if (i + 1 < tiles)
				CopyIn(i + 1);
			Compute(i);
			CopyOut(i);
		}
	}

private:
	__aicore__ inline uint32_t RowsOf(uint32_t i) const
	{
		uint32_t left = rowNum - i * tileRows;
		return left < tileRows ? left : tileRows;
	}

	__aicore__ inline void CopyIn(uint32_t i)
	{
		uint32_t n = RowsOf(i);
		LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
		if constexpr (ALIGNED) {
			DataCopy(xLocal, xGm[(uint64_t)i * tileRows * cols], n * cols);
		} else {
			DataCopyExtParams params{(uint16_t)n, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
			DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
			DataCopyPad(xLocal, xGm[(uint64_t)i * tileRows * cols], params, pad);
		}
		inQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t i)
	{
		uint32_t n = RowsOf(i);
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = redBuf.Get<float>();
		for (uint32_t r = 0; r < n; r++) {
			LocalTensor<float> xr = xLocal[r * colsAligned];
			LocalTensor<float> yr = yLocal[r * colsAligned];
			ReduceMax(red, xr, work, cols);
			float maxVal = red.GetValue(0);
			Adds(yr, xr, -maxVal, cols);
			Exp(xr, yr, cols);
			ReduceSum(red[8], xr, work, cols);
			float sumVal = red.GetValue(8);
			Muls(yr, xr, 1.0f / sumVal, cols);
		}
		outQueue.EnQue(yLocal);
		inQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t i)
	{
		uint32_t n = RowsOf(i);
		LocalTensor<float> yLocal = outQueue.DeQue<float>();
		if constexpr (ALIGNED) {
			DataCopy(yGm[(uint64_t)i * tileRows * cols], yLocal, n * cols);
		} else {
			DataCopyExtParams params{(uint16_t)n, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
			DataCopyPad(yGm[(uint64_t)i * tileRows * cols], yLocal, params);
		}
		outQueue.FreeTensor(yLocal);
	}

private:
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
	TBuf<QuePosition::VECCALC> workBuf, redBuf;
	GlobalTensor<float> xGm, yGm;
	uint32_t cols, colsAligned, tileRows, rowNum;
};

extern "C" __global__ __aicore__ void softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	TPipe pipe;
	if (TILING_KEY_IS(1)) {
		KernelSoftmax<true> op;
		op.Init(x, y, tilingData, &pipe);
		op.Process();
	} else {
		KernelSoftmax<false> op;
		op.Init(x, y, tilingData, &pipe);
		op.Process();
	}
}
