// SPDX-License-Identifier: MIT
//
// Kernel of scalar_cast_ceil: element by element with GetValue/SetValue,
// h = ScalarCast<float, half, CAST_ODD>(j odd ? x : x * 1e-9f) and
// i = ScalarCast<float, int32_t, MODE>(k * 0.25f) with MODE cycling through
// CAST_ROUND, CAST_CEIL, CAST_FLOOR and CAST_RINT by element index.  The
// tile count comes from AscendC::Ceil, the tile length is aligned down to
// GetDataBlockSizeInBytes().
#include "kernel_operator.h"

using namespace AscendC;

static_assert(GetDataBlockSizeInBytes() == 32, "a data block is 32 bytes on Atlas A2");

class KernelScalarCastCeil {
public:
	__aicore__ inline KernelScalarCastCeil() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR k, GM_ADDR h, GM_ADDR i, uint32_t total, uint32_t tileLength)
	{
		constexpr uint32_t blockElems = GetDataBlockSizeInBytes() / sizeof(float);
		this->total = total;
		this->tile = tileLength / blockElems * blockElems;
		xGm.SetGlobalBuffer((__gm__ float *)x, total);
		kGm.SetGlobalBuffer((__gm__ int32_t *)k, total);
		hGm.SetGlobalBuffer((__gm__ half *)h, total);
		iGm.SetGlobalBuffer((__gm__ int32_t *)i, total);
		pipe.InitBuffer(xQueue, 1, this->tile * sizeof(float));
		pipe.InitBuffer(kQueue, 1, this->tile * sizeof(int32_t));
		pipe.InitBuffer(hQueue, 1, this->tile * sizeof(half));
		pipe.InitBuffer(iQueue, 1, this->tile * sizeof(int32_t));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = Ceil(total, tile);
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * tile;
			uint32_t n = total - offset < tile ? total - offset : tile;
			CopyIn(offset, n);
			Compute(offset, n);
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
		LocalTensor<int32_t> kLocal = kQueue.AllocTensor<int32_t>();
		DataCopyPad(kLocal, kGm[offset], DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0),
			    DataCopyPadExtParams<int32_t>(false, 0, 0, 0));
		kQueue.EnQue(kLocal);
	}

	__aicore__ inline int32_t ToInt(float v, uint32_t j)
	{
		switch (j % 4) {
		case 0: return ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(v);
		case 1: return ScalarCast<float, int32_t, RoundMode::CAST_CEIL>(v);
		case 2: return ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(v);
		default: return ScalarCast<float, int32_t, RoundMode::CAST_RINT>(v);
		}
	}

	__aicore__ inline void Compute(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.DeQue<float>();
		LocalTensor<int32_t> kLocal = kQueue.DeQue<int32_t>();
		LocalTensor<half> hLocal = hQueue.AllocTensor<half>();
		LocalTensor<int32_t> iLocal = iQueue.AllocTensor<int32_t>();
		for (uint32_t e = 0; e < n; e++) {
			uint32_t j = offset + e;
			float v = xLocal.GetValue(e);
			if (j % 2 == 0)
				v = v * 1e-9f;
			hLocal.SetValue(e, ScalarCast<float, half, RoundMode::CAST_ODD>(v));
			iLocal.SetValue(e, ToInt((float)kLocal.GetValue(e) * 0.25f, j));
		}
		hQueue.EnQue(hLocal);
		iQueue.EnQue(iLocal);
		xQueue.FreeTensor(xLocal);
		kQueue.FreeTensor(kLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> hLocal = hQueue.DeQue<half>();
		DataCopyPad(hGm[offset], hLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		hQueue.FreeTensor(hLocal);
		LocalTensor<int32_t> iLocal = iQueue.DeQue<int32_t>();
		DataCopyPad(iGm[offset], iLocal, DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0));
		iQueue.FreeTensor(iLocal);
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, 1> xQueue, kQueue;
	TQue<QuePosition::VECOUT, 1> hQueue, iQueue;
	GlobalTensor<float> xGm;
	GlobalTensor<int32_t> kGm;
	GlobalTensor<half> hGm;
	GlobalTensor<int32_t> iGm;
	uint32_t total;
	uint32_t tile;
};

extern "C" __global__ __aicore__ void scalar_cast_ceil(GM_ADDR x, GM_ADDR k, GM_ADDR h, GM_ADDR i, GM_ADDR workspace,
							GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelScalarCastCeil op;
	op.Init(x, k, h, i, tilingData.totalLength, tilingData.tileLength);
	op.Process();
}
