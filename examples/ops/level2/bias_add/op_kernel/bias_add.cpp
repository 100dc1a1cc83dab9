// SPDX-License-Identifier: MIT
//
// Kernel of bias_add, a template over the element type.  The bias stays in
// UB; each core moves its rows in tiles of tiling.tileRows rows with
// multi-row DataCopyPad through queues of tiling.bufferNum buffers each (the
// host's BUFFER_NUM; 2 in the baseline, so double buffered) and adds the
// bias row by row.
#include "kernel_operator.h"

using namespace AscendC;

// depth of the TQue templates only; InitBuffer takes tiling.bufferNum
constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelBiasAdd {
public:
	__aicore__ inline KernelBiasAdd() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const BiasAddTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		colsAligned = t.colsAligned;
		tileRows = t.tileRows;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t start = (uint64_t)blockIdx * t.rowsPerCore * cols;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, (uint64_t)rowNum * cols);
		biasGm.SetGlobalBuffer((__gm__ T *)bias, cols);
		pipe.InitBuffer(inQueue, t.bufferNum, tileRows * colsAligned * sizeof(T));
		pipe.InitBuffer(outQueue, t.bufferNum, tileRows * colsAligned * sizeof(T));
		pipe.InitBuffer(biasBuf, colsAligned * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<T> biasLocal = biasBuf.Get<T>();
		DataCopyExtParams params{1, (uint32_t)(cols * sizeof(T)), 0, 0, 0};
		DataCopyPadExtParams<T> pad{false, 0, 0, (T)0};
		DataCopyPad(biasLocal, biasGm, params, pad);
		for (uint32_t row = 0; row < rowNum; row += tileRows) {
			uint32_t n = rowNum - row < tileRows ? rowNum - row : tileRows;
			CopyIn(row, n);
			Compute(n, biasLocal);
			CopyOut(row, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t row, uint32_t n)
	{
		LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
		DataCopyExtParams params{(uint16_t)n, (uint32_t)(cols * sizeof(T)), 0, 0, 0};
		DataCopyPadExtParams<T> pad{false, 0, 0, (T)0};
		DataCopyPad(xLocal, xGm[(uint64_t)row * cols], params, pad);
		inQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t n, const LocalTensor<T> &biasLocal)
	{
		LocalTensor<T> xLocal = inQueue.DeQue<T>();
		LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
		for (uint32_t r = 0; r < n; r++)
			Add(yLocal[r * colsAligned], xLocal[r * colsAligned], biasLocal, cols);
		outQueue.EnQue(yLocal);
		inQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t row, uint32_t n)
	{
		LocalTensor<T> yLocal = outQueue.DeQue<T>();
		DataCopyExtParams params{(uint16_t)n, (uint32_t)(cols * sizeof(T)), 0, 0, 0};
		DataCopyPad(yGm[(uint64_t)row * cols], yLocal, params);
		outQueue.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
	TBuf<QuePosition::VECCALC> biasBuf;
	GlobalTensor<T> xGm, biasGm, yGm;
	uint32_t cols, colsAligned, tileRows, rowNum;
};

template <typename T>
__global__ __aicore__ void bias_add(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelBiasAdd<T> op;
	op.Init(x, bias, y, tilingData);
	op.Process();
}
