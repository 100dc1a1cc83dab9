// SPDX-License-Identifier: MIT
//
// Kernel of HiddenRowsPerTile: y = x + b by rows.  A core's rows come in
// tiles of rowsPerTile rows, one DataCopyPad each way (each row padded to
// whole 32-byte blocks in UB), and b is added row by row; so the number of
// copies, not of additions, follows the rows per tile.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelHiddenRowsPerTile {
public:
	__aicore__ inline KernelHiddenRowsPerTile() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR b, GM_ADDR y, const HiddenRowsPerTileTilingData &t)
	{
		uint32_t row0 = t.rowsPerCore * GetBlockIdx();
		this->nrows = row0 >= t.rows ? 0 : t.rows - row0 < t.rowsPerCore ? t.rows - row0 : t.rowsPerCore;
		this->cols = t.cols;
		this->pitch = (t.cols + 7) / 8 * 8;
		this->rowsPerTile = t.rowsPerTile;
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)row0 * t.cols, (uint64_t)this->nrows * t.cols);
		yGm.SetGlobalBuffer((__gm__ float *)y + (uint64_t)row0 * t.cols, (uint64_t)this->nrows * t.cols);
		bGm.SetGlobalBuffer((__gm__ float *)b, t.cols);
		pipe.InitBuffer(inQueue, BUFFER_NUM, t.rowsPerTile * this->pitch * sizeof(float));
		pipe.InitBuffer(outQueue, BUFFER_NUM, t.rowsPerTile * this->pitch * sizeof(float));
		pipe.InitBuffer(bBuf, this->pitch * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> bLocal = bBuf.Get<float>();
		DataCopyPad(bLocal, bGm, DataCopyExtParams(1, this->cols * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
		for (uint32_t r = 0; r < this->nrows; r += this->rowsPerTile) {
			uint16_t n = (uint16_t)(this->nrows - r < this->rowsPerTile ? this->nrows - r : this->rowsPerTile);
			LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
			DataCopyPad(xLocal, xGm[(uint64_t)r * this->cols], DataCopyExtParams(n, this->cols * sizeof(float), 0, 0, 0),
				    DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
			inQueue.EnQue(xLocal);
			xLocal = inQueue.DeQue<float>();
			LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
			for (uint16_t k = 0; k < n; k++)
				Add(yLocal[k * this->pitch], xLocal[k * this->pitch], bLocal, this->cols);
			inQueue.FreeTensor(xLocal);
			outQueue.EnQue(yLocal);
			yLocal = outQueue.DeQue<float>();
			DataCopyPad(yGm[(uint64_t)r * this->cols], yLocal, DataCopyExtParams(n, this->cols * sizeof(float), 0, 0, 0));
			outQueue.FreeTensor(yLocal);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
	TBuf<QuePosition::VECCALC> bBuf;
	GlobalTensor<float> xGm, bGm, yGm;
	uint32_t nrows, cols, pitch, rowsPerTile;
};

extern "C" __global__ __aicore__ void hidden_rows_per_tile(GM_ADDR x, GM_ADDR b, GM_ADDR y, GM_ADDR workspace,
							   GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelHiddenRowsPerTile op;
	op.Init(x, b, y, tilingData);
	op.Process();
}
