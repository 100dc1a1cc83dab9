// SPDX-License-Identifier: MIT
//
// Kernel of sigmoid_tanh: s = Sigmoid(x) and t = Tanh(x) on float.
#include "kernel_operator.h"
#include "sigmoid_tanh_tiling_data.h"

REGISTER_TILING_DEFAULT(SigmoidTanhTilingData);

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelSigmoidTanh {
public:
	__aicore__ inline KernelSigmoidTanh() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR s, GM_ADDR t, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		sGm.SetGlobalBuffer((__gm__ float *)s + start, this->length);
		pipe.InitBuffer(sQueue, BUFFER_NUM, tileLength * sizeof(float));
		tGm.SetGlobalBuffer((__gm__ float *)t + start, this->length);
		pipe.InitBuffer(tQueue, BUFFER_NUM, tileLength * sizeof(float));
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
		LocalTensor<float> sLocal = sQueue.AllocTensor<float>();
		LocalTensor<float> tLocal = tQueue.AllocTensor<float>();
		Sigmoid(sLocal, xLocal, n);
		Tanh(tLocal, xLocal, n);
		sQueue.EnQue(sLocal);
		tQueue.EnQue(tLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> sLocal = sQueue.DeQue<float>();
		DataCopyPad(sGm[offset], sLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		sQueue.FreeTensor(sLocal);
		LocalTensor<float> tLocal = tQueue.DeQue<float>();
		DataCopyPad(tGm[offset], tLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		tQueue.FreeTensor(tLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<float> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> sQueue;
	GlobalTensor<float> sGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> tQueue;
	GlobalTensor<float> tGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void sigmoid_tanh(GM_ADDR x, GM_ADDR s, GM_ADDR t, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelSigmoidTanh op;
	op.Init(x, s, t, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
