// SPDX-License-Identifier: MIT
//
// Hand-tuned kernel of rms_norm.  Each core owns a balanced, contiguous
// range of rows and streams it in tiles of whole rows (one DataCopy, or one
// multi-row DataCopyPad for unaligned rows), prefetching the next tile
// before computing the current one, with input and output double-buffered
// and GM streamed past the L2.  Per row: x*x into a scratch row, ReduceSum,
// then mean + epsilon and Rsqrt on the one-element result in the vector
// unit, a single scalar read of rstd, Muls into the scratch row and Mul by
// gamma into the output (no op runs in place, so no repeat reads and writes
// one UB bank).
#include "kernel_operator.h"
#include "rms_norm_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <bool ALIGNED> class KernelRmsNorm {
public:
	__aicore__ inline KernelRmsNorm() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const RmsNormTilingData &t, TPipe *pipe)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		colsAligned = t.colsAligned;
		tileRows = t.tileRows;
		invCols = t.invCols;
		epsilon = t.epsilon;
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
		gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe->InitBuffer(inQueue, BUFFER_NUM, tileRows * colsAligned * sizeof(float));
		pipe->InitBuffer(outQueue, BUFFER_NUM, tileRows * colsAligned * sizeof(float));
		pipe->InitBuffer(gammaBuf, colsAligned * sizeof(float));
		pipe->InitBuffer(sqBuf, colsAligned * sizeof(float));
		pipe->InitBuffer(workBuf, t.workStride * sizeof(float));
		pipe->InitBuffer(redBuf, 32);
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (rowNum + tileRows - 1) / tileRows;
		if (tiles == 0)
			return;
		LocalTensor<float> gammaLocal = gammaBuf.Get<float>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(gammaLocal, gammaGm, params, pad);
		CopyIn(0);
		for (uint32_t i = 0; i < tiles; i++) {
			if (i + 1 < tiles)
				CopyIn(i + 1);
			Compute(i, gammaLocal);
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

	__aicore__ inline void Compute(uint32_t i, const LocalTensor<float> &gammaLocal)
	{
		uint32_t n = RowsOf(i);
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
		LocalTensor<float> sq = sqBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = redBuf.Get<float>();
		for (uint32_t r = 0; r < n; r++) {
			LocalTensor<float> xr = xLocal[r * colsAligned];
			LocalTensor<float> yr = yLocal[r * colsAligned];
			Mul(sq, xr, xr, cols);
			ReduceSum(red, sq, work, cols);
			Muls(red, red, invCols, 1);
			Adds(red, red, epsilon, 1);
			Rsqrt(red, red, 1);
			float rstd = red.GetValue(0);
			Muls(sq, xr, rstd, cols);
			Mul(yr, sq, gammaLocal, cols);
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
	TBuf<QuePosition::VECCALC> gammaBuf, sqBuf, workBuf, redBuf;
	GlobalTensor<float> xGm, gammaGm, yGm;
	uint32_t cols, colsAligned, tileRows, rowNum;
	float invCols, epsilon;
};

extern "C" __global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	REGISTER_TILING_DEFAULT(RmsNormTilingData);
	GET_TILING_DATA_WITH_STRUCT(RmsNormTilingData, tilingData, tiling);
	TPipe pipe;
	if (TILING_KEY_IS(1)) {
		KernelRmsNorm<true> op;
		op.Init(x, gamma, y, tilingData, &pipe);
		op.Process();
	} else {
		KernelRmsNorm<false> op;
		op.Init(x, gamma, y, tilingData, &pipe);
		op.Process();
	}
}
