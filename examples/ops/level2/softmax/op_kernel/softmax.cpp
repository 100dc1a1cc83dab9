// SPDX-License-Identifier: MIT
//
// Kernel of softmax over the last axis, one row per step: DataCopyPad the
// row in, ReduceMax, read the max on the scalar unit, subtract it, Exp,
// ReduceSum, read the sum, scale by its reciprocal, DataCopyPad the row out.
#include "kernel_operator.h"

using namespace AscendC;

class KernelSoftmax {
public:
	__aicore__ inline KernelSoftmax() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, (uint64_t)rowNum * cols);
		pipe.InitBuffer(inQueue, t.bufferNum, t.colsAligned * sizeof(float));
		pipe.InitBuffer(outQueue, t.bufferNum, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, (t.colsAligned / 64 + 8) * sizeof(float));
		pipe.InitBuffer(reduceBuf, 8 * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rowNum; r++) {
			CopyIn(r);
			Compute();
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

	__aicore__ inline void Compute()
	{
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = reduceBuf.Get<float>();
		ReduceMax(red, xLocal, work, cols);
		float maxVal = red.GetValue(0);
		Adds(yLocal, xLocal, -maxVal, cols);
		PipeBarrier<PIPE_V>();
		Exp(yLocal, yLocal, cols);
		PipeBarrier<PIPE_V>();
		ReduceSum(red, yLocal, work, cols);
		float sumVal = red.GetValue(0);
		Muls(yLocal, yLocal, 1.0f / sumVal, cols);
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
	TBuf<QuePosition::VECCALC> workBuf, reduceBuf;
	GlobalTensor<float> xGm, yGm;
	uint32_t cols, rowNum;
};

extern "C" __global__ __aicore__ void softmax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelSoftmax op;
	op.Init(x, y, tilingData);
	op.Process();
}
