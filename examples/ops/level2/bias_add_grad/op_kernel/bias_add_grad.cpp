// SPDX-License-Identifier: MIT
//
// Kernel of bias_add_grad: core 0 clears dbias, every core waits in SyncAll,
// then copies its rows in one at a time with DataCopyPad, adds each into a
// UB accumulator, and finally adds the accumulator into dbias with
// SetAtomicAdd<float>.
#include "kernel_operator.h"

using namespace AscendC;

class KernelBiasAddGrad {
public:
	__aicore__ inline KernelBiasAddGrad() {}
	__aicore__ inline void Init(GM_ADDR dy, GM_ADDR dbias, const BiasAddGradTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		dyGm.SetGlobalBuffer((__gm__ float *)dy + start, (uint64_t)rowNum * cols);
		dbGm.SetGlobalBuffer((__gm__ float *)dbias, cols);
		pipe.InitBuffer(inQueue, 1, t.colsAligned * sizeof(float));
		pipe.InitBuffer(accBuf, t.colsAligned * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		if (GetBlockIdx() == 0)
			InitGlobalMemory(dbGm, cols, 0.0f);
		SyncAll();

		LocalTensor<float> acc = accBuf.Get<float>();
		Duplicate(acc, 0.0f, cols);
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		for (uint32_t r = 0; r < rowNum; r++) {
			LocalTensor<float> row = inQueue.AllocTensor<float>();
			DataCopyPad(row, dyGm[(uint64_t)r * cols], params, pad);
			inQueue.EnQue(row);
			row = inQueue.DeQue<float>();
			Add(acc, acc, row, cols);
			inQueue.FreeTensor(row);
		}
		SetAtomicAdd<float>();
		DataCopyPad(dbGm, acc, params);
		SetAtomicNone();
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TBuf<QuePosition::VECCALC> accBuf;
	GlobalTensor<float> dyGm, dbGm;
	uint32_t cols, rowNum;
};

extern "C" __global__ __aicore__ void bias_add_grad(GM_ADDR dy, GM_ADDR dbias, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBiasAddGrad op;
	op.Init(dy, dbias, tilingData);
	op.Process();
}
