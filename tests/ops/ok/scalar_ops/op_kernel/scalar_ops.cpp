// SPDX-License-Identifier: MIT
//
// Kernel of scalar_ops: z = min(max((x + 0.5) * 2, -1), 1.5) with Adds, Muls, Maxs and Mins (count form).
#include "kernel_operator.h"
#include "scalar_ops_tiling_data.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelScalarOps {
public:
	__aicore__ inline KernelScalarOps() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR z, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		zGm.SetGlobalBuffer((__gm__ float *)z + start, this->length);
		pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(float));
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
		LocalTensor<float> zLocal = zQueue.AllocTensor<float>();
		Adds(zLocal, xLocal, 0.5f, n);
		Muls(zLocal, zLocal, 2.0f, n);
		Maxs(zLocal, zLocal, -1.0f, n);
		Mins(zLocal, zLocal, 1.5f, n);
		zQueue.EnQue(zLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> zLocal = zQueue.DeQue<float>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		zQueue.FreeTensor(zLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<float> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue;
	GlobalTensor<float> zGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void scalar_ops(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	REGISTER_TILING_DEFAULT(ScalarOpsTilingData);
	GET_TILING_DATA_WITH_STRUCT(ScalarOpsTilingData, tilingData, tiling);
	KernelScalarOps op;
	op.Init(x, z, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
