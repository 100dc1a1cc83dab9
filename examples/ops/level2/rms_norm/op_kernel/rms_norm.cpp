// SPDX-License-Identifier: MIT
//
// Kernel of rms_norm, one row per step through single-buffered queues:
// square, ReduceSum, read the sum on the scalar unit, form mean + epsilon,
// Rsqrt it through a small vector buffer, read it back, scale the row and
// multiply by gamma.  Rows and gamma move with DataCopyPad.
#include "kernel_operator.h"
#include "rms_norm_tiling.h"

using namespace AscendC;

class KernelRmsNorm {
public:
	__aicore__ inline KernelRmsNorm() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, const RmsNormTilingData &t)
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
		pipe.InitBuffer(inQueue, 1, t.colsAligned * sizeof(float));
		pipe.InitBuffer(outQueue, 1, t.colsAligned * sizeof(float));
		pipe.InitBuffer(gammaBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(tmpBuf, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, (t.colsAligned / 64 + 8) * sizeof(float));
		pipe.InitBuffer(scalarBuf, 64);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> gammaLocal = gammaBuf.Get<float>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(gammaLocal, gammaGm, params, pad);
		for (uint32_t r = 0; r < rowNum; r++) {
			CopyIn(r);
			Compute(gammaLocal);
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

	__aicore__ inline void Compute(const LocalTensor<float> &gammaLocal)
	{
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
		LocalTensor<float> tmp = tmpBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> s = scalarBuf.Get<float>();
		Mul(tmp, xLocal, xLocal, cols);
		PipeBarrier<PIPE_V>();
		ReduceSum(s, tmp, work, cols);
		float meanSq = s.GetValue(0) * invCols;
		Duplicate(s, meanSq + epsilon, 8);
		PipeBarrier<PIPE_V>();
		Rsqrt(s, s, 8);
		float rstd = s.GetValue(0);
		Muls(tmp, xLocal, rstd, cols);
		PipeBarrier<PIPE_V>();
		Mul(yLocal, tmp, gammaLocal, cols);
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
	TBuf<QuePosition::VECCALC> gammaBuf, tmpBuf, workBuf, scalarBuf;
	GlobalTensor<float> xGm, gammaGm, yGm;
	uint32_t cols, rowNum;
	float invCols, epsilon;
};

extern "C" __global__ __aicore__ void rms_norm(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	REGISTER_TILING_DEFAULT(RmsNormTilingData);
	GET_TILING_DATA_WITH_STRUCT(RmsNormTilingData, tilingData, tiling);
	KernelRmsNorm op;
	op.Init(x, gamma, y, tilingData);
	op.Process();
}
