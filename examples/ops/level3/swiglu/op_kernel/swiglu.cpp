// SPDX-License-Identifier: MIT
//
// Kernel of swiglu: y = a * sigmoid(a) * b with x = [a, b] along the last
// axis.  Each core walks its rows one at a time and each row in chunks:
// the a and b halves of a chunk come in with DataCopyPad, are widened to
// float, go through silu written out as a chain of vector instructions
// (a / (1 + exp(-a)), then * b), and are narrowed back to half.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelSwiGlu {
public:
	__aicore__ inline KernelSwiGlu() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SwiGluTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		this->colNum = tiling.colNum;
		this->tileCols = tiling.tileCols;
		this->rowStart = coreIdx * tiling.rowsPerCore;
		this->rowCount = (coreIdx == GetBlockNum() - 1) ? tiling.lastCoreRows : tiling.rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ half *)x + (uint64_t)this->rowStart * colNum * 2,
				    (uint64_t)this->rowCount * colNum * 2);
		yGm.SetGlobalBuffer((__gm__ half *)y + (uint64_t)this->rowStart * colNum, (uint64_t)this->rowCount * colNum);
		pipe.InitBuffer(inQueueA, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(inQueueB, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileCols * sizeof(half));
		pipe.InitBuffer(aBuf, tileCols * sizeof(float));
		pipe.InitBuffer(bBuf, tileCols * sizeof(float));
		pipe.InitBuffer(tmpBuf, tileCols * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rowCount; r++) {
			for (uint32_t c = 0; c < colNum; c += tileCols) {
				uint32_t n = (colNum - c < tileCols) ? colNum - c : tileCols;
				CopyIn(r, c, n);
				Compute(n);
				CopyOut(r, c, n);
			}
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t r, uint32_t c, uint32_t n)
	{
		LocalTensor<half> aLocal = inQueueA.AllocTensor<half>();
		LocalTensor<half> bLocal = inQueueB.AllocTensor<half>();
		uint64_t rowOffset = (uint64_t)r * colNum * 2;
		DataCopyExtParams params(1, n * sizeof(half), 0, 0, 0);
		DataCopyPadExtParams<half> pad(false, 0, 0, 0);
		DataCopyPad(aLocal, xGm[rowOffset + c], params, pad);
		DataCopyPad(bLocal, xGm[rowOffset + colNum + c], params, pad);
		inQueueA.EnQue(aLocal);
		inQueueB.EnQue(bLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<half> aLocal = inQueueA.DeQue<half>();
		LocalTensor<half> bLocal = inQueueB.DeQue<half>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		LocalTensor<float> a = aBuf.Get<float>();
		LocalTensor<float> b = bBuf.Get<float>();
		LocalTensor<float> t = tmpBuf.Get<float>();
		Cast(a, aLocal, RoundMode::CAST_NONE, n);
		Cast(b, bLocal, RoundMode::CAST_NONE, n);
		PipeBarrier<PIPE_V>();
		Muls(t, a, -1.0f, n);
		PipeBarrier<PIPE_V>();
		Exp(t, t, n);
		PipeBarrier<PIPE_V>();
		Adds(t, t, 1.0f, n);
		PipeBarrier<PIPE_V>();
		Div(t, a, t, n);
		PipeBarrier<PIPE_V>();
		Mul(t, t, b, n);
		PipeBarrier<PIPE_V>();
		Cast(yLocal, t, RoundMode::CAST_RINT, n);
		outQueueY.EnQue<half>(yLocal);
		inQueueA.FreeTensor(aLocal);
		inQueueB.FreeTensor(bLocal);
	}

	__aicore__ inline void CopyOut(uint32_t r, uint32_t c, uint32_t n)
	{
		LocalTensor<half> yLocal = outQueueY.DeQue<half>();
		DataCopyPad(yGm[(uint64_t)r * colNum + c], yLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueA, inQueueB;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> aBuf, bBuf, tmpBuf;
	GlobalTensor<half> xGm, yGm;
	uint32_t colNum = 0;
	uint32_t tileCols = 0;
	uint32_t rowStart = 0;
	uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void swiglu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	if (TILING_KEY_IS(1)) {
		KernelSwiGlu op;
		op.Init(x, y, tilingData);
		op.Process();
	}
}
