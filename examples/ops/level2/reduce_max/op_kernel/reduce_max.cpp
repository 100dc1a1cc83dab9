// SPDX-License-Identifier: MIT
//
// Kernel of reduce_max over the last axis of a half matrix.  Each core
// copies a few rows at a time with one multi-row DataCopyPad, takes the
// ReduceMax of every row, moves each maximum into the output tile on the
// scalar unit, and writes the tile out with DataCopyPad; full barriers keep
// the copies and the vector work apart.
#include "kernel_operator.h"
#include "reduce_max_tiling.h"

using namespace AscendC;

class KernelReduceMax {
public:
	__aicore__ inline KernelReduceMax() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const ReduceMaxTilingData &t)
	{
		uint32_t blockIdx = GetBlockIdx();
		cols = t.cols;
		colsAligned = t.colsAligned;
		tileRows = t.tileRows;
		rowNum = (blockIdx == GetBlockNum() - 1) ? t.tailCoreRows : t.rowsPerCore;
		uint64_t rowStart = (uint64_t)blockIdx * t.rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ half *)x + rowStart * cols, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ half *)y + rowStart, rowNum);
		pipe.InitBuffer(inBuf, tileRows * colsAligned * sizeof(half));
		pipe.InitBuffer(workBuf, (colsAligned / 128 + 16) * sizeof(half));
		pipe.InitBuffer(maxBuf, 32);
		pipe.InitBuffer(outBuf, (tileRows + 15) / 16 * 32);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<half> xLocal = inBuf.Get<half>();
		LocalTensor<half> work = workBuf.Get<half>();
		LocalTensor<half> m = maxBuf.Get<half>();
		LocalTensor<half> out = outBuf.Get<half>();
		for (uint32_t row = 0; row < rowNum; row += tileRows) {
			uint32_t n = rowNum - row < tileRows ? rowNum - row : tileRows;
			DataCopyExtParams inParams{(uint16_t)n, (uint32_t)(cols * sizeof(half)), 0, 0, 0};
			DataCopyPadExtParams<half> pad{false, 0, 0, (half)0};
			DataCopyPad(xLocal, xGm[(uint64_t)row * cols], inParams, pad);
			PipeBarrier<PIPE_ALL>();
			for (uint32_t r = 0; r < n; r++) {
				ReduceMax(m, xLocal[r * colsAligned], work, cols);
				out.SetValue(r, m.GetValue(0));
			}
			PipeBarrier<PIPE_ALL>();
			DataCopyExtParams outParams{1, (uint32_t)(n * sizeof(half)), 0, 0, 0};
			DataCopyPad(yGm[row], out, outParams);
			PipeBarrier<PIPE_ALL>();
		}
	}

private:
	TPipe pipe;
	TBuf<QuePosition::VECCALC> inBuf, workBuf, maxBuf, outBuf;
	GlobalTensor<half> xGm, yGm;
	uint32_t cols, colsAligned, tileRows, rowNum;
};

extern "C" __global__ __aicore__ void reduce_max(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	REGISTER_TILING_DEFAULT(ReduceMaxTilingData);
	GET_TILING_DATA_WITH_STRUCT(ReduceMaxTilingData, tilingData, tiling);
	KernelReduceMax op;
	op.Init(x, y, tilingData);
	op.Process();
}
