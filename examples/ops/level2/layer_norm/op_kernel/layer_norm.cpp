// SPDX-License-Identifier: MIT
//
// Kernel of layer_norm, one row per step: DataCopyPad the row in,
// ReduceSum for the mean, subtract it, square, ReduceSum for the variance,
// Sqrt of var + epsilon through a small vector buffer, then divide by the
// standard deviation, multiply by gamma and add beta, each op its own pass
// with a barrier in between, and DataCopyPad the row out.
#include "kernel_operator.h"

using namespace AscendC;

class KernelLayerNorm {
public:
	__aicore__ inline KernelLayerNorm() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, const LayerNormTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		invCols = t.invCols;
		epsilon = t.epsilon;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, (uint64_t)rowNum * cols);
		gammaGm.SetGlobalBuffer((__gm__ float *)gamma, cols);
		betaGm.SetGlobalBuffer((__gm__ float *)beta, cols);
		pipe.InitBuffer(inQueue, t.bufferNum, t.colsAligned * sizeof(float));
		pipe.InitBuffer(outQueue, t.bufferNum, t.colsAligned * sizeof(float));
		pipe.InitBuffer(gammaBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(betaBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(centBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(sqBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, (t.colsAligned / 64 + 8) * sizeof(float));
		pipe.InitBuffer(redBuf, 64);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> gammaLocal = gammaBuf.Get<float>();
		LocalTensor<float> betaLocal = betaBuf.Get<float>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(gammaLocal, gammaGm, params, pad);
		DataCopyPad(betaLocal, betaGm, params, pad);
		PipeBarrier<PIPE_ALL>();
		for (uint32_t r = 0; r < rowNum; r++) {
			CopyIn(r);
			Compute(gammaLocal, betaLocal);
			CopyOut(r);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t r)
	{
		LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(xLocal, xGm[(uint64_t)r * cols], params, pad);
		inQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(const LocalTensor<float> &gammaLocal, const LocalTensor<float> &betaLocal)
	{
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
		LocalTensor<float> cent = centBuf.Get<float>();
		LocalTensor<float> sq = sqBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = redBuf.Get<float>();
		ReduceSum(red, xLocal, work, cols);
		float mean = red.GetValue(0) * invCols;
		Adds(cent, xLocal, -mean, cols);
		PipeBarrier<PIPE_V>();
		Mul(sq, cent, cent, cols);
		PipeBarrier<PIPE_V>();
		ReduceSum(red, sq, work, cols);
		float var = red.GetValue(0) * invCols;
		Duplicate(red, var + epsilon, 8);
		PipeBarrier<PIPE_V>();
		Sqrt(red, red, 8);
		float stdDev = red.GetValue(0);
		Duplicate(sq, stdDev, cols);
		PipeBarrier<PIPE_V>();
		Div(cent, cent, sq, cols);
		PipeBarrier<PIPE_V>();
		Mul(cent, cent, gammaLocal, cols);
		PipeBarrier<PIPE_V>();
		Add(yLocal, cent, betaLocal, cols);
		outQueue.EnQue(yLocal);
		inQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t r)
	{
		LocalTensor<float> yLocal = outQueue.DeQue<float>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPad(yGm[(uint64_t)r * cols], yLocal, params);
		outQueue.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TQue<QuePosition::VECOUT, 1> outQueue;
	TBuf<QuePosition::VECCALC> gammaBuf, betaBuf, centBuf, sqBuf, workBuf, redBuf;
	GlobalTensor<float> xGm, gammaGm, betaGm, yGm;
	uint32_t cols, rowNum;
	float invCols, epsilon;
};

extern "C" __global__ __aicore__ void layer_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
						 GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelLayerNorm op;
	op.Init(x, gamma, beta, y, tilingData);
	op.Process();
}
