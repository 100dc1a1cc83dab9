// SPDX-License-Identifier: MIT
//
// Kernel of libmath_power_int: y[3, n] = x ^ e, x ^ 3 and 2 ^ e on int32_t,
// each Power with a sharedTmpBuffer of exactly its minimum, so that it
// works in passes of 64 elements.
#include "kernel_operator.h"
#include "lib/math/kernel_operator_power_intf.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelLibmathPowerInt {
public:
	__aicore__ inline KernelLibmathPowerInt() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR e, GM_ADDR y, uint32_t total, uint32_t blockLength,
				    uint32_t tileLength, uint32_t tensorTmpBytes, uint32_t scalarTmpBytes)
	{
		this->start = blockLength * (uint32_t)GetBlockIdx();
		this->total = total;
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		this->tensorTmpBytes = tensorTmpBytes;
		xGm.SetGlobalBuffer((__gm__ int32_t *)x + start, this->length);
		eGm.SetGlobalBuffer((__gm__ int32_t *)e + start, this->length);
		yGm.SetGlobalBuffer((__gm__ int32_t *)y, 3ull * total);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		pipe.InitBuffer(eQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		pipe.InitBuffer(tmpBuf, scalarTmpBytes);
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * this->tileLength;
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			LocalTensor<int32_t> xLocal = xQueue.AllocTensor<int32_t>();
			LocalTensor<int32_t> eLocal = eQueue.AllocTensor<int32_t>();
			DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0),
				    DataCopyPadExtParams<int32_t>(false, 0, 0, 0));
			DataCopyPad(eLocal, eGm[offset], DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0),
				    DataCopyPadExtParams<int32_t>(false, 0, 0, 0));
			xQueue.EnQue(xLocal);
			eQueue.EnQue(eLocal);
			Compute(offset, n);
		}
	}

private:
	__aicore__ inline void Compute(uint32_t offset, uint32_t n)
	{
		LocalTensor<int32_t> xLocal = xQueue.DeQue<int32_t>();
		LocalTensor<int32_t> eLocal = eQueue.DeQue<int32_t>();
		LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
		LocalTensor<uint8_t> tensorTmp = tmp;
		tensorTmp.SetSize(tensorTmpBytes);
		for (uint32_t k = 0; k < 3; k++) {
			LocalTensor<int32_t> yLocal = yQueue.AllocTensor<int32_t>();
			if (k == 0)
				Power(yLocal, xLocal, eLocal, tensorTmp, n);
			else if (k == 1)
				Power<int32_t, false>(yLocal, xLocal, 3, tmp, n);
			else
				Power(yLocal, 2, eLocal, tmp, n);
			yQueue.EnQue(yLocal);
			yLocal = yQueue.DeQue<int32_t>();
			DataCopyPad(yGm[(uint64_t)k * total + start + offset], yLocal,
				    DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0));
			yQueue.FreeTensor(yLocal);
		}
		xQueue.FreeTensor(xLocal);
		eQueue.FreeTensor(eLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue, eQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	TBuf<QuePosition::VECCALC> tmpBuf;
	GlobalTensor<int32_t> xGm, eGm, yGm;
	uint32_t start, total, length, tileLength, tensorTmpBytes;
};

extern "C" __global__ __aicore__ void libmath_power_int(GM_ADDR x, GM_ADDR e, GM_ADDR y, GM_ADDR workspace,
							GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelLibmathPowerInt op;
	op.Init(x, e, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength,
		tilingData.tensorTmpBytes, tilingData.scalarTmpBytes);
	op.Process();
}
