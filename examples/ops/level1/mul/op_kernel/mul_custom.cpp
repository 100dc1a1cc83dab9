// SPDX-License-Identifier: MIT
//
// Kernel of MulCustom: z = x * y.  The tile length and the number of
// buffers per queue come from the tiling (the host's TILE_NUM and
// BUFFER_NUM; two buffers by default), so the queues are double-buffered,
// but a full PipeBarrier<PIPE_ALL> after the copy-in and after the compute
// of every tile (added to be safe while the kernel was brought up) drains
// all pipes each time, so no two stages ever overlap.
#include "kernel_operator.h"
#include "mul_custom_tiling.h"

using namespace AscendC;

// depth of the TQue templates only; InitBuffer takes tiling.bufferNum
constexpr int32_t BUFFER_NUM = 2;

template <typename T> class KernelMul {
public:
	__aicore__ inline KernelMul() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const MulCustomTilingData &tiling)
	{
		uint32_t start = tiling.blockLength * GetBlockIdx();
		this->length = tiling.totalLength - start < tiling.blockLength ? tiling.totalLength - start : tiling.blockLength;
		this->tileLength = tiling.tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		zGm.SetGlobalBuffer((__gm__ T *)z + start, this->length);
		pipe.InitBuffer(inQueueX, tiling.bufferNum, this->tileLength * sizeof(T));
		pipe.InitBuffer(inQueueY, tiling.bufferNum, this->tileLength * sizeof(T));
		pipe.InitBuffer(outQueueZ, tiling.bufferNum, this->tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t i = 0; i < tiles; i++) {
			uint32_t offset = i * this->tileLength;
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			PipeBarrier<PIPE_ALL>();
			Compute(count);
			PipeBarrier<PIPE_ALL>();
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
		if (count * sizeof(T) % 32 == 0) {
			DataCopy(xLocal, xGm[offset], count);
			DataCopy(yLocal, yGm[offset], count);
		} else {
			DataCopyPad(xLocal, xGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
			DataCopyPad(yLocal, yGm[offset], {1, (uint32_t)(count * sizeof(T)), 0, 0, 0}, {false, 0, 0, 0});
		}
		inQueueX.EnQue(xLocal);
		inQueueY.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = inQueueY.DeQue<T>();
		LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
		Mul(zLocal, xLocal, yLocal, count);
		outQueueZ.EnQue(zLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueY.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
		if (count * sizeof(T) % 32 == 0)
			DataCopy(zGm[offset], zLocal, count);
		else
			DataCopyPad(zGm[offset], zLocal, {1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	GlobalTensor<T> xGm, yGm, zGm;
	uint32_t length;
	uint32_t tileLength;
};

REGISTER_TILING_DEFAULT(MulCustomTilingData);

extern "C" __global__ __aicore__ void mul_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA_WITH_STRUCT(MulCustomTilingData, tilingData, tiling);
	KernelMul<DTYPE_X> op;
	op.Init(x, y, z, tilingData);
	op.Process();
}
