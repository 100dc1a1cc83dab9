// SPDX-License-Identifier: MIT
//
// Hand-tuned kernel of sum_squares.  Core 0 clears y while the first tile
// is already on its way in; after one SyncAll every core streams its
// balanced chunk through a double-buffered queue (next tile prefetched,
// L2 bypassed), squares each tile into a scratch buffer and adds it into a
// vector accumulator, so the scalar unit never waits on the vector unit in
// the loop.  One ReduceSum at the end gives the core's partial, which lands
// in y with an atomic add.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t CHUNK_ELEMS = 128;

class KernelSumSquares {
public:
	__aicore__ inline KernelSumSquares() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SumSquaresTilingData &t, TPipe *pipe)
	{
		uint32_t blockIdx = GetBlockIdx();
		uint32_t startChunk;
		if (blockIdx < t.bigCoreNum) {
			startChunk = blockIdx * (t.smallCoreChunks + 1);
			length = (t.smallCoreChunks + 1) * CHUNK_ELEMS;
		} else {
			startChunk = blockIdx * t.smallCoreChunks + t.bigCoreNum;
			length = t.smallCoreChunks * CHUNK_ELEMS;
		}
		uint32_t start = startChunk * CHUNK_ELEMS;
		if (start + length > t.totalLength)
			length = t.totalLength - start;
		tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetGlobalBuffer((__gm__ float *)y, 1);
		pipe->InitBuffer(inQueue, BUFFER_NUM, tileLength * sizeof(float));
		pipe->InitBuffer(sqBuf, tileLength * sizeof(float));
		pipe->InitBuffer(accBuf, tileLength * sizeof(float));
		pipe->InitBuffer(workBuf, (tileLength / 64 + 8) * sizeof(float));
		pipe->InitBuffer(partBuf, 32);
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (length + tileLength - 1) / tileLength;
		if (tiles > 0)
			CopyIn(0);
		if (GetBlockIdx() == 0)
			InitGlobalMemory(yGm, 1, 0.0f);
		SyncAll();
		if (tiles == 0)
			return;
		LocalTensor<float> acc = accBuf.Get<float>();
		LocalTensor<float> sq = sqBuf.Get<float>();
		Duplicate(acc, 0.0f, tileLength);
		for (uint32_t i = 0; i < tiles; i++) {
			if (i + 1 < tiles)
				CopyIn(i + 1);
			uint32_t n = CountOf(i);
			LocalTensor<float> xLocal = inQueue.DeQue<float>();
			Mul(sq, xLocal, xLocal, n);
			Add(acc, sq, acc, n);
			inQueue.FreeTensor(xLocal);
		}
		LocalTensor<float> part = partBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		uint32_t used = length < tileLength ? length : tileLength;
		ReduceSum(part, acc, work, used);
		SetAtomicAdd<float>();
		DataCopyExtParams outParams{1, sizeof(float), 0, 0, 0};
		DataCopyPad(yGm, part, outParams);
		SetAtomicNone();
	}

private:
	__aicore__ inline uint32_t CountOf(uint32_t i) const
	{
		uint32_t left = length - i * tileLength;
		return left < tileLength ? left : tileLength;
	}

	__aicore__ inline void CopyIn(uint32_t i)
	{
		uint32_t n = CountOf(i);
		LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
		if (n % 8 == 0) {
			DataCopy(xLocal, xGm[i * tileLength], n);
		} else {
			DataCopyExtParams params{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
			DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
			DataCopyPad(xLocal, xGm[i * tileLength], params, pad);
		}
		inQueue.EnQue(xLocal);
	}

	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TBuf<QuePosition::VECCALC> sqBuf, accBuf, workBuf, partBuf;
	GlobalTensor<float> xGm, yGm;
	uint32_t length, tileLength;
};

extern "C" __global__ __aicore__ void sum_squares(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	TPipe pipe;
	KernelSumSquares op;
	op.Init(x, y, tilingData, &pipe);
	op.Process();
}
