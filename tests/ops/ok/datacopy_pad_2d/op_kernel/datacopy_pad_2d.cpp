// SPDX-License-Identifier: MIT
//
// Kernel of datacopy_pad_2d: DataCopyPad brings tileRows rows in one call
// (blockCount rows of cols*2 bytes, each padded to whole 32-byte blocks with
// zeros), Muls scales the padded tile, and DataCopyPad writes exact rows
// back; t takes the first 16 columns with a UB-side stride.
#include "kernel_operator.h"

using namespace AscendC;

class KernelDataCopyPad2d {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR t, uint32_t rows, uint32_t cols, uint32_t rowsPerCore,
				    uint32_t tileRows, uint32_t pitch)
	{
		uint32_t row0 = rowsPerCore * (uint32_t)GetBlockIdx();
		nrows = rows - row0 < rowsPerCore ? rows - row0 : rowsPerCore;
		this->cols = cols;
		this->tileRows = tileRows;
		this->pitch = pitch;
		xGm.SetGlobalBuffer((__gm__ half *)x + row0 * cols, nrows * cols);
		zGm.SetGlobalBuffer((__gm__ half *)z + row0 * cols, nrows * cols);
		tGm.SetGlobalBuffer((__gm__ half *)t + row0 * 16, nrows * 16);
		pipe.InitBuffer(inQueue, 2, tileRows * pitch * sizeof(half));
		pipe.InitBuffer(outQueue, 2, tileRows * pitch * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < nrows; r += tileRows) {
			uint16_t n = (uint16_t)(nrows - r < tileRows ? nrows - r : tileRows);
			LocalTensor<half> x = inQueue.AllocTensor<half>();
			DataCopyPad(x, xGm[r * cols], DataCopyExtParams(n, cols * sizeof(half), 0, 0, 0),
				    DataCopyPadExtParams<half>(true, 0, 0, (half)0));
			inQueue.EnQue(x);
			x = inQueue.DeQue<half>();
			LocalTensor<half> z = outQueue.AllocTensor<half>();
			Muls(z, x, (half)3.0, n * pitch);
			inQueue.FreeTensor(x);
			outQueue.EnQue(z);
			z = outQueue.DeQue<half>();
			DataCopyPad(zGm[r * cols], z, DataCopyExtParams(n, cols * sizeof(half), 0, 0, 0));
			/* 32 bytes per row; the UB rows are pitch*2 bytes apart, i.e. a gap of pitch/16 - 1 blocks. */
			DataCopyPad(tGm[r * 16], z, DataCopyExtParams(n, 16 * sizeof(half), pitch / 16 - 1, 0, 0));
			outQueue.FreeTensor(z);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TQue<QuePosition::VECOUT, 2> outQueue;
	GlobalTensor<half> xGm, zGm, tGm;
	uint32_t nrows, cols, tileRows, pitch;
};

extern "C" __global__ __aicore__ void datacopy_pad_2d(GM_ADDR x, GM_ADDR z, GM_ADDR t, GM_ADDR workspace,
						      GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelDataCopyPad2d op;
	op.Init(x, z, t, tilingData.rows, tilingData.cols, tilingData.rowsPerCore, tilingData.tileRows,
		tilingData.pitch);
	op.Process();
}
