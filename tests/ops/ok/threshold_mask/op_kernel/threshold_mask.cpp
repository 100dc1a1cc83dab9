// SPDX-License-Identifier: MIT
//
// Kernel of ThresholdMask: y = (x > 1) as bool.  CompareScalar makes a bit
// mask, Select turns it into half 1 or 0, Cast makes bytes of them.  Tiling
// key 1: each core's share is one tile; key 2: a loop over tiles.  Any
// other key dispatches nothing and writes nothing.
#include "kernel_operator.h"

using namespace AscendC;

template <bool TILED> class KernelThresholdMask {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		tile = TILED ? tileLength : (blockLength + 127) / 128 * 128;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ uint8_t *)y + start, length);
		pipe.InitBuffer(xQueue, 2, tile * sizeof(float));
		pipe.InitBuffer(yQueue, 2, tile * sizeof(uint8_t));
		pipe.InitBuffer(maskBuf, tile / 8);
		pipe.InitBuffer(onesBuf, tile * sizeof(half));
		pipe.InitBuffer(valueBuf, tile * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<half> ones = onesBuf.Get<half>();
		Duplicate(ones, (half)1.0f, tile);
		for (uint32_t offset = 0; offset < length; offset += tile) {
			uint32_t n = length - offset < tile ? length - offset : tile;
			LocalTensor<float> xLocal = xQueue.AllocTensor<float>();
			DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
				    DataCopyPadExtParams<float>(false, 0, 0, 0));
			xQueue.EnQue(xLocal);
			xLocal = xQueue.DeQue<float>();
			LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
			LocalTensor<half> value = valueBuf.Get<half>();
			LocalTensor<uint8_t> yLocal = yQueue.AllocTensor<uint8_t>();
			CompareScalar(mask, xLocal, 1.0f, CMPMODE::GT, tile);
			Select(value, mask, ones, (half)0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, tile);
			Cast(yLocal, value, RoundMode::CAST_NONE, tile);
			xQueue.FreeTensor(xLocal);
			yQueue.EnQue(yLocal);
			yLocal = yQueue.DeQue<uint8_t>();
			DataCopyPad(yGm[offset], yLocal, DataCopyExtParams(1, n, 0, 0, 0));
			yQueue.FreeTensor(yLocal);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> xQueue;
	TQue<QuePosition::VECOUT, 2> yQueue;
	TBuf<QuePosition::VECCALC> maskBuf, onesBuf, valueBuf;
	GlobalTensor<float> xGm;
	GlobalTensor<uint8_t> yGm;
	uint32_t length = 0;
	uint32_t tile = 0;
};

extern "C" __global__ __aicore__ void threshold_mask(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	if (TILING_KEY_IS(1)) {
		KernelThresholdMask<false> op;
		op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
		op.Process();
	} else if (TILING_KEY_IS(2)) {
		KernelThresholdMask<true> op;
		op.Init(x, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
		op.Process();
	}
}
