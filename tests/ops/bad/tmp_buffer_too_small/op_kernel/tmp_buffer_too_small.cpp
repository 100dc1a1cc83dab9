// SPDX-License-Identifier: MIT
//
// Kernel of the tmp_buffer_too_small bad operator: Sin on float with the
// 512-byte sharedTmpBuffer of the isReuseSource form, but called without
// isReuseSource, which needs 768.
#include "kernel_operator.h"
#include "lib/math/kernel_operator_sin_intf.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void tmp_buffer_too_small(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TQue<QuePosition::VECOUT, 1> outQueue;
	TBuf<QuePosition::VECCALC> tmpBuf;
	pipe.InitBuffer(inQueue, 1, td.total * sizeof(float));
	pipe.InitBuffer(outQueue, 1, td.total * sizeof(float));
	pipe.InitBuffer(tmpBuf, td.tmpBytes);
	LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
	DataCopy(xLocal, xGm, td.total);
	inQueue.EnQue(xLocal);
	xLocal = inQueue.DeQue<float>();
	LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
	Sin(zLocal, xLocal, tmpBuf.Get<uint8_t>(), td.total);
	outQueue.EnQue(zLocal);
	inQueue.FreeTensor(xLocal);
	zLocal = outQueue.DeQue<float>();
	DataCopy(zGm, zLocal, td.total);
	outQueue.FreeTensor(zLocal);
}
