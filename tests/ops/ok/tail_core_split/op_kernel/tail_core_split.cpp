// SPDX-License-Identifier: MIT
//
// Kernel of TailCoreSplit: y = 2x.  A core's share comes from the former/
// tail split in the tiling data, so the host alone decides how the
// remainder is spread; the share is walked in double-buffered tiles
// through DataCopyPad, so any length works.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelTailCoreSplit {
public:
	__aicore__ inline KernelTailCoreSplit() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const TailCoreSplitTilingData &t)
	{
		uint32_t core = GetBlockIdx();
		uint64_t start;
		if (core < t.formerNum) {
			this->length = t.formerLength;
			start = (uint64_t)t.formerLength * core;
		} else {
			this->length = t.tailLength;
			start = (uint64_t)t.formerLength * t.formerNum + (uint64_t)t.tailLength * (core - t.formerNum);
		}
		this->tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, this->length);
		pipe.InitBuffer(inQueue, BUFFER_NUM, t.tileLength * sizeof(float));
		pipe.InitBuffer(outQueue, BUFFER_NUM, t.tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, count);
			Compute(count);
			CopyOut(offset, count);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t count)
	{
		LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
		DataCopyExtParams params{1, (uint32_t)(count * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(xLocal, xGm[offset], params, pad);
		inQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t count)
	{
		LocalTensor<float> xLocal = inQueue.DeQue<float>();
		LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
		Muls(yLocal, xLocal, 2.0f, count);
		outQueue.EnQue(yLocal);
		inQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t count)
	{
		LocalTensor<float> yLocal = outQueue.DeQue<float>();
		DataCopyExtParams params{1, (uint32_t)(count * sizeof(float)), 0, 0, 0};
		DataCopyPad(yGm[offset], yLocal, params);
		outQueue.FreeTensor(yLocal);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
	GlobalTensor<float> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void tail_core_split(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelTailCoreSplit op;
	op.Init(x, y, tilingData);
	op.Process();
}
