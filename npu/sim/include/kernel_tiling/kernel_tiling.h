// SPDX-License-Identifier: MIT
//
// A real build generates this header with the tiling structs of the
// operator being compiled.  The simulator forces the operator's tiling
// headers into the kernel unit instead (npu/sim.c), so there is nothing
// left to declare here; the name has to exist because kernels include it.
#ifndef ASCENDSIM_KERNEL_TILING_KERNEL_TILING_H
#define ASCENDSIM_KERNEL_TILING_KERNEL_TILING_H

#include "kernel_operator.h"

#endif
