// SPDX-License-Identifier: MIT
//
// Kernel of ReciprocalCustom: y = 1 / x.  The half input is widened to
// float, divided into a tensor of ones and narrowed back, so the quotient
// is rounded once more than in float (the Reciprocal instruction is only
// an approximation).  The ones are refilled with Duplicate every tile.
// The tile length and the number of buffers per queue come from the tiling
// (the host's TILE_NUM and BUFFER_NUM; one buffer and 4 KB tiles on the
// bench case by default), and every copy goes through DataCopyPad.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelReciprocal {
public:
	__aicore__ inline KernelReciprocal() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t blockLength, uint32_t tileLength,
				    uint32_t bufferNum)
	{
		uint32_t start = blockLength * GetBlockIdx();
		this->length = totalLength - start < blockLength ? totalLength - start : blockLength;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ half *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ half *)y + start, this->length);
		pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));
		pipe.InitBuffer(outQueueY, bufferNum, tileLength * sizeof(half));
		pipe.InitBuffer(floatBuf, tileLength * sizeof(float));
		pipe.InitBuffer(onesBuf, tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		uint32_t loopCount = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < loopCount; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = i == loopCount - 1 ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
		DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(half)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<half> xLocal = inQueueX.DeQue<half>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		LocalTensor<float> xf = floatBuf.Get<float>();
		LocalTensor<float> ones = onesBuf.Get<float>();
		Cast(xf, xLocal, RoundMode::CAST_NONE, count);
		Duplicate(ones, 1.0f, count);
		PipeBarrier<PIPE_V>();
		Div(xf, ones, xf, count);
		PipeBarrier<PIPE_V>();
		Cast(yLocal, xf, RoundMode::CAST_RINT, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<half> yLocal = outQueueY.DeQue<half>();
		DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(half)), 0, 0, 0});
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> floatBuf, onesBuf;
	GlobalTensor<half> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void reciprocal_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelReciprocal op;
	op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
		tilingData.bufferNum);
	op.Process();
}
