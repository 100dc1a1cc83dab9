// SPDX-License-Identifier: MIT
//
// Kernel of CastCustom: float32 -> float16, round to nearest even.
// Tiles of tiling.tileLength elements through queues of tiling.bufferNum
// buffers each (the host's BUFFER_NUM; 1 in the baseline, so single
// buffered); the last core's odd-sized share ends with a DataCopyPad tile.
#include "kernel_operator.h"
#include "cast_custom_tiling.h"

using namespace AscendC;

// depth of the TQue templates only; InitBuffer takes tiling.bufferNum
constexpr int32_t BUFFER_NUM = 1;

class KernelCast {
public:
	__aicore__ inline KernelCast() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const CastCustomTilingData &tiling)
	{
		uint32_t idx = GetBlockIdx();
		this->length = idx == GetBlockNum() - 1 ? tiling.lastBlockLength : tiling.blockLength;
		this->tileLength = tiling.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + tiling.blockLength * idx, this->length);
		yGm.SetGlobalBuffer((__gm__ half *)y + tiling.blockLength * idx, this->length);
		pipe.InitBuffer(inQueueX, tiling.bufferNum, this->tileLength * sizeof(float));
		pipe.InitBuffer(outQueueY, tiling.bufferNum, this->tileLength * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < tiles; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
		if (count % 16 == 0)
			DataCopy(xLocal, xGm[offset], count);
		else
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(float)), 0, 0, 0}, {false, 0, 0, 0});
		inQueueX.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<float> xLocal = inQueueX.DeQue<float>();
		LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
		Cast(yLocal, xLocal, RoundMode::CAST_NONE, count);
		outQueueY.EnQue(yLocal);
		inQueueX.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<half> yLocal = outQueueY.DeQue<half>();
		if (count % 16 == 0)
			DataCopy(yGm[offset], yLocal, count);
		else
			DataCopyPad(yGm[offset], yLocal, {1, (uint32_t)(count * sizeof(half)), 0, 0, 0});
		outQueueY.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	GlobalTensor<float> xGm;
	GlobalTensor<half> yGm;
	uint32_t length;
	uint32_t tileLength;
};

REGISTER_TILING_DEFAULT(CastCustomTilingData);

extern "C" __global__ __aicore__ void cast_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA_WITH_STRUCT(CastCustomTilingData, tilingData, tiling);
	KernelCast op;
	op.Init(x, y, tilingData);
	op.Process();
}
