// SPDX-License-Identifier: MIT
//
// Hand-optimised kernel of swiglu: y = a * sigmoid(a) * b, x = [a, b].
//
// Tiling key 1 (a half-row is whole 32-byte blocks): a tile is tileRows
// whole rows of x, read by one contiguous DataCopy; a and b are widened to
// float row by row, the rest of the math runs once over the whole tile, and
// y goes out by one contiguous DataCopy.  The UB offsets come from the host
// so that no vector instruction meets a bank conflict.
// Tiling key 2 (any row length): strided DataCopyPad copies of tileRows x
// chunkCols blocks of a and of b, the same math, a strided DataCopyPad out.
// Both double-buffer every queue, stream past L2 and launch AIV-only.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelSwiGlu {
public:
	__aicore__ inline KernelSwiGlu() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SwiGluTilingData &tiling, bool wholeRows)
	{
		uint32_t coreIdx = GetBlockIdx();
		colNum = tiling.colNum;
		tileRows = tiling.tileRows;
		chunkCols = tiling.chunkCols;
		chunkNum = tiling.chunkNum;
		uint32_t rowStart;
		if (coreIdx < tiling.bigCores) {
			rowCount = tiling.baseRows + 1;
			rowStart = coreIdx * rowCount;
		} else {
			rowCount = tiling.baseRows;
			rowStart = tiling.bigCores + coreIdx * tiling.baseRows;
		}
		xGm.SetGlobalBuffer((__gm__ half *)x + (uint64_t)rowStart * colNum * 2, (uint64_t)rowCount * colNum * 2);
		yGm.SetGlobalBuffer((__gm__ half *)y + (uint64_t)rowStart * colNum, (uint64_t)rowCount * colNum);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tiling.ySlotBytes);
		if (tiling.pad1Bytes > 0)
			pipe.InitBuffer(pad1, tiling.pad1Bytes);
		if (wholeRows) {
			pipe.InitBuffer(inQueueX, BUFFER_NUM, tiling.xSlotBytes);
		} else {
			pipe.InitBuffer(inQueueX, BUFFER_NUM, tiling.xSlotBytes);
			pipe.InitBuffer(inQueueB, BUFFER_NUM, tiling.xSlotBytes);
		}
		if (tiling.pad2Bytes > 0)
			pipe.InitBuffer(pad2, tiling.pad2Bytes);
		pipe.InitBuffer(floatBuf, tiling.floatBytes);
		LocalTensor<float> f = floatBuf.Get<float>();
		f1 = f;
		f2 = f[tiling.f2Offset / sizeof(float)];
		f3 = f[tiling.f3Offset / sizeof(float)];
	}

	__aicore__ inline void ProcessWholeRows()
	{
		uint32_t r = 0;
		while (r < rowCount) {
			uint32_t left = rowCount - r;
			uint32_t rows = left > tileRows ? tileRows : left;
			LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
			DataCopy(xLocal, xGm[(uint64_t)r * colNum * 2], rows * colNum * 2);
			inQueueX.EnQue(xLocal);
			ComputeWholeRows(rows);
			LocalTensor<half> yLocal = outQueueY.DeQue<half>();
			DataCopy(yGm[(uint64_t)r * colNum], yLocal, rows * colNum);
			outQueueY.FreeTensor(yLocal);
			r += rows;
		}
	}

	__aicore__ inline void ProcessBlocks()
	{
		for (uint32_t r = 0; r < rowCount; r += tileRows) {
			uint32_t rows = (rowCount - r < tileRows) ? rowCount - r : tileRows;
			for (uint32_t k = 0; k < chunkNum; k++) {
				uint32_t c = k * chunkCols;
				uint32_t cols = (colNum - c < chunkCols) ? colNum - c : chunkCols;
				uint64_t offset = (uint64_t)r * colNum * 2 + c;
				DataCopyExtParams in(rows, cols * sizeof(half), (colNum * 2 - cols) * sizeof(half), 0, 0);
				DataCopyPadExtParams<half> pad(false, 0, 0, 0);
				LocalTensor<half> aLocal = inQueueX.AllocTensor<half>();
				DataCopyPad(aLocal, xGm[offset], in, pad);
				inQueueX.EnQue(aLocal);
				LocalTensor<half> bLocal = inQueueB.AllocTensor<half>();
				DataCopyPad(bLocal, xGm[offset + colNum], in, pad);
				inQueueB.EnQue(bLocal);
				ComputeBlock(rows * ((cols + 15) / 16 * 16));
				LocalTensor<half> yLocal = outQueueY.DeQue<half>();
				DataCopyPad(yGm[(uint64_t)r * colNum + c], yLocal,
					    DataCopyExtParams(rows, cols * sizeof(half), 0, (colNum - cols) * sizeof(half), 0));
				outQueueY.FreeTensor(yLocal);
			}
		}
	}

private:
	// Each step runs row by row over the tile, so consecutive vector
	// instructions are independent and the pipe never waits on the latency
	// of the instruction before.
	__aicore__ inline void ComputeWholeRows(uint32_t rows)
	{
		uint32_t h = colNum;
		LocalTensor<half> xLocal = inQueueX.DeQue<half>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		for (uint32_t i = 0; i < rows; i++)
			Cast(f1[i * h], xLocal[i * h * 2], RoundMode::CAST_NONE, h);
		for (uint32_t i = 0; i < rows; i++)
			Sigmoid(f2[i * h], f1[i * h], h);
		for (uint32_t i = 0; i < rows; i++)
			Mul(f3[i * h], f2[i * h], f1[i * h], h);
		for (uint32_t i = 0; i < rows; i++)
			Cast(f1[i * h], xLocal[i * h * 2 + h], RoundMode::CAST_NONE, h);
		inQueueX.FreeTensor(xLocal);
		for (uint32_t i = 0; i < rows; i++)
			Mul(f2[i * h], f3[i * h], f1[i * h], h);
		for (uint32_t i = 0; i < rows; i++)
			Cast(yLocal[i * h], f2[i * h], RoundMode::CAST_RINT, h);
		outQueueY.EnQue<half>(yLocal);
	}

	__aicore__ inline void ComputeBlock(uint32_t n)
	{
		LocalTensor<half> aLocal = inQueueX.DeQue<half>();
		LocalTensor<half> bLocal = inQueueB.DeQue<half>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		Cast(f1, aLocal, RoundMode::CAST_NONE, n);
		inQueueX.FreeTensor(aLocal);
		Sigmoid(f2, f1, n);
		Mul(f3, f2, f1, n);
		Cast(f1, bLocal, RoundMode::CAST_NONE, n);
		inQueueB.FreeTensor(bLocal);
		Mul(f2, f3, f1, n);
		Cast(yLocal, f2, RoundMode::CAST_RINT, n);
		outQueueY.EnQue<half>(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueB;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> pad1, pad2, floatBuf;
	LocalTensor<float> f1, f2, f3;
	GlobalTensor<half> xGm, yGm;
	uint32_t colNum = 0;
	uint32_t tileRows = 0;
	uint32_t chunkCols = 0;
	uint32_t chunkNum = 0;
	uint32_t rowCount = 0;
};

extern "C" __global__ __aicore__ void swiglu(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	KernelSwiGlu op;
	if (TILING_KEY_IS(1)) {
		op.Init(x, y, tilingData, true);
		op.ProcessWholeRows();
	} else if (TILING_KEY_IS(2)) {
		op.Init(x, y, tilingData, false);
		op.ProcessBlocks();
	}
}
