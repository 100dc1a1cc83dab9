// SPDX-License-Identifier: MIT
//
// Kernel of the select_bytes_axis bad operator: SelectWithBytesMask with a mask row of 8 elements (must be a multiple of 16).
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void select_bytes_axis(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<TPosition::VECCALC> vbuf, mbuf, tbuf;
	pipe.InitBuffer(vbuf, 1024);
	pipe.InitBuffer(mbuf, 256);
	pipe.InitBuffer(tbuf, 1024);
	LocalTensor<float> v = vbuf.Get<float>();
	DataCopy(v, xGm, 256);
	PipeBarrier<PIPE_ALL>();
	SelectWithBytesMaskShapeInfo info;
	info.firstAxis = 32;
	info.srcLastAxis = 8;
	info.maskLastAxis = 8;
	SelectWithBytesMask(v, v, 0.0f, mbuf.Get<int32_t>(), tbuf.Get<uint8_t>(), info);
}
