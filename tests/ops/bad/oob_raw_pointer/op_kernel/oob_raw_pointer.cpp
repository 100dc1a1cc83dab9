// SPDX-License-Identifier: MIT
//
// Kernel of the oob_raw_pointer bad operator: a raw pointer store far past the end of the output.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void oob_raw_pointer(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	__gm__ float *raw = (__gm__ float *)z;
	raw[2100] = 1.0f;
}
