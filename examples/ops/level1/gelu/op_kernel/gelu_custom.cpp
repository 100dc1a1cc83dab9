// SPDX-License-Identifier: MIT
//
// Kernel of GeluCustom (tanh form).  With 0.5 (1 + tanh(u)) = 1 / (1 + e^-2u)
// the kernel computes, in float32,
//   y = x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3)))
// as a chain of basic vector instructions, one PIPE_V barrier after each,
// with two float scratch buffers.  The tile length and the number of buffers
// per queue come from the tiling (the host's TILE_NUM and BUFFER_NUM; one
// buffer by default), and every copy goes through DataCopyPad.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;
constexpr float GELU_COEFF = 0.044715f;
constexpr float NEG_TWO_SQRT_2_OVER_PI = -1.5957691216057308f;

class KernelGelu {
public:
	__aicore__ inline KernelGelu() {}
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
		pipe.InitBuffer(xFloatBuf, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
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
		LocalTensor<float> xf = xFloatBuf.Get<float>();
		LocalTensor<float> t = tmpBuf.Get<float>();

		Cast(xf, xLocal, RoundMode::CAST_NONE, count);
		PipeBarrier<PIPE_V>();
		Mul(t, xf, xf, count);
		PipeBarrier<PIPE_V>();
		Mul(t, t, xf, count);
		PipeBarrier<PIPE_V>();
		Muls(t, t, GELU_COEFF, count);
		PipeBarrier<PIPE_V>();
		Add(t, t, xf, count);
		PipeBarrier<PIPE_V>();
		Muls(t, t, NEG_TWO_SQRT_2_OVER_PI, count);
		PipeBarrier<PIPE_V>();
		Exp(t, t, count);
		PipeBarrier<PIPE_V>();
		Adds(t, t, 1.0f, count);
		PipeBarrier<PIPE_V>();
		Div(t, xf, t, count);
		PipeBarrier<PIPE_V>();
		Cast(yLocal, t, RoundMode::CAST_RINT, count);

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
	TBuf<QuePosition::VECCALC> xFloatBuf, tmpBuf;
	GlobalTensor<half> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelGelu op;
	op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
		tilingData.bufferNum);
	op.Process();
}
