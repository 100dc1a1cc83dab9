// SPDX-License-Identifier: MIT
//
// Kernel of the event_ids_exhausted bad operator: seven AllocEventID<V_MTE3> with six usable ids.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void event_ids_exhausted(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.total);
	TPipe pipe;
	for (int i = 0; i < 7; i++)
		GetTPipePtr()->AllocEventID<HardEvent::V_MTE3>();
}
