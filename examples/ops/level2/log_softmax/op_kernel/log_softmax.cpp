// SPDX-License-Identifier: MIT
//
// Kernel of log_softmax over the last axis of a half matrix, one row per
// step: DataCopyPad the row in, Cast to float, ReduceMax, subtract the max,
// Exp into a scratch row, ReduceSum, Ln of the sum through a small vector
// buffer, subtract it, Cast back to half and DataCopyPad the row out.  Full
// barriers separate the copies from the vector work.
#include "kernel_operator.h"

using namespace AscendC;

class KernelLogSoftmax {
public:
	__aicore__ inline KernelLogSoftmax() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const LogSoftmaxTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		xGm.SetGlobalBuffer((__gm__ half *)x + start, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ half *)y + start, (uint64_t)rowNum * cols);
		pipe.InitBuffer(xBuf, t.colsAligned * sizeof(half));
		pipe.InitBuffer(yBuf, t.colsAligned * sizeof(half));
		pipe.InitBuffer(shiftBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(expBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, (t.colsAligned / 64 + 8) * sizeof(float));
		pipe.InitBuffer(redBuf, 64);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<half> xLocal = xBuf.Get<half>();
		LocalTensor<half> yLocal = yBuf.Get<half>();
		LocalTensor<float> shifted = shiftBuf.Get<float>();
		LocalTensor<float> e = expBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = redBuf.Get<float>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(half)), 0, 0, 0};
		DataCopyPadExtParams<half> pad{false, 0, 0, (half)0};
		for (uint32_t r = 0; r < rowNum; r++) {
			DataCopyPad(xLocal, xGm[(uint64_t)r * cols], params, pad);
			PipeBarrier<PIPE_ALL>();
			Cast(shifted, xLocal, RoundMode::CAST_NONE, cols);
			PipeBarrier<PIPE_V>();
			ReduceMax(red, shifted, work, cols);
			float maxVal = red.GetValue(0);
			Adds(shifted, shifted, -maxVal, cols);
			PipeBarrier<PIPE_V>();
			Exp(e, shifted, cols);
			PipeBarrier<PIPE_V>();
			ReduceSum(red, e, work, cols);
			float sumVal = red.GetValue(0);
			Duplicate(red, sumVal, 8);
			PipeBarrier<PIPE_V>();
			Ln(red, red, 8);
			float lnSum = red.GetValue(0);
			Adds(shifted, shifted, -lnSum, cols);
			PipeBarrier<PIPE_V>();
			Cast(yLocal, shifted, RoundMode::CAST_RINT, cols);
			PipeBarrier<PIPE_ALL>();
			DataCopyPad(yGm[(uint64_t)r * cols], yLocal, params);
			PipeBarrier<PIPE_ALL>();
		}
	}

private:
	TPipe pipe;
	TBuf<QuePosition::VECCALC> xBuf, yBuf, shiftBuf, expBuf, workBuf, redBuf;
	GlobalTensor<half> xGm, yGm;
	uint32_t cols, rowNum;
};

extern "C" __global__ __aicore__ void log_softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelLogSoftmax op;
	op.Init(x, y, tilingData);
	op.Process();
}
