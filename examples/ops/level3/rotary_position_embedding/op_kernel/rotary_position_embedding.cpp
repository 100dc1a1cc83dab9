// SPDX-License-Identifier: MIT
//
// Kernel of rotary_position_embedding, rotate-half form.  With x = [x1, x2]
// and the tables split the same way,
//   y1 = x1 * cos1 - x2 * sin1
//   y2 = x2 * cos2 + x1 * sin2
// Each core walks its tokens one at a time: the x1 and x2 halves of all the
// token's heads come in as two strided DataCopyPad copies (one row per head),
// the token's cos and sin rows as one copy each, everything is widened to
// float, and the rotation runs head by head.  The entry is a template over
// the element type.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

template <typename T> class KernelRotaryPositionEmbedding {
public:
	__aicore__ inline KernelRotaryPositionEmbedding() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y,
				    const RotaryPositionEmbeddingTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		headNum = tiling.headNum;
		headDim = tiling.headDim;
		halfDim = headDim / 2;
		pitch = tiling.halfDimAligned;
		tokenStart = coreIdx * tiling.tokensPerCore;
		tokenCount = (coreIdx == GetBlockNum() - 1) ? tiling.lastCoreTokens : tiling.tokensPerCore;
		uint64_t tokenElems = (uint64_t)headNum * headDim;
		xGm.SetGlobalBuffer((__gm__ T *)x + tokenStart * tokenElems, tokenCount * tokenElems);
		yGm.SetGlobalBuffer((__gm__ T *)y + tokenStart * tokenElems, tokenCount * tokenElems);
		cosGm.SetGlobalBuffer((__gm__ T *)cos + (uint64_t)tokenStart * headDim, (uint64_t)tokenCount * headDim);
		sinGm.SetGlobalBuffer((__gm__ T *)sin + (uint64_t)tokenStart * headDim, (uint64_t)tokenCount * headDim);
		uint32_t rows = headNum * pitch;
		pipe.InitBuffer(inQueueX1, BUFFER_NUM, rows * sizeof(T));
		pipe.InitBuffer(inQueueX2, BUFFER_NUM, rows * sizeof(T));
		pipe.InitBuffer(inQueueCos, BUFFER_NUM, 2 * pitch * sizeof(T));
		pipe.InitBuffer(inQueueSin, BUFFER_NUM, 2 * pitch * sizeof(T));
		pipe.InitBuffer(outQueueY1, BUFFER_NUM, rows * sizeof(T));
		pipe.InitBuffer(outQueueY2, BUFFER_NUM, rows * sizeof(T));
		pipe.InitBuffer(x1Buf, rows * sizeof(float));
		pipe.InitBuffer(x2Buf, rows * sizeof(float));
		pipe.InitBuffer(y1Buf, rows * sizeof(float));
		pipe.InitBuffer(y2Buf, rows * sizeof(float));
		pipe.InitBuffer(cosBuf, 2 * pitch * sizeof(float));
		pipe.InitBuffer(sinBuf, 2 * pitch * sizeof(float));
		pipe.InitBuffer(tmpBuf, 2 * pitch * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t t = 0; t < tokenCount; t++) {
			CopyIn(t);
			Compute();
			CopyOut(t);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t t)
	{
		LocalTensor<T> x1 = inQueueX1.AllocTensor<T>();
		LocalTensor<T> x2 = inQueueX2.AllocTensor<T>();
		LocalTensor<T> c = inQueueCos.AllocTensor<T>();
		LocalTensor<T> s = inQueueSin.AllocTensor<T>();
		uint64_t base = (uint64_t)t * headNum * headDim;
		DataCopyPadExtParams<T> pad(false, 0, 0, 0);
		DataCopyExtParams heads(headNum, halfDim * sizeof(T), halfDim * sizeof(T), 0, 0);
		DataCopyPad(x1, xGm[base], heads, pad);
		DataCopyPad(x2, xGm[base + halfDim], heads, pad);
		DataCopyExtParams table(2, halfDim * sizeof(T), 0, 0, 0);
		DataCopyPad(c, cosGm[(uint64_t)t * headDim], table, pad);
		DataCopyPad(s, sinGm[(uint64_t)t * headDim], table, pad);
		inQueueX1.EnQue(x1);
		inQueueX2.EnQue(x2);
		inQueueCos.EnQue(c);
		inQueueSin.EnQue(s);
	}

	__aicore__ inline void Widen(const LocalTensor<float> &dst, const LocalTensor<T> &src, uint32_t n)
	{
		if constexpr (std::is_same<T, float>::value)
			Adds(dst, src, 0.0f, n);
		else
			Cast(dst, src, RoundMode::CAST_NONE, n);
	}

	__aicore__ inline void Narrow(const LocalTensor<T> &dst, const LocalTensor<float> &src, uint32_t n)
	{
		if constexpr (std::is_same<T, float>::value)
			Adds(dst, src, 0.0f, n);
		else
			Cast(dst, src, RoundMode::CAST_RINT, n);
	}

	__aicore__ inline void Compute()
	{
		LocalTensor<T> x1 = inQueueX1.DeQue<T>();
		LocalTensor<T> x2 = inQueueX2.DeQue<T>();
		LocalTensor<T> c = inQueueCos.DeQue<T>();
		LocalTensor<T> s = inQueueSin.DeQue<T>();
		LocalTensor<T> y1 = outQueueY1.AllocTensor<T>();
		LocalTensor<T> y2 = outQueueY2.AllocTensor<T>();
		LocalTensor<float> x1f = x1Buf.Get<float>();
		LocalTensor<float> x2f = x2Buf.Get<float>();
		LocalTensor<float> y1f = y1Buf.Get<float>();
		LocalTensor<float> y2f = y2Buf.Get<float>();
		LocalTensor<float> cf = cosBuf.Get<float>();
		LocalTensor<float> sf = sinBuf.Get<float>();
		LocalTensor<float> a = tmpBuf.Get<float>();
		LocalTensor<float> b = a[pitch];
		uint32_t rows = headNum * pitch;
		Widen(x1f, x1, rows);
		Widen(x2f, x2, rows);
		Widen(cf, c, 2 * pitch);
		Widen(sf, s, 2 * pitch);
		PipeBarrier<PIPE_V>();
		for (uint32_t h = 0; h < headNum; h++) {
			uint32_t off = h * pitch;
			// y1 = x1 * cos1 - x2 * sin1
			Mul(a, x1f[off], cf, halfDim);
			Mul(b, x2f[off], sf, halfDim);
			PipeBarrier<PIPE_V>();
			Sub(y1f[off], a, b, halfDim);
			PipeBarrier<PIPE_V>();
			// y2 = x2 * cos2 + x1 * sin2
			Mul(a, x2f[off], cf[pitch], halfDim);
			Mul(b, x1f[off], sf[pitch], halfDim);
			PipeBarrier<PIPE_V>();
			Add(y2f[off], a, b, halfDim);
			PipeBarrier<PIPE_V>();
		}
		Narrow(y1, y1f, rows);
		Narrow(y2, y2f, rows);
		outQueueY1.EnQue(y1);
		outQueueY2.EnQue(y2);
		inQueueX1.FreeTensor(x1);
		inQueueX2.FreeTensor(x2);
		inQueueCos.FreeTensor(c);
		inQueueSin.FreeTensor(s);
	}

	__aicore__ inline void CopyOut(uint32_t t)
	{
		LocalTensor<T> y1 = outQueueY1.DeQue<T>();
		LocalTensor<T> y2 = outQueueY2.DeQue<T>();
		uint64_t base = (uint64_t)t * headNum * headDim;
		DataCopyExtParams heads(headNum, halfDim * sizeof(T), 0, halfDim * sizeof(T), 0);
		DataCopyPad(yGm[base], y1, heads);
		DataCopyPad(yGm[base + halfDim], y2, heads);
		outQueueY1.FreeTensor(y1);
		outQueueY2.FreeTensor(y2);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX1, inQueueX2, inQueueCos, inQueueSin;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY1, outQueueY2;
	TBuf<QuePosition::VECCALC> x1Buf, x2Buf, y1Buf, y2Buf, cosBuf, sinBuf, tmpBuf;
	GlobalTensor<T> xGm, cosGm, sinGm, yGm;
	uint32_t headNum = 0, headDim = 0, halfDim = 0, pitch = 0;
	uint32_t tokenStart = 0, tokenCount = 0;
};

template <typename T>
__global__ __aicore__ void rotary_position_embedding(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y, GM_ADDR workspace,
						     GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelRotaryPositionEmbedding<T> op;
	op.Init(x, cos, sin, y, tilingData);
	op.Process();
}
