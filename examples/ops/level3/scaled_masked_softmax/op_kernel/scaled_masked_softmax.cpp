// SPDX-License-Identifier: MIT
//
// Kernel of scaled_masked_softmax: for every row of sk elements
//   z = mask ? -10000 : x * scale,   y = exp(z - max z) / sum exp(z - max z)
// Each core walks its rows one at a time.  The x row and the matching mask
// row (shared by all heads) come in with DataCopyPad; x is widened to float
// and scaled, the mask goes uint8 -> half -> float and selects the fill
// value arithmetically (z = xs * (1 - m) + m * -10000), and the row max and
// sum are reduced with ReduceMax/ReduceSum and read back by the scalar unit.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr float MASK_FILL = -10000.0f;

class KernelScaledMaskedSoftmax {
public:
	__aicore__ inline KernelScaledMaskedSoftmax() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR mask, GM_ADDR y, const ScaledMaskedSoftmaxTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		colNum = tiling.colNum;
		headNum = tiling.headNum;
		seqNum = tiling.seqNum;
		maskBatch = tiling.maskBatch;
		scale = tiling.scale;
		rowStart = coreIdx * tiling.rowsPerCore;
		rowCount = (coreIdx == GetBlockNum() - 1) ? tiling.lastCoreRows : tiling.rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ half *)x + (uint64_t)rowStart * colNum, (uint64_t)rowCount * colNum);
		yGm.SetGlobalBuffer((__gm__ half *)y + (uint64_t)rowStart * colNum, (uint64_t)rowCount * colNum);
		maskGm.SetGlobalBuffer((__gm__ uint8_t *)mask, (uint64_t)maskBatch * seqNum * colNum);
		uint32_t cols = tiling.colAligned;
		pipe.InitBuffer(inQueueX, BUFFER_NUM, cols * sizeof(half));
		pipe.InitBuffer(inQueueMask, BUFFER_NUM, cols * sizeof(uint8_t));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, cols * sizeof(half));
		pipe.InitBuffer(xBuf, cols * sizeof(float));
		pipe.InitBuffer(maskHalfBuf, cols * sizeof(half));
		pipe.InitBuffer(maskBuf, cols * sizeof(float));
		pipe.InitBuffer(tmpBuf, cols * sizeof(float));
		pipe.InitBuffer(workBuf, cols * sizeof(float));
		pipe.InitBuffer(reduceBuf, 32);
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rowCount; r++) {
			CopyIn(r);
			Compute();
			CopyOut(r);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t r)
	{
		uint32_t row = rowStart + r;
		uint32_t batch = row / (headNum * seqNum);
		uint32_t q = row % seqNum;
		uint64_t maskRow = (uint64_t)(maskBatch == 1 ? 0 : batch) * seqNum + q;
		LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
		LocalTensor<uint8_t> mLocal = inQueueMask.AllocTensor<uint8_t>();
		DataCopyPad(xLocal, xGm[(uint64_t)r * colNum], DataCopyExtParams(1, colNum * sizeof(half), 0, 0, 0),
			    DataCopyPadExtParams<half>(false, 0, 0, 0));
		DataCopyPad(mLocal, maskGm[maskRow * colNum], DataCopyExtParams(1, colNum, 0, 0, 0),
			    DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
		inQueueX.EnQue(xLocal);
		inQueueMask.EnQue(mLocal);
	}

	__aicore__ inline void Compute()
	{
		LocalTensor<half> xLocal = inQueueX.DeQue<half>();
		LocalTensor<uint8_t> mLocal = inQueueMask.DeQue<uint8_t>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		LocalTensor<float> z = xBuf.Get<float>();
		LocalTensor<half> mh = maskHalfBuf.Get<half>();
		LocalTensor<float> m = maskBuf.Get<float>();
		LocalTensor<float> t = tmpBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = reduceBuf.Get<float>();
		uint32_t n = colNum;

		Cast(z, xLocal, RoundMode::CAST_NONE, n);
		PipeBarrier<PIPE_V>();
		Muls(z, z, scale, n);
		Cast(mh, mLocal, RoundMode::CAST_NONE, n);
		PipeBarrier<PIPE_V>();
		Cast(m, mh, RoundMode::CAST_NONE, n);
		PipeBarrier<PIPE_V>();
		Mins(m, m, 1.0f, n);
		PipeBarrier<PIPE_V>();
		Muls(t, m, -1.0f, n);
		PipeBarrier<PIPE_V>();
		Adds(t, t, 1.0f, n);
		PipeBarrier<PIPE_V>();
		Mul(z, z, t, n);
		Muls(m, m, MASK_FILL, n);
		PipeBarrier<PIPE_V>();
		Add(z, z, m, n);
		PipeBarrier<PIPE_V>();

		ReduceMax(red, z, work, n);
		PipeBarrier<PIPE_ALL>();
		float rowMax = red.GetValue(0);
		Adds(z, z, -rowMax, n);
		PipeBarrier<PIPE_V>();
		Exp(z, z, n);
		PipeBarrier<PIPE_V>();
		ReduceSum(red, z, work, n);
		PipeBarrier<PIPE_ALL>();
		float rowSum = red.GetValue(0);
		Muls(z, z, 1.0f / rowSum, n);
		PipeBarrier<PIPE_V>();
		Cast(yLocal, z, RoundMode::CAST_RINT, n);

		outQueueY.EnQue<half>(yLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueMask.FreeTensor(mLocal);
	}

	__aicore__ inline void CopyOut(uint32_t r)
	{
		LocalTensor<half> yLocal = outQueueY.DeQue<half>();
		DataCopyPad(yGm[(uint64_t)r * colNum], yLocal, DataCopyExtParams(1, colNum * sizeof(half), 0, 0, 0));
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueMask;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> xBuf, maskHalfBuf, maskBuf, tmpBuf, workBuf, reduceBuf;
	GlobalTensor<half> xGm, yGm;
	GlobalTensor<uint8_t> maskGm;
	uint32_t colNum = 0, headNum = 0, seqNum = 0, maskBatch = 0;
	uint32_t rowStart = 0, rowCount = 0;
	float scale = 1.0f;
};

extern "C" __global__ __aicore__ void scaled_masked_softmax(GM_ADDR x, GM_ADDR mask, GM_ADDR y, GM_ADDR workspace,
							    GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelScaledMaskedSoftmax op;
	op.Init(x, mask, y, tilingData);
	op.Process();
}
