// SPDX-License-Identifier: MIT
//
// Kernel of the huge_workspace bad operator: it never runs, the workspace
// its tiling asks for is refused first.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void huge_workspace(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	(void)x, (void)z, (void)workspace, (void)tiling;
}
