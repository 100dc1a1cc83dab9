// SPDX-License-Identifier: MIT
//
// Kernel of reduce_whole: per row of 128 halves, s = WholeReduceSum, mi =
// WholeReduceMax as (value, index) pairs, b = BlockReduceSum (8 sums of 16).
#include "kernel_operator.h"

using namespace AscendC;

class KernelReduceWhole {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR s, GM_ADDR mi, GM_ADDR b, uint32_t rows, uint32_t rowsPerCore,
				    uint32_t tileRows)
	{
		uint32_t row0 = rowsPerCore * (uint32_t)GetBlockIdx();
		nrows = rows - row0 < rowsPerCore ? rows - row0 : rowsPerCore;
		this->tileRows = tileRows;
		xGm.SetGlobalBuffer((__gm__ half *)x + row0 * 128, nrows * 128);
		sGm.SetGlobalBuffer((__gm__ half *)s + row0, nrows);
		miGm.SetGlobalBuffer((__gm__ half *)mi + row0 * 2, nrows * 2);
		bGm.SetGlobalBuffer((__gm__ half *)b + row0 * 8, nrows * 8);
		pipe.InitBuffer(inQueue, 2, tileRows * 128 * sizeof(half));
		pipe.InitBuffer(sQueue, 2, tileRows * sizeof(half) + 32);
		pipe.InitBuffer(miQueue, 2, tileRows * 2 * sizeof(half) + 32);
		pipe.InitBuffer(bQueue, 2, tileRows * 8 * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < nrows; r += tileRows) {
			uint32_t n = nrows - r < tileRows ? nrows - r : tileRows;
			LocalTensor<half> x = inQueue.AllocTensor<half>();
			DataCopy(x, xGm[r * 128], n * 128);
			inQueue.EnQue(x);
			x = inQueue.DeQue<half>();
			LocalTensor<half> s = sQueue.AllocTensor<half>();
			LocalTensor<half> mi = miQueue.AllocTensor<half>();
			LocalTensor<half> b = bQueue.AllocTensor<half>();
			WholeReduceSum(s, x, 128, (int32_t)n, 1, 1, 8);
			WholeReduceMax(mi, x, 128, (int32_t)n, 1, 1, 8, ReduceOrder::ORDER_VALUE_INDEX);
			BlockReduceSum(b, x, (int32_t)n, 128, 1, 1, 8);
			inQueue.FreeTensor(x);
			sQueue.EnQue(s);
			miQueue.EnQue(mi);
			bQueue.EnQue(b);
			s = sQueue.DeQue<half>();
			mi = miQueue.DeQue<half>();
			b = bQueue.DeQue<half>();
			DataCopyPad(sGm[r], s, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
			DataCopyPad(miGm[r * 2], mi, DataCopyExtParams(1, n * 2 * sizeof(half), 0, 0, 0));
			DataCopy(bGm[r * 8], b, n * 8 / 16 * 16);
			if (n % 2)
				DataCopyPad(bGm[r * 8 + n / 2 * 16], b[n / 2 * 16], DataCopyExtParams(1, 8 * sizeof(half), 0, 0, 0));
			sQueue.FreeTensor(s);
			miQueue.FreeTensor(mi);
			bQueue.FreeTensor(b);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TQue<QuePosition::VECOUT, 2> sQueue, miQueue, bQueue;
	GlobalTensor<half> xGm, sGm, miGm, bGm;
	uint32_t nrows, tileRows;
};

extern "C" __global__ __aicore__ void reduce_whole(GM_ADDR x, GM_ADDR s, GM_ADDR mi, GM_ADDR b, GM_ADDR workspace,
						   GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelReduceWhole op;
	op.Init(x, s, mi, b, tilingData.rows, tilingData.rowsPerCore, tilingData.tileRows);
	op.Process();
}
