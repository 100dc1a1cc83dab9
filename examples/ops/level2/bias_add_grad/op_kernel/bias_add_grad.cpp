// SPDX-License-Identifier: MIT
//
// Kernel of bias_add_grad: core 0 clears dbias, every core waits in SyncAll,
// then copies its rows in tiles of tiling.tileRows rows with a multi-row
// DataCopyPad through a queue of tiling.bufferNum buffers, adds each row of
// a tile into a UB accumulator, and finally adds the accumulator into dbias
// with SetAtomicAdd<float>.
#include "kernel_operator.h"

using namespace AscendC;

// depth of the TQue template only; InitBuffer takes tiling.bufferNum
constexpr int32_t BUFFER_NUM = 2;

class KernelBiasAddGrad {
public:
	__aicore__ inline KernelBiasAddGrad() {}
	__aicore__ inline void Init(GM_ADDR dy, GM_ADDR dbias, const BiasAddGradTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		colsAligned = t.colsAligned;
		tileRows = t.tileRows;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		dyGm.SetGlobalBuffer((__gm__ float *)dy + start, (uint64_t)rowNum * cols);
		dbGm.SetGlobalBuffer((__gm__ float *)dbias, cols);
		pipe.InitBuffer(inQueue, t.bufferNum, tileRows * colsAligned * sizeof(float));
		pipe.InitBuffer(accBuf, colsAligned * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		if (GetBlockIdx() == 0)
			InitGlobalMemory(dbGm, cols, 0.0f);
		SyncAll();

		LocalTensor<float> acc = accBuf.Get<float>();
		Duplicate(acc, 0.0f, cols);
		for (uint32_t row = 0; row < rowNum; row += tileRows) {
			uint32_t n = rowNum - row < tileRows ? rowNum - row : tileRows;
			CopyIn(row, n);
			Accumulate(acc, n);
		}
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		SetAtomicAdd<float>();
		DataCopyPad(dbGm, acc, params);
		SetAtomicNone();
	}

private:
	__aicore__ inline void CopyIn(uint32_t row, uint32_t n)
	{
		LocalTensor<float> tile = inQueue.AllocTensor<float>();
		DataCopyExtParams params{(uint16_t)n, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(tile, dyGm[(uint64_t)row * cols], params, pad);
		inQueue.EnQue(tile);
	}

	__aicore__ inline void Accumulate(const LocalTensor<float> &acc, uint32_t n)
	{
		LocalTensor<float> tile = inQueue.DeQue<float>();
		for (uint32_t r = 0; r < n; r++)
			Add(acc, acc, tile[r * colsAligned], cols);
		inQueue.FreeTensor(tile);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TBuf<QuePosition::VECCALC> accBuf;
	GlobalTensor<float> dyGm, dbGm;
	uint32_t cols, colsAligned, tileRows, rowNum;
};

extern "C" __global__ __aicore__ void bias_add_grad(GM_ADDR dy, GM_ADDR dbias, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBiasAddGrad op;
	op.Init(dy, dbias, tilingData);
	op.Process();
}
