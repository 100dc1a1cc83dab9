// SPDX-License-Identifier: MIT
//
// Kernel of add_rms_norm, one row per step through single-buffered queues:
// x1 and x2 come in with DataCopyPad, x = x1 + x2 in half goes straight back
// out, then x is cast to float, squared, ReduceSummed, and the scalar unit
// forms mean + epsilon, which a small vector buffer turns into rstd; the row
// is scaled, multiplied by gamma (cast to float once) and cast back to half.
// A full barrier follows each row's copies.
#include "kernel_operator.h"

using namespace AscendC;

class KernelAddRmsNorm {
public:
	__aicore__ inline KernelAddRmsNorm() {}
	__aicore__ inline void Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR x,
				    const AddRmsNormTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		invCols = t.invCols;
		epsilon = t.epsilon;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		uint64_t len = (uint64_t)rowNum * cols;
		x1Gm.SetGlobalBuffer((__gm__ half *)x1 + start, len);
		x2Gm.SetGlobalBuffer((__gm__ half *)x2 + start, len);
		yGm.SetGlobalBuffer((__gm__ half *)y + start, len);
		xGm.SetGlobalBuffer((__gm__ half *)x + start, len);
		gammaGm.SetGlobalBuffer((__gm__ half *)gamma, cols);
		pipe.InitBuffer(x1Queue, 1, t.colsAligned * sizeof(half));
		pipe.InitBuffer(x2Queue, 1, t.colsAligned * sizeof(half));
		pipe.InitBuffer(xQueue, 1, t.colsAligned * sizeof(half));
		pipe.InitBuffer(yQueue, 1, t.colsAligned * sizeof(half));
		pipe.InitBuffer(gammaBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(xfBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(tmpBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, (t.colsAligned / 64 + 8) * sizeof(float));
		pipe.InitBuffer(redBuf, 64);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> gammaF = gammaBuf.Get<float>();
		LocalTensor<half> gammaH = tmpBuf.Get<half>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(half)), 0, 0, 0};
		DataCopyPadExtParams<half> pad{false, 0, 0, (half)0};
		DataCopyPad(gammaH, gammaGm, params, pad);
		PipeBarrier<PIPE_ALL>();
		Cast(gammaF, gammaH, RoundMode::CAST_NONE, cols);
		PipeBarrier<PIPE_ALL>();
		for (uint32_t r = 0; r < rowNum; r++) {
			CopyIn(r);
			Compute(gammaF);
			CopyOut(r);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t r)
	{
		LocalTensor<half> a = x1Queue.AllocTensor<half>();
		LocalTensor<half> b = x2Queue.AllocTensor<half>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(half)), 0, 0, 0};
		DataCopyPadExtParams<half> pad{false, 0, 0, (half)0};
		DataCopyPad(a, x1Gm[(uint64_t)r * cols], params, pad);
		DataCopyPad(b, x2Gm[(uint64_t)r * cols], params, pad);
		PipeBarrier<PIPE_ALL>();
		x1Queue.EnQue(a);
		x2Queue.EnQue(b);
	}

	__aicore__ inline void Compute(const LocalTensor<float> &gammaF)
	{
		LocalTensor<half> a = x1Queue.DeQue<half>();
		LocalTensor<half> b = x2Queue.DeQue<half>();
		LocalTensor<half> xLocal = xQueue.AllocTensor<half>();
		LocalTensor<half> yLocal = yQueue.AllocTensor<half>();
		LocalTensor<float> xf = xfBuf.Get<float>();
		LocalTensor<float> tmp = tmpBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = redBuf.Get<float>();
		Add(xLocal, a, b, cols);
		PipeBarrier<PIPE_V>();
		Cast(xf, xLocal, RoundMode::CAST_NONE, cols);
		PipeBarrier<PIPE_V>();
		Mul(tmp, xf, xf, cols);
		PipeBarrier<PIPE_V>();
		ReduceSum(red, tmp, work, cols);
		float meanSq = red.GetValue(0) * invCols;
		Duplicate(red, meanSq + epsilon, 8);
		PipeBarrier<PIPE_V>();
		Rsqrt(red, red, 8);
		float rstd = red.GetValue(0);
		Muls(tmp, xf, rstd, cols);
		PipeBarrier<PIPE_V>();
		Mul(xf, tmp, gammaF, cols);
		PipeBarrier<PIPE_V>();
		Cast(yLocal, xf, RoundMode::CAST_RINT, cols);
		xQueue.EnQue(xLocal);
		yQueue.EnQue(yLocal);
		x1Queue.FreeTensor(a);
		x2Queue.FreeTensor(b);
	}

	__aicore__ inline void CopyOut(uint32_t r)
	{
		LocalTensor<half> xLocal = xQueue.DeQue<half>();
		LocalTensor<half> yLocal = yQueue.DeQue<half>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(half)), 0, 0, 0};
		DataCopyPad(xGm[(uint64_t)r * cols], xLocal, params);
		DataCopyPad(yGm[(uint64_t)r * cols], yLocal, params);
		PipeBarrier<PIPE_ALL>();
		xQueue.FreeTensor(xLocal);
		yQueue.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> x1Queue, x2Queue;
	TQue<QuePosition::VECOUT, 1> xQueue, yQueue;
	TBuf<QuePosition::VECCALC> gammaBuf, xfBuf, tmpBuf, workBuf, redBuf;
	GlobalTensor<half> x1Gm, x2Gm, gammaGm, yGm, xGm;
	uint32_t cols, rowNum;
	float invCols, epsilon;
};

extern "C" __global__ __aicore__ void add_rms_norm(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y, GM_ADDR x,
						   GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelAddRmsNorm op;
	op.Init(x1, x2, gamma, y, x, tilingData);
	op.Process();
}
