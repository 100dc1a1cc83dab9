// SPDX-License-Identifier: MIT
//
// Kernel of HiddenUbBudget: y = 3x.  Core i takes shareLength elements
// from i * shareLength (the last core what is left) and walks them in
// double-buffered tiles of tileLength elements: two queues, so four
// tiles live in UB at once.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelHiddenUbBudget {
public:
	__aicore__ inline KernelHiddenUbBudget() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const HiddenUbBudgetTilingData &t)
	{
		uint64_t start = (uint64_t)t.shareLength * GetBlockIdx();
		this->length = start >= t.totalLength ? 0
		               : t.totalLength - start < t.shareLength ? t.totalLength - start
		                                                       : t.shareLength;
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
		Muls(yLocal, xLocal, 3.0f, count);
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

extern "C" __global__ __aicore__ void hidden_ub_budget(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelHiddenUbBudget op;
	op.Init(x, y, tilingData);
	op.Process();
}
