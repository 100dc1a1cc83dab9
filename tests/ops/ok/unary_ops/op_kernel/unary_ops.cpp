// SPDX-License-Identifier: MIT
//
// Kernel of unary_ops: Exp, Ln, Sqrt, Rsqrt, Reciprocal and Abs of a float tensor, one output each.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelUnaryOps {
public:
	__aicore__ inline KernelUnaryOps() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR e, GM_ADDR l, GM_ADDR s, GM_ADDR r, GM_ADDR c, GM_ADDR a, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		eGm.SetGlobalBuffer((__gm__ float *)e + start, this->length);
		pipe.InitBuffer(eQueue, BUFFER_NUM, tileLength * sizeof(float));
		lGm.SetGlobalBuffer((__gm__ float *)l + start, this->length);
		pipe.InitBuffer(lQueue, BUFFER_NUM, tileLength * sizeof(float));
		sGm.SetGlobalBuffer((__gm__ float *)s + start, this->length);
		pipe.InitBuffer(sQueue, BUFFER_NUM, tileLength * sizeof(float));
		rGm.SetGlobalBuffer((__gm__ float *)r + start, this->length);
		pipe.InitBuffer(rQueue, BUFFER_NUM, tileLength * sizeof(float));
		cGm.SetGlobalBuffer((__gm__ float *)c + start, this->length);
		pipe.InitBuffer(cQueue, BUFFER_NUM, tileLength * sizeof(float));
		aGm.SetGlobalBuffer((__gm__ float *)a + start, this->length);
		pipe.InitBuffer(aQueue, BUFFER_NUM, tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * this->tileLength;
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, n);
			Compute(n);
			CopyOut(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.AllocTensor<float>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.DeQue<float>();
		LocalTensor<float> eLocal = eQueue.AllocTensor<float>();
		LocalTensor<float> lLocal = lQueue.AllocTensor<float>();
		LocalTensor<float> sLocal = sQueue.AllocTensor<float>();
		LocalTensor<float> rLocal = rQueue.AllocTensor<float>();
		LocalTensor<float> cLocal = cQueue.AllocTensor<float>();
		LocalTensor<float> aLocal = aQueue.AllocTensor<float>();
		Exp(eLocal, xLocal, n);
		Ln(lLocal, xLocal, n);
		Sqrt(sLocal, xLocal, n);
		Rsqrt(rLocal, xLocal, n);
		Reciprocal(cLocal, xLocal, n);
		Adds(aLocal, xLocal, -2.0f, n);
		Abs(aLocal, aLocal, n);
		eQueue.EnQue(eLocal);
		lQueue.EnQue(lLocal);
		sQueue.EnQue(sLocal);
		rQueue.EnQue(rLocal);
		cQueue.EnQue(cLocal);
		aQueue.EnQue(aLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> eLocal = eQueue.DeQue<float>();
		DataCopyPad(eGm[offset], eLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		eQueue.FreeTensor(eLocal);
		LocalTensor<float> lLocal = lQueue.DeQue<float>();
		DataCopyPad(lGm[offset], lLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		lQueue.FreeTensor(lLocal);
		LocalTensor<float> sLocal = sQueue.DeQue<float>();
		DataCopyPad(sGm[offset], sLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		sQueue.FreeTensor(sLocal);
		LocalTensor<float> rLocal = rQueue.DeQue<float>();
		DataCopyPad(rGm[offset], rLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		rQueue.FreeTensor(rLocal);
		LocalTensor<float> cLocal = cQueue.DeQue<float>();
		DataCopyPad(cGm[offset], cLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		cQueue.FreeTensor(cLocal);
		LocalTensor<float> aLocal = aQueue.DeQue<float>();
		DataCopyPad(aGm[offset], aLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		aQueue.FreeTensor(aLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<float> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> eQueue;
	GlobalTensor<float> eGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> lQueue;
	GlobalTensor<float> lGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> sQueue;
	GlobalTensor<float> sGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> rQueue;
	GlobalTensor<float> rGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> cQueue;
	GlobalTensor<float> cGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> aQueue;
	GlobalTensor<float> aGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void unary_ops(GM_ADDR x, GM_ADDR e, GM_ADDR l, GM_ADDR s, GM_ADDR r, GM_ADDR c, GM_ADDR a, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelUnaryOps op;
	op.Init(x, e, l, s, r, c, a, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
