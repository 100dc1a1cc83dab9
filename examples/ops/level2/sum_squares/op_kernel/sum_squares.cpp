// SPDX-License-Identifier: MIT
//
// Kernel of sum_squares: each core walks its chunk in tiles of the
// tiling's tileLength (the host's TILE_NUM) through one buffer, squares a
// tile, ReduceSums it and adds the result to a scalar accumulator.  The
// partial goes to the user workspace; after SyncAll core 0 reads every
// partial back, adds them up and writes y.
#include "kernel_operator.h"

using namespace AscendC;

class KernelSumSquares {
public:
	__aicore__ inline KernelSumSquares() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, uint32_t totalLength,
				    uint32_t blockLength, uint32_t tileLength)
	{
		blockIdx = GetBlockIdx();
		blockNum = GetBlockNum();
		uint32_t start = blockIdx * blockLength;
		length = totalLength - start < blockLength ? totalLength - start : blockLength;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ float *)y, 1);
		wsGm.SetGlobalBuffer((__gm__ float *)GetUserWorkspace(workspace), blockNum * 8);
		pipe.InitBuffer(inQueue, 1, tileLength * sizeof(float));
		pipe.InitBuffer(sqBuf, tileLength * sizeof(float));
		pipe.InitBuffer(workBuf, (tileLength / 64 + 8) * sizeof(float));
		pipe.InitBuffer(partBuf, 8 * sizeof(float));
		pipe.InitBuffer(allBuf, (blockNum * 8) * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> sq = sqBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> part = partBuf.Get<float>();
		float acc = 0.0f;
		for (uint32_t off = 0; off < length; off += tileLength) {
			uint32_t n = length - off < tileLength ? length - off : tileLength;
			LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
			DataCopyExtParams params{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
			DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
			DataCopyPad(xLocal, xGm[off], params, pad);
			inQueue.EnQue(xLocal);
			xLocal = inQueue.DeQue<float>();
			Mul(sq, xLocal, xLocal, n);
			PipeBarrier<PIPE_V>();
			ReduceSum(part, sq, work, n);
			acc += part.GetValue(0);
			inQueue.FreeTensor(xLocal);
		}
		Duplicate(part, acc, 8);
		DataCopy(wsGm[blockIdx * 8], part, 8);

		SyncAll();

		if (blockIdx != 0)
			return;
		LocalTensor<float> all = allBuf.Get<float>();
		DataCopy(all, wsGm, blockNum * 8);
		float total = 0.0f;
		for (uint32_t c = 0; c < blockNum; c++)
			total += all.GetValue(c * 8);
		part.SetValue(0, total);
		DataCopyExtParams outParams{1, sizeof(float), 0, 0, 0};
		DataCopyPad(yGm, part, outParams);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TBuf<QuePosition::VECCALC> sqBuf, workBuf, partBuf, allBuf;
	GlobalTensor<float> xGm, yGm, wsGm;
	uint32_t blockIdx, blockNum, length, tileLength;
};

extern "C" __global__ __aicore__ void sum_squares(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelSumSquares op;
	op.Init(x, y, workspace, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
