// SPDX-License-Identifier: MIT
//
// Kernel of reduce_sum: each core walks its rows one at a time.  A row comes
// in with DataCopyPad, ReduceSum folds it, the scalar unit reads the sum and
// stores it into an output tile, and the tile goes out with DataCopyPad
// whenever it is full and at the end.
#include "kernel_operator.h"

using namespace AscendC;

class KernelReduceSum {
public:
	__aicore__ inline KernelReduceSum() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReduceSumTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		this->cols = t.cols;
		this->outTileRows = t.outTileRows;
		uint32_t rowStart = blockIdx * t.rowsPerCore;
		this->rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * t.cols, (uint64_t)this->rowNum * t.cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + rowStart, this->rowNum);
		pipe.InitBuffer(inQueue, t.bufferNum, t.colsAligned * sizeof(float));
		pipe.InitBuffer(workBuf, (t.colsAligned / 64 + 8) * sizeof(float));
		pipe.InitBuffer(sumBuf, 8 * sizeof(float));
		pipe.InitBuffer(outBuf, t.outTileRows * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> outLocal = outBuf.Get<float>();
		uint32_t pending = 0;
		uint32_t flushed = 0;
		for (uint32_t r = 0; r < this->rowNum; r++) {
			CopyIn(r);
			float s = Compute();
			outLocal.SetValue(pending, s);
			pending++;
			if (pending == this->outTileRows || r == this->rowNum - 1) {
				DataCopyExtParams params{1, (uint32_t)(pending * sizeof(float)), 0, 0, 0};
				DataCopyPad(yGm[flushed], outLocal, params);
				flushed += pending;
				pending = 0;
			}
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t row)
	{
		LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
		DataCopyExtParams params{1, (uint32_t)(this->cols * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> padParams{false, 0, 0, 0.0f};
		DataCopyPad(xLocal, xGm[(uint64_t)row * this->cols], params, padParams);
		inQueue.EnQue(xLocal);
	}

	__aicore__ inline float Compute()
	{
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> sumLocal = sumBuf.Get<float>();
		LocalTensor<float> workLocal = workBuf.Get<float>();
		ReduceSum(sumLocal, xLocal, workLocal, this->cols);
		float s = sumLocal.GetValue(0);
		inQueue.FreeTensor(xLocal);
		return s;
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TBuf<QuePosition::VECCALC> workBuf, sumBuf, outBuf;
	GlobalTensor<float> xGm, yGm;
	uint32_t cols;
	uint32_t rowNum;
	uint32_t outTileRows;
};

extern "C" __global__ __aicore__ void reduce_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelReduceSum op;
	op.Init(x, y, tilingData);
	op.Process();
}
