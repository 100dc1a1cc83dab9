// SPDX-License-Identifier: MIT
//
// Kernel of AxpyCustom: z = alpha * x + y.  Queues of tiling.bufferNum
// buffers each (the host's BUFFER_NUM; 1 by default, so single-buffered),
// tiles of tiling.tileLength elements and a scratch buffer: alpha * x is
// formed with Muls in the scratch buffer, then added to y with Add (two
// passes over UB and a PIPE_V barrier between).
#include "kernel_operator.h"

using namespace AscendC;

// depth of the TQue templates only; InitBuffer takes tiling.bufferNum
constexpr int32_t BUFFER_NUM = 1;

template <typename T> class KernelAxpy {
public:
	__aicore__ inline KernelAxpy() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t formerNum,
				    uint32_t formerLength, uint32_t tailLength, uint32_t tileLength, uint32_t bufferNum,
				    float alpha)
	{
		uint32_t idx = GetBlockIdx();
		uint32_t start;
		if (idx < formerNum) {
			this->length = formerLength;
			start = idx * formerLength;
		} else {
			this->length = tailLength;
			start = formerNum * formerLength + (idx - formerNum) * tailLength;
		}
		if (start + this->length > totalLength)
			this->length = totalLength - start;
		this->tileLength = tileLength;
		this->alpha = (T)alpha;
		xGm.SetGlobalBuffer((__gm__ T *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + start, this->length);
		zGm.SetGlobalBuffer((__gm__ T *)z + start, this->length);
		pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(T));
		pipe.InitBuffer(inQueueY, bufferNum, tileLength * sizeof(T));
		pipe.InitBuffer(outQueueZ, bufferNum, tileLength * sizeof(T));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(T));
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
		LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
		LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
		DataCopyExtParams params{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
		DataCopyPadExtParams<T> pad{false, 0, 0, 0};
		DataCopyPad(xLocal, xGm[offset], params, pad);
		DataCopyPad(yLocal, yGm[offset], params, pad);
		inQueueX.EnQue(xLocal);
		inQueueY.EnQue(yLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<T> xLocal = inQueueX.DeQue<T>();
		LocalTensor<T> yLocal = inQueueY.DeQue<T>();
		LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
		LocalTensor<T> tmp = tmpBuf.Get<T>();
		Muls(tmp, xLocal, this->alpha, count);
		PipeBarrier<PIPE_V>();
		Add(zLocal, tmp, yLocal, count);
		outQueueZ.EnQue(zLocal);
		inQueueX.FreeTensor(xLocal);
		inQueueY.FreeTensor(yLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
		DataCopyPad(zGm[offset], zLocal, DataCopyExtParams{1, (uint32_t)(count * sizeof(T)), 0, 0, 0});
		outQueueZ.FreeTensor(zLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
	TBuf<QuePosition::VECCALC> tmpBuf;
	GlobalTensor<T> xGm, yGm, zGm;
	uint32_t length;
	uint32_t tileLength;
	T alpha;
};

extern "C" __global__ __aicore__ void axpy_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelAxpy<DTYPE_X> op;
	op.Init(x, y, z, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength, tilingData.tailLength,
		tilingData.tileLength, tilingData.bufferNum, tilingData.alpha);
	op.Process();
}
