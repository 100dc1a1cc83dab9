// SPDX-License-Identifier: MIT
//
// Kernel of the entry_arity bad operator: a kernel entry with an extra GM argument the OpDef does not declare.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void entry_arity(GM_ADDR x, GM_ADDR extra, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	(void)extra;
}
