// SPDX-License-Identifier: MIT
//
// Hand-tuned kernel of reduce_sum.  Each core owns a contiguous, balanced
// range of rows and streams it in tiles of whole rows through a
// double-buffered queue, prefetching the next tile before reducing the
// current one.  Every row's ReduceSum lands in its own 32-byte slot (and
// uses its own work area, so the reductions pipeline), one WholeReduceSum
// with a one-lane mask packs the slots into the output tile, and the sums go
// out with one copy per tile.  GM is streamed with the L2 bypassed.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <bool ALIGNED> class KernelReduceSum {
public:
	__aicore__ inline KernelReduceSum() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReduceSumTilingData &t, TPipe *pipe)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		colsAligned = t.colsAligned;
		tileRows = t.tileRows;
		workStride = t.workStride;
		uint32_t rowStart;
		if (blockIdx < t.bigCoreNum) {
			rowNum = t.smallCoreRows + 1;
			rowStart = blockIdx * rowNum;
		} else {
			rowNum = t.smallCoreRows;
			rowStart = blockIdx * t.smallCoreRows + t.bigCoreNum;
		}
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + rowStart, rowNum);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe->InitBuffer(inQueue, BUFFER_NUM, tileRows * colsAligned * sizeof(float));
		pipe->InitBuffer(outQueue, BUFFER_NUM, (tileRows + 7) / 8 * 32);
		pipe->InitBuffer(slotBuf, tileRows * 32);
		pipe->InitBuffer(workBuf, tileRows * workStride * sizeof(float));
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
		LocalTensor<float> slots = slotBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		for (uint32_t r = 0; r < n; r++)
			ReduceSum(slots[r * 8], xLocal[r * colsAligned], work[r * workStride], cols);
		WholeReduceSum<float>(yLocal, slots, 1, n, 1, 1, 1);
		outQueue.EnQue(yLocal);
		inQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t i)
	{
		uint32_t n = RowsOf(i);
		LocalTensor<float> yLocal = outQueue.DeQue<float>();
		DataCopyExtParams params{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
		DataCopyPad(yGm[i * tileRows], yLocal, params);
		outQueue.FreeTensor(yLocal);
	}

private:
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
	TBuf<QuePosition::VECCALC> slotBuf, workBuf;
	GlobalTensor<float> xGm, yGm;
	uint32_t cols, colsAligned, tileRows, workStride, rowNum;
};

extern "C" __global__ __aicore__ void reduce_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	TPipe pipe;
	if (TILING_KEY_IS(1)) {
		KernelReduceSum<true> op;
		op.Init(x, y, tilingData, &pipe);
		op.Process();
	} else {
		KernelReduceSum<false> op;
		op.Init(x, y, tilingData, &pipe);
		op.Process();
	}
}
