// SPDX-License-Identifier: MIT
//
// Hand-optimized kernel of Narrow: y = x[..., start:start + length].
//  - AIV-only launch; x and y bypass L2 (each byte is touched once);
//  - balanced rows, the remainder one each to the first cores;
//  - a whole tile of rows moves in one DataCopyPad each way: in, length
//    floats per row with a GM gap of cols - length between rows (each
//    row padded to 32 bytes in UB); out, the padded rows packed back;
//  - a double-buffered bound VECIN/VECOUT queue with UB-sized tiles.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelNarrowExpert {
public:
	__aicore__ inline KernelNarrowExpert() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const NarrowTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t rowStart = idx * t.baseRows + (idx < t.bigCores ? idx : t.bigCores);
		rowNum = t.baseRows + (idx < t.bigCores ? 1 : 0);
		cols = t.cols;
		start = t.start;
		length = t.length;
		tileRows = t.tileRows;
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)rowStart * cols, (uint64_t)rowNum * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)rowStart * length, (uint64_t)rowNum * length);
		xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		pipe.InitBuffer(queue, BUFFER_NUM, tileRows * t.lengthAligned * sizeof(float));
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
		DataCopyExtParams params{(uint16_t)n, (uint32_t)(length * sizeof(float)),
		                         (uint32_t)((cols - length) * sizeof(float)), 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(rowsLocal, xGm[(uint64_t)row * cols + start], params, pad);
		queue.EnQue(rowsLocal);
	}

	__aicore__ inline void CopyOut(uint32_t row, uint32_t n)
	{
		LocalTensor<float> rowsLocal = queue.DeQue<float>();
		DataCopyExtParams params{(uint16_t)n, (uint32_t)(length * sizeof(float)), 0, 0, 0};
		DataCopyPad(yGm[(uint64_t)row * length], rowsLocal, params);
		queue.FreeTensor(rowsLocal);
	}

private:
	TPipe pipe;
	TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> queue;
	GlobalTensor<float> xGm, yGm;
	uint32_t rowNum, cols, start, length, tileRows;
};

extern "C" __global__ __aicore__ void narrow(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	GET_TILING_DATA(tilingData, tiling);
	KernelNarrowExpert op;
	op.Init(x, y, tilingData);
	op.Process();
}
