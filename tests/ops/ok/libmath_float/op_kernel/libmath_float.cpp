// SPDX-License-Identifier: MIT
//
// Kernel of libmath_float: row k of y[26, n] is library math API k on float,
// through every form the APIs have: with and without a sharedTmpBuffer
// (which is only the APIs' minimum, so they work in passes), with and
// without calCount (the whole-tensor forms work on the tile's capacity),
// the library Exp with 15, 0 and 3 Taylor terms, and Sin with isReuseSource
// on the smaller reuse minimum, last, since it may overwrite x.
#include "kernel_operator.h"
#include "lib/math/kernel_operator_sin_intf.h"
#include "lib/math/kernel_operator_erf_intf.h"
#include "lib/math/kernel_operator_power_intf.h"
#include "lib/sigmoid/kernel_operator_sigmoid_intf.h"
#include "lib/math/kernel_operator_exp_intf.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t ROWS = 26;

class KernelLibmathFloat {
public:
	__aicore__ inline KernelLibmathFloat() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR p, GM_ADDR y, uint32_t total, uint32_t blockLength,
				    uint32_t tileLength, uint32_t tmpBytes)
	{
		this->start = blockLength * (uint32_t)GetBlockIdx();
		this->total = total;
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		pGm.SetGlobalBuffer((__gm__ float *)p + start, this->length);
		yGm.SetGlobalBuffer((__gm__ float *)y, (uint64_t)ROWS * total);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(pQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(qBuf, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf, tmpBytes);
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * this->tileLength;
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, n);
			Compute(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.AllocTensor<float>();
		LocalTensor<float> pLocal = pQueue.AllocTensor<float>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		DataCopyPad(pLocal, pGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
		pQueue.EnQue(pLocal);
	}

	__aicore__ inline void Row(uint32_t k, const LocalTensor<float> &y, const LocalTensor<float> &x,
				   const LocalTensor<float> &p, const LocalTensor<float> &q,
				   const LocalTensor<uint8_t> &tmp, uint32_t n)
	{
		switch (k) {
		case 0: Sin(y, x, n); break;
		case 1: Cos(y, x, tmp, n); break;
		case 2: Tan(y, x, tmp); break;
		case 3: Asin(y, x); break;
		case 4: Acos<float, false>(y, x, n); break;
		case 5: Atan(y, x, tmp, n); break;
		case 6: Sinh(y, x, n); break;
		case 7: Cosh(y, x, tmp, n); break;
		case 8: Tanh(y, x, n); break;
		case 9: Erf(y, x, tmp, n); break;
		case 10: Erfc(y, x, n); break;
		case 11: Sign(y, x, n); break;
		case 12: Floor(y, q, n); break;
		case 13: Ceil(y, q, tmp, n); break;
		case 14: Trunc(y, q, n); break;
		case 15: Log(y, p, n); break;
		case 16: Log2(y, p, tmp, n); break;
		case 17: Log10(y, p); break;
		case 18: Power(y, p, x, tmp, n); break;
		case 19: Power<float, false>(y, p, 2.5f, n); break;
		case 20: Power(y, 2.0f, x, n); break;
		case 21: Sigmoid(y, x, tmp, n); break;
		case 22: Exp<float, 15, false>(y, p, tmp, n); break;
		case 23: Exp<float, 0>(y, x, n); break;
		case 24: Exp<float, 3>(y, q, n); break;
		default: {
			LocalTensor<uint8_t> small = tmp;
			small.SetSize(512);
			Sin<float, true>(y, x, small, n);
			break;
		}
		}
	}

	__aicore__ inline void Compute(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.DeQue<float>();
		LocalTensor<float> pLocal = pQueue.DeQue<float>();
		LocalTensor<float> q = qBuf.Get<float>();
		LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
		Adds(q, pLocal, -4.0f, n);
		for (uint32_t k = 0; k < ROWS; k++) {
			LocalTensor<float> yLocal = yQueue.AllocTensor<float>();
			Row(k, yLocal, xLocal, pLocal, q, tmp, n);
			yQueue.EnQue(yLocal);
			yLocal = yQueue.DeQue<float>();
			DataCopyPad(yGm[(uint64_t)k * total + start + offset], yLocal,
				    DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
			yQueue.FreeTensor(yLocal);
		}
		xQueue.FreeTensor(xLocal);
		pQueue.FreeTensor(pLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue, pQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	TBuf<QuePosition::VECCALC> qBuf, tmpBuf;
	GlobalTensor<float> xGm, pGm, yGm;
	uint32_t start, total, length, tileLength;
};

extern "C" __global__ __aicore__ void libmath_float(GM_ADDR x, GM_ADDR p, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelLibmathFloat op;
	op.Init(x, p, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength, tilingData.tmpBytes);
	op.Process();
}
