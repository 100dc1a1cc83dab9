// SPDX-License-Identifier: MIT
//
// Kernel of the tmp_space_not_reserved bad operator: Erf on float without a
// sharedTmpBuffer, after InitBuffer has handed out all of UB.  Erf reaches
// the kernel as a function-pointer template argument, the way the foreach
// headers take it, so the error is reported at the instruction before the
// call (the PipeBarrier).
#include "kernel_operator.h"
#include "lib/math/kernel_operator_erf_intf.h"

using namespace AscendC;

template <typename T> using UnaryApi = void(const LocalTensor<T> &, const LocalTensor<T> &, const uint32_t);

template <typename T, UnaryApi<T> *api>
__aicore__ inline void Apply(const LocalTensor<T> &z, const LocalTensor<T> &x, uint32_t n)
{
	PipeBarrier<PIPE_V>();
	api(z, x, n);
}

extern "C" __global__ __aicore__ void tmp_space_not_reserved(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TQue<QuePosition::VECOUT, 2> outQueue;
	pipe.InitBuffer(inQueue, 2, td.tileLength * sizeof(float));
	pipe.InitBuffer(outQueue, 2, td.tileLength * sizeof(float));
	for (uint32_t off = 0; off < td.total; off += td.tileLength) {
		uint32_t n = td.total - off < td.tileLength ? td.total - off : td.tileLength;
		LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
		DataCopyPad(xLocal, xGm[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		inQueue.EnQue(xLocal);
		xLocal = inQueue.DeQue<float>();
		LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
		Apply<float, Erf<float, false>>(zLocal, xLocal, n);
		outQueue.EnQue(zLocal);
		inQueue.FreeTensor(xLocal);
		zLocal = outQueue.DeQue<float>();
		DataCopyPad(zGm[off], zLocal, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		outQueue.FreeTensor(zLocal);
	}
}
