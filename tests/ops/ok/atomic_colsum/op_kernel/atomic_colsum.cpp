// SPDX-License-Identifier: MIT
//
// Kernel of atomic_colsum: core 0 clears the output with InitGlobalMemory,
// every core waits in SyncAll, sums its rows into a UB accumulator, and adds
// the accumulator into the output with SetAtomicAdd<float>.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void atomic_colsum(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(t, tiling);
	uint32_t row0 = t.rowsPerCore * (uint32_t)GetBlockIdx();
	uint32_t nrows = t.rows - row0 < t.rowsPerCore ? t.rows - row0 : t.rowsPerCore;
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + row0 * t.cols, nrows * t.cols);
	zGm.SetGlobalBuffer((__gm__ float *)z, t.cols);

	if (GetBlockIdx() == 0)
		InitGlobalMemory(zGm, t.cols, 0.0f);
	SyncAll();

	TPipe pipe;
	TQue<QuePosition::VECIN, 2> rowQueue;
	TBuf<QuePosition::VECCALC> accBuf;
	pipe.InitBuffer(rowQueue, 2, t.cols * sizeof(float));
	pipe.InitBuffer(accBuf, t.cols * sizeof(float));
	LocalTensor<float> acc = accBuf.Get<float>();
	Duplicate(acc, 0.0f, t.cols);
	for (uint32_t r = 0; r < nrows; r++) {
		LocalTensor<float> row = rowQueue.AllocTensor<float>();
		DataCopy(row, xGm[r * t.cols], t.cols);
		rowQueue.EnQue(row);
		row = rowQueue.DeQue<float>();
		Add(acc, acc, row, t.cols);
		rowQueue.FreeTensor(row);
	}
	SetAtomicAdd<float>();
	DataCopy(zGm, acc, t.cols);
	SetAtomicNone();
}
