// SPDX-License-Identifier: MIT
//
// Kernel of binary_repeat: z = min(max((x - y) * x / y, -4), 4) with Sub,
// Mul, Div, Max, Min in the mask/repeat form (continuous and bit masks), and
// w = x + y as two Adds over alternating 32-byte blocks (block stride 2,
// repeat stride 16).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelBinaryRepeat {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, uint32_t total, uint32_t blockLength,
				    uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		length = total - start < blockLength ? total - start : blockLength;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, length);
		zGm.SetGlobalBuffer((__gm__ float *)z + start, length);
		wGm.SetGlobalBuffer((__gm__ float *)w + start, length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(zQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(wQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(limBuf, tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t off = 0; off < length; off += tileLength) {
			uint32_t n = length - off < tileLength ? length - off : tileLength;
			LocalTensor<float> xl = xQueue.AllocTensor<float>();
			LocalTensor<float> yl = yQueue.AllocTensor<float>();
			DataCopy(xl, xGm[off], n);
			DataCopy(yl, yGm[off], n);
			xQueue.EnQue(xl);
			yQueue.EnQue(yl);
			Compute(n);
			LocalTensor<float> zl = zQueue.DeQue<float>();
			LocalTensor<float> wl = wQueue.DeQue<float>();
			DataCopy(zGm[off], zl, n);
			DataCopy(wGm[off], wl, n);
			zQueue.FreeTensor(zl);
			wQueue.FreeTensor(wl);
		}
	}

private:
	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> xl = xQueue.DeQue<float>();
		LocalTensor<float> yl = yQueue.DeQue<float>();
		LocalTensor<float> zl = zQueue.AllocTensor<float>();
		LocalTensor<float> wl = wQueue.AllocTensor<float>();
		LocalTensor<float> lim = limBuf.Get<float>();
		int32_t reps = (int32_t)(n / 64);
		BinaryRepeatParams p;
		Sub(zl, xl, yl, 64, reps, p);
		uint64_t bits[2] = {~0ULL, 0};
		Mul(zl, zl, xl, bits, reps, p);
		Div(zl, zl, yl, 64, reps, p);
		Duplicate(lim, -4.0f, 64, reps, 1, 8);
		Max(zl, zl, lim, 64, reps, p);
		Duplicate(lim, 4.0f, 64, reps, 1, 8);
		Min(zl, zl, lim, 64, reps, p);
		// Even blocks, then odd blocks: 8 blocks per repeat, 2 blocks apart.
		BinaryRepeatParams strided(2, 2, 2, 16, 16, 16);
		Add(wl, xl, yl, 64, reps / 2, strided);
		Add(wl[8], xl[8], yl[8], 64, reps / 2, strided);
		zQueue.EnQue(zl);
		wQueue.EnQue(wl);
		xQueue.FreeTensor(xl);
		yQueue.FreeTensor(yl);
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue, yQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> zQueue, wQueue;
	TBuf<QuePosition::VECCALC> limBuf;
	GlobalTensor<float> xGm, yGm, zGm, wGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void binary_repeat(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR workspace,
						    GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBinaryRepeat op;
	op.Init(x, y, z, w, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
