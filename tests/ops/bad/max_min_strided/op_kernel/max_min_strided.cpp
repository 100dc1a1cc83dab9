// SPDX-License-Identifier: MIT
//
// Kernel of the max_min_strided bad operator: GetReduceMaxMinCount after a WholeReduceMax over a strided layout.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void max_min_strided(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	TBuf<TPosition::VECCALC> vbuf, dbuf;
	pipe.InitBuffer(vbuf, 2048);
	pipe.InitBuffer(dbuf, 256);
	LocalTensor<float> v = vbuf.Get<float>();
	DataCopy(v, xGm, 512);
	PipeBarrier<PIPE_ALL>();
	WholeReduceMax(dbuf.Get<float>(), v, 64, 4, 1, 1, 16); /* srcRepStride 16: not continuous */
	PipeBarrier<PIPE_ALL>();
	float val = 0, idx = 0;
	GetReduceMaxMinCount<float>(val, idx);
	dbuf.Get<float>().SetValue(0, val);
}
