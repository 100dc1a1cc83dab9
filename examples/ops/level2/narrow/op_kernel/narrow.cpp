// SPDX-License-Identifier: MIT
//
// Kernel of Narrow: y = x[..., start:start + length].  Each core copies its
// rows through one bound VECIN/VECOUT queue, a tile of rows at a time, one
// DataCopyPad per row in and one per row out (each row on a 32-byte
// boundary in UB).  Single buffer, fixed 64-row tiles.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelNarrow {
public:
	__aicore__ inline KernelNarrow() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const NarrowTilingData &t)
	{
		uint32_t rowStart = t.rowsPerCore * GetBlockIdx();
		rowNum = t.rowNum - rowStart < t.rowsPerCore ? t.rowNum - rowStart : t.rowsPerCore;
		cols = t.cols;
		start = t.start;
		length = t.length;
		lengthAligned = t.lengthAligned;
		tileRows = t.tileRows;
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)rowStart * length, (uint64_t)rowNum * length);
		pipe.InitBuffer(queue, BUFFER_NUM, tileRows * lengthAligned * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t row = 0; row < rowNum; row += tileRows) {
			uint32_t n = rowNum - row < tileRows ? rowNum - row : tileRows;
			CopyIn(row, n);
			CopyOut(row, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t row, uint32_t n)
	{
		LocalTensor<float> rowsLocal = queue.AllocTensor<float>();
		DataCopyExtParams params{1, (uint32_t)(length * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		uint64_t offset = (uint64_t)row * cols + start;
		for (uint32_t r = 0; r < n; r++)
			DataCopyPad(rowsLocal[r * lengthAligned], xGm[offset + r * cols], params, pad);
		queue.EnQue(rowsLocal);
	}

	__aicore__ inline void CopyOut(uint32_t row, uint32_t n)
	{
		LocalTensor<float> rowsLocal = queue.DeQue<float>();
		DataCopyExtParams params{1, (uint32_t)(length * sizeof(float)), 0, 0, 0};
		uint64_t offset = (uint64_t)row * length;
		for (uint32_t r = 0; r < n; r++)
			DataCopyPad(yGm[offset + r * length], rowsLocal[r * lengthAligned], params);
		queue.FreeTensor(rowsLocal);
	}

private:
	TPipe pipe;
	TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> queue;
	GlobalTensor<float> xGm, yGm;
	uint32_t rowNum, cols, start, length, lengthAligned, tileRows;
};

extern "C" __global__ __aicore__ void narrow(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelNarrow op;
	op.Init(x, y, tilingData);
	op.Process();
}
