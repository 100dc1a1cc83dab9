// SPDX-License-Identifier: MIT
//
// Kernel of select_bytes.  Per row of 256 halves it writes seven results:
//   0 Compare into an int8_t mask, then Select mode 2 in the mask/repeat form
//     (continuous mask, 2 repeats): x < y ? x : y
//   1 Select mode 1 with a bit-wise mask of the even lanes over a
//     Duplicate(7): even lanes x < y ? x : 0, odd lanes keep 7
//   2 SelectWithBytesMask: c == 0 ? x : -2
//   3 the whole-tensor operators: t = x * y, then t + x
//   4 m = x < y into a uint8_t tensor, then the count-form Select: x < y ? y : x
//   5 x * 100 rounded to int32 (CAST_RINT), back to half through SetDeqScale(1)
//   6 Compare in the mask/repeat form (the mask has no effect on Atlas A2)
//     with src1's repeat stride 0: x[i] < y[i % 128] ? x[i] : 0
// The input queues are declared with a TQueConfig that fixes their two buffers.
#include "kernel_operator.h"

using namespace AscendC;

constexpr TQueConfig IN_CFG = {false, false, false, 0, 2, 0, {}, false, false};

class KernelSelectBytes {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR c, GM_ADDR z, uint32_t rows, uint32_t rowsPerCore)
	{
		uint32_t row0 = rowsPerCore * (uint32_t)GetBlockIdx();
		nrows = rows - row0 < rowsPerCore ? rows - row0 : rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ half *)x + row0 * 256, nrows * 256);
		yGm.SetGlobalBuffer((__gm__ half *)y + row0 * 256, nrows * 256);
		cGm.SetGlobalBuffer((__gm__ uint8_t *)c + row0 * 256, nrows * 256);
		zGm.SetGlobalBuffer((__gm__ half *)z + row0 * 7 * 256, nrows * 7 * 256);
		pipe.InitBuffer(xQueue, 2, 256 * sizeof(half));
		pipe.InitBuffer(yQueue, 2, 256 * sizeof(half));
		pipe.InitBuffer(cQueue, 2, 256);
		pipe.InitBuffer(zQueue, 2, 7 * 256 * sizeof(half));
		pipe.InitBuffer(maskBuf, 256);
		pipe.InitBuffer(tmpBuf, 1024);
		pipe.InitBuffer(intBuf, 256 * sizeof(int32_t));
		pipe.InitBuffer(prodBuf, 256 * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < nrows; r++) {
			LocalTensor<half> x = xQueue.AllocTensor<half>();
			LocalTensor<half> y = yQueue.AllocTensor<half>();
			LocalTensor<uint8_t> c = cQueue.AllocTensor<uint8_t>();
			DataCopy(x, xGm[r * 256], 256);
			DataCopy(y, yGm[r * 256], 256);
			DataCopy(c, cGm[r * 256], 256);
			xQueue.EnQue(x);
			yQueue.EnQue(y);
			cQueue.EnQue(c);
			x = xQueue.DeQue<half>();
			y = yQueue.DeQue<half>();
			c = cQueue.DeQue<uint8_t>();
			LocalTensor<half> z = zQueue.AllocTensor<half>();
			Compute(x, y, c, z);
			zQueue.EnQue(z);
			xQueue.FreeTensor(x);
			yQueue.FreeTensor(y);
			cQueue.FreeTensor(c);
			z = zQueue.DeQue<half>();
			DataCopy(zGm[r * 7 * 256], z, 7 * 256);
			zQueue.FreeTensor(z);
		}
	}

private:
	__aicore__ inline void Compute(const LocalTensor<half> &x, const LocalTensor<half> &y, const LocalTensor<uint8_t> &c,
				       const LocalTensor<half> &z)
	{
		LocalTensor<int8_t> m8 = maskBuf.Get<int8_t>();
		BinaryRepeatParams dense(1, 1, 1, 8, 8, 8);
		Compare(m8, x, y, CMPMODE::LT, 256);
		Select(z, m8.ReinterpretCast<uint8_t>(), x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, 128, 2, dense);

		LocalTensor<half> z1 = z[256];
		Duplicate(z1, (half)7.0f, 256);
		uint64_t even[2] = {0x5555555555555555ULL, 0x5555555555555555ULL};
		Select(z1, m8.ReinterpretCast<uint8_t>(), x, (half)0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, even, 2, dense);

		SelectWithBytesMaskShapeInfo info;
		info.firstAxis = 1;
		info.srcLastAxis = 256;
		info.maskLastAxis = 256;
		LocalTensor<half> z2 = z[512];
		SelectWithBytesMask(z2, x, (half)-2.0f, c, tmpBuf.Get<uint8_t>(), info);

		LocalTensor<half> t = prodBuf.Get<half>();
		t = x * y;
		LocalTensor<half> z3 = z[768];
		z3.SetSize(256);
		z3 = t + x;

		LocalTensor<uint8_t> m = maskBuf.Get<uint8_t>();
		m = x < y;
		Select(z[1024], m, y, x, SELMODE::VSEL_TENSOR_TENSOR_MODE, 256);

		LocalTensor<int32_t> n = intBuf.Get<int32_t>();
		LocalTensor<half> scaled = prodBuf.Get<half>();
		Muls(scaled, x, (half)100.0f, 256);
		Cast(n, scaled, RoundMode::CAST_RINT, 256);
		SetDeqScale((half)1.0f);
		Cast(z[1280], n, RoundMode::CAST_NONE, 256);

		Compare(m8, x, y, CMPMODE::LT, (uint64_t)1, 2, BinaryRepeatParams(1, 1, 1, 8, 8, 0));
		Select(z[1536], m8.ReinterpretCast<uint8_t>(), x, (half)0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 256);
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, 2, &IN_CFG> xQueue, yQueue, cQueue;
	TQue<QuePosition::VECOUT, 2> zQueue;
	TBuf<QuePosition::VECCALC> maskBuf, tmpBuf, intBuf, prodBuf;
	GlobalTensor<half> xGm, yGm, zGm;
	GlobalTensor<uint8_t> cGm;
	uint32_t nrows;
};

extern "C" __global__ __aicore__ void select_bytes(GM_ADDR x, GM_ADDR y, GM_ADDR c, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelSelectBytes op;
	op.Init(x, y, c, z, tilingData.rows, tilingData.rowsPerCore);
	op.Process();
}
