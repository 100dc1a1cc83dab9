// SPDX-License-Identifier: MIT
//
// Kernel of reduce_rows: each core copies its rows in with DataCopyPad (rows
// need not be whole 32-byte blocks), reduces each with ReduceSum and
// ReduceMax, gathers the results with scalar SetValue, and writes them out
// with DataCopyPad.
#include "kernel_operator.h"
#include "reduce_rows_tiling_data.h"

using namespace AscendC;

class KernelReduceRows {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR s, GM_ADDR m, const ReduceRowsTilingData &t)
	{
		cols = t.cols;
		row0 = t.rowsPerCore * (uint32_t)GetBlockIdx();
		nrows = t.rows - row0 < t.rowsPerCore ? t.rows - row0 : t.rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)row0 * cols, (uint64_t)nrows * cols);
		sGm.SetGlobalBuffer((__gm__ float *)s + row0, nrows);
		mGm.SetGlobalBuffer((__gm__ float *)m + row0, nrows);
		pipe.InitBuffer(inQueue, 2, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, 256 * sizeof(float));
		pipe.InitBuffer(scalarBuf, 64);
		pipe.InitBuffer(sumBuf, (t.rowsPerCore + 7) / 8 * 32);
		pipe.InitBuffer(maxBuf, (t.rowsPerCore + 7) / 8 * 32);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> sums = sumBuf.Get<float>();
		LocalTensor<float> maxs = maxBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> one = scalarBuf.Get<float>();
		for (uint32_t r = 0; r < nrows; r++) {
			LocalTensor<float> row = inQueue.AllocTensor<float>();
			DataCopyPad(row, xGm[(uint64_t)r * cols], DataCopyExtParams(1, cols * sizeof(float), 0, 0, 0),
				    DataCopyPadExtParams<float>(false, 0, 0, 0));
			inQueue.EnQue(row);
			row = inQueue.DeQue<float>();
			ReduceSum(one, row, work, cols);
			sums.SetValue(r, one.GetValue(0));
			ReduceMax(one, row, work, cols);
			maxs.SetValue(r, one.GetValue(0));
			inQueue.FreeTensor(row);
		}
		DataCopyPad(sGm, sums, DataCopyExtParams(1, nrows * sizeof(float), 0, 0, 0));
		DataCopyPad(mGm, maxs, DataCopyExtParams(1, nrows * sizeof(float), 0, 0, 0));
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TBuf<QuePosition::VECCALC> workBuf, scalarBuf, sumBuf, maxBuf;
	GlobalTensor<float> xGm, sGm, mGm;
	uint32_t cols, row0, nrows;
};

extern "C" __global__ __aicore__ void reduce_rows(GM_ADDR x, GM_ADDR s, GM_ADDR m, GM_ADDR workspace, GM_ADDR tiling)
{
	REGISTER_TILING_DEFAULT(ReduceRowsTilingData);
	GET_TILING_DATA_WITH_STRUCT(ReduceRowsTilingData, tilingData, tiling);
	KernelReduceRows op;
	op.Init(x, s, m, tilingData);
	op.Process();
}
