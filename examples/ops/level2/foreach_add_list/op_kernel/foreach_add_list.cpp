// SPDX-License-Identifier: MIT
//
// Kernel of foreach_add_list: core i finds tensor i of the three lists
// through ListTensorDesc and walks it in tiles of tiling.tileLength
// elements: DataCopyPad x and y in, Muls y by alpha, Add x, DataCopyPad z
// out, through queues of tiling.bufferNum buffers each (the host's
// BUFFER_NUM; 1 in the baseline, so single buffered).
#include "kernel_operator.h"

using namespace AscendC;

class KernelForeachAddList {
public:
	__aicore__ inline KernelForeachAddList() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ForeachAddListTilingData &t)
	{
		uint32_t idx = GetBlockIdx();
		length = t.lengths[idx];
		tileLength = t.tileLength;
		alpha = t.alpha;
		ListTensorDesc xList(x), yList(y), zList(z);
		xGm.SetGlobalBuffer(xList.GetDataPtr<float>(idx), length);
		yGm.SetGlobalBuffer(yList.GetDataPtr<float>(idx), length);
		zGm.SetGlobalBuffer(zList.GetDataPtr<float>(idx), length);
		pipe.InitBuffer(xQueue, t.bufferNum, tileLength * sizeof(float));
		pipe.InitBuffer(yQueue, t.bufferNum, tileLength * sizeof(float));
		pipe.InitBuffer(zQueue, t.bufferNum, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t off = 0; off < length; off += tileLength) {
			uint32_t n = length - off < tileLength ? length - off : tileLength;
			CopyIn(off, n);
			Compute(n);
			CopyOut(off, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t off, uint32_t n)
	{
		LocalTensor<float> xl = xQueue.AllocTensor<float>();
		LocalTensor<float> yl = yQueue.AllocTensor<float>();
		DataCopyExtParams p{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
		DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
		DataCopyPad(xl, xGm[off], p, pad);
		DataCopyPad(yl, yGm[off], p, pad);
		xQueue.EnQue(xl);
		yQueue.EnQue(yl);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> xl = xQueue.DeQue<float>();
		LocalTensor<float> yl = yQueue.DeQue<float>();
		LocalTensor<float> zl = zQueue.AllocTensor<float>();
		LocalTensor<float> tmp = tmpBuf.Get<float>();
		Muls(tmp, yl, alpha, n);
		PipeBarrier<PIPE_V>();
		Add(zl, xl, tmp, n);
		zQueue.EnQue(zl);
		xQueue.FreeTensor(xl);
		yQueue.FreeTensor(yl);
	}

	__aicore__ inline void CopyOut(uint32_t off, uint32_t n)
	{
		LocalTensor<float> zl = zQueue.DeQue<float>();
		DataCopyExtParams p{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
		DataCopyPad(zGm[off], zl, p);
		zQueue.FreeTensor(zl);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> xQueue, yQueue;
	TQue<QuePosition::VECOUT, 1> zQueue;
	TBuf<QuePosition::VECCALC> tmpBuf;
	GlobalTensor<float> xGm, yGm, zGm;
	uint32_t length, tileLength;
	float alpha;
};

extern "C" __global__ __aicore__ void foreach_add_list(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
						       GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelForeachAddList op;
	op.Init(x, y, z, tilingData);
	op.Process();
}
