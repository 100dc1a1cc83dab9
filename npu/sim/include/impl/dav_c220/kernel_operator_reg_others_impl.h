// SPDX-License-Identifier: MIT
//
// Real kernels include this by name for the special-register reads
// (GetAccVal, get_max_min_cnt, GetMaxMinCnt); the shim declares them with
// the reductions that set them, in ascendsim/kernel_reduce.h.
#ifndef ASCENDSIM_IMPL_REG_OTHERS_H
#define ASCENDSIM_IMPL_REG_OTHERS_H

#include "kernel_operator.h"

#endif
