// SPDX-License-Identifier: MIT
//
// Kernel of one_core_rows, written for one core: Process walks every row;
// RowMean copies the row in tiles with DataCopyPad, adds each tile with
// ReduceSum, reads the sum back on the scalar unit and stores the row's
// mean with a scalar write to global memory.
#include "kernel_operator.h"

using namespace AscendC;

class KernelOneCoreRows {
public:
	__aicore__ inline KernelOneCoreRows() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const OneCoreRowsTilingData &t)
	{
		rows = t.rows;
		cols = t.cols;
		tileCols = t.tileCols;
		xGm.SetGlobalBuffer((__gm__ float *)x, (uint64_t)rows * cols);
		yGm.SetGlobalBuffer((__gm__ float *)y, rows);
		pipe.InitBuffer(inQueue, 1, tileCols * sizeof(float));
		pipe.InitBuffer(workBuf, (tileCols / 64 + 8) * sizeof(float));
		pipe.InitBuffer(sumBuf, 8 * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < rows; r++) {
			float mean = RowSum(r) / (float)cols;
			yGm.SetValue(r, mean);
		}
	}

private:
	__aicore__ inline float RowSum(uint32_t r)
	{
		float total = 0.0f;
		for (uint32_t c = 0; c < cols; c += tileCols) {
			uint32_t n = cols - c < tileCols ? cols - c : tileCols;
			LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
			DataCopyExtParams params{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
			DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
			DataCopyPad(xLocal, xGm[(uint64_t)r * cols + c], params, pad);
			inQueue.EnQue(xLocal);
			xLocal = inQueue.DeQue<float>();
			LocalTensor<float> sum = sumBuf.Get<float>();
			ReduceSum(sum, xLocal, workBuf.Get<float>(), n);
			total += sum.GetValue(0);
			inQueue.FreeTensor(xLocal);
		}
		return total;
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TBuf<QuePosition::VECCALC> workBuf, sumBuf;
	GlobalTensor<float> xGm, yGm;
	uint32_t rows, cols, tileCols;
};

extern "C" __global__ __aicore__ void one_core_rows(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelOneCoreRows op;
	op.Init(x, y, tilingData);
	op.Process();
}
