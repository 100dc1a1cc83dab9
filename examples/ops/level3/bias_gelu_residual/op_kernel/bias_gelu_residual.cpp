// SPDX-License-Identifier: MIT
//
// Kernel of bias_gelu_residual:
//   u = x + bias
//   y = 0.5 * u * (1 + tanh(sqrt(2 / pi) * (u + 0.044715 * u^3))) + residual
// Each core walks its rows one at a time and each row in chunks.  For every
// chunk the matching slice of bias is read again, x, bias and residual are
// widened to float, and gelu runs as a chain of vector instructions; a full
// barrier separates the chunks.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr float GELU_COEFF = 0.044715f;
constexpr float SQRT_2_OVER_PI = 0.7978845608028654f;

class KernelBiasGeluResidual {
public:
	__aicore__ inline KernelBiasGeluResidual() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR residual, GM_ADDR y,
				    const BiasGeluResidualTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		colNum = tiling.colNum;
		tileCols = tiling.tileCols;
		rowCount = (coreIdx == GetBlockNum() - 1) ? tiling.lastCoreRows : tiling.rowsPerCore;
		uint64_t offset = (uint64_t)coreIdx * tiling.rowsPerCore * colNum;
		xGm.SetGlobalBuffer((__gm__ half *)x + offset, (uint64_t)rowCount * colNum);
		resGm.SetGlobalBuffer((__gm__ half *)residual + offset, (uint64_t)rowCount * colNum);
		yGm.SetGlobalBuffer((__gm__ half *)y + offset, (uint64_t)rowCount * colNum);
		biasGm.SetGlobalBuffer((__gm__ half *)bias, colNum);
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(inQueueBias, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(inQueueRes, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(uBuf, tileCols * sizeof(float));
		pipe.InitBuffer(tBuf, tileCols * sizeof(float));
		pipe.InitBuffer(rBuf, tileCols * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rowCount; r++) {
			for (uint32_t c = 0; c < colNum; c += tileCols) {
				uint32_t n = (colNum - c < tileCols) ? colNum - c : tileCols;
				uint64_t offset = (uint64_t)r * colNum + c;
				CopyIn(offset, c, n);
				Compute(n);
				CopyOut(offset, n);
				PipeBarrier<PIPE_ALL>();
			}
		}
	}

private:
	__aicore__ inline void CopyIn(uint64_t offset, uint32_t c, uint32_t n)
	{
		LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
		LocalTensor<half> bLocal = inQueueBias.AllocTensor<half>();
		LocalTensor<half> rLocal = inQueueRes.AllocTensor<half>();
		DataCopyExtParams params(1, n * sizeof(half), 0, 0, 0);
		DataCopyPadExtParams<half> pad(false, 0, 0, 0);
		DataCopyPad(xLocal, xGm[offset], params, pad);
		DataCopyPad(bLocal, biasGm[c], params, pad);
		DataCopyPad(rLocal, resGm[offset], params, pad);
		inQueueX.EnQue(xLocal);
		inQueueBias.EnQue(bLocal);
		inQueueRes.EnQue(rLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<half> xLocal = inQueueX.DeQue<half>();
		LocalTensor<half> bLocal = inQueueBias.DeQue<half>();
		LocalTensor<half> rLocal = inQueueRes.DeQue<half>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		LocalTensor<float> u = uBuf.Get<float>();
		LocalTensor<float> t = tBuf.Get<float>();
		LocalTensor<float> r = rBuf.Get<float>();

		Cast(u, xLocal, RoundMode::CAST_NONE, n);
		Cast(t, bLocal, RoundMode::CAST_NONE, n);
		Cast(r, rLocal, RoundMode::CAST_NONE, n);
		PipeBarrier<PIPE_V>();
		Add(u, u, t, n);
		PipeBarrier<PIPE_V>();
		// t = sqrt(2/pi) * (u + 0.044715 * u^3)
		Mul(t, u, u, n);
		PipeBarrier<PIPE_V>();
		Mul(t, t, u, n);
		PipeBarrier<PIPE_V>();
		Muls(t, t, GELU_COEFF, n);
		PipeBarrier<PIPE_V>();
		Add(t, t, u, n);
		PipeBarrier<PIPE_V>();
		Muls(t, t, SQRT_2_OVER_PI, n);
		PipeBarrier<PIPE_V>();
		// gelu = 0.5 * u * (1 + tanh(t))
		Tanh(t, t, n);
		PipeBarrier<PIPE_V>();
		Adds(t, t, 1.0f, n);
		PipeBarrier<PIPE_V>();
		Mul(t, t, u, n);
		PipeBarrier<PIPE_V>();
		Muls(t, t, 0.5f, n);
		PipeBarrier<PIPE_V>();
		Add(t, t, r, n);
		PipeBarrier<PIPE_V>();
		Cast(yLocal, t, RoundMode::CAST_RINT, n);

		outQueueY.EnQue<half>(yLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueBias.FreeTensor(bLocal);
		inQueueRes.FreeTensor(rLocal);
	}

	__aicore__ inline void CopyOut(uint64_t offset, uint32_t n)
	{
		LocalTensor<half> yLocal = outQueueY.DeQue<half>();
		DataCopyPad(yGm[offset], yLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueBias, inQueueRes;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> uBuf, tBuf, rBuf;
	GlobalTensor<half> xGm, biasGm, resGm, yGm;
	uint32_t colNum = 0;
	uint32_t tileCols = 0;
	uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void bias_gelu_residual(GM_ADDR x, GM_ADDR bias, GM_ADDR residual, GM_ADDR y,
							 GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBiasGeluResidual op;
	op.Init(x, bias, residual, y, tilingData);
	op.Process();
}
