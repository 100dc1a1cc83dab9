// SPDX-License-Identifier: MIT
//
// Kernel of ExpCustom: y = exp(x).  A single UB buffer (TBuf) is used in
// place: copy in, exponentiate, copy out, with a full PipeBarrier<PIPE_ALL>
// between the stages, so nothing overlaps.  DataCopyPad is used for every
// copy so that the last core's odd-sized share needs no special case.
#include "kernel_operator.h"

using namespace AscendC;

template <typename T> class KernelExp {
public:
	__aicore__ inline KernelExp() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t lastBlockLength,
				    uint32_t tileLength)
	{
		uint32_t idx = GetBlockIdx();
		this->length = idx == GetBlockNum() - 1 ? lastBlockLength : blockLength;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ T *)x + blockLength * idx, this->length);
		yGm.SetGlobalBuffer((__gm__ T *)y + blockLength * idx, this->length);
		pipe.InitBuffer(calcBuf, tileLength * sizeof(T));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<T> local = calcBuf.Get<T>();
		for (uint32_t offset = 0; offset < this->length; offset += this->tileLength) {
			uint32_t count = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			DataCopyExtParams params{1, (uint32_t)(count * sizeof(T)), 0, 0, 0};
			DataCopyPad(local, xGm[offset], params, DataCopyPadExtParams<T>{false, 0, 0, 0});
			PipeBarrier<PIPE_ALL>();
			Exp(local, local, count);
			PipeBarrier<PIPE_ALL>();
			DataCopyPad(yGm[offset], local, params);
			PipeBarrier<PIPE_ALL>();
		}
	}

private:
	TPipe pipe;
	TBuf<QuePosition::VECCALC> calcBuf;
	GlobalTensor<T> xGm, yGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void exp_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelExp<DTYPE_X> op;
	op.Init(x, y, tilingData.blockLength, tilingData.lastBlockLength, tilingData.tileLength);
	op.Process();
}
