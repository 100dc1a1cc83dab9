// SPDX-License-Identifier: MIT
//
// The AscendC kernel API as the simulator provides it: include this the way
// a real kernel does.  Written clean-room from the documented semantics; see
// npu/sim/include/ascendsim/ for the pieces.
#ifndef ASCENDSIM_KERNEL_OPERATOR_H
#define ASCENDSIM_KERNEL_OPERATOR_H

#include "ascendsim/kernel_base.h"
#include "ascendsim/kernel_tensor.h"
#include "ascendsim/kernel_pipe.h"
#include "ascendsim/kernel_copy.h"
#include "ascendsim/kernel_vector.h"
#include "ascendsim/kernel_reduce.h"
#include "ascendsim/kernel_gather.h"
#include "ascendsim/kernel_sort.h"
#include "ascendsim/kernel_libmath.h"
#include "ascendsim/kernel_entry.h"
#include "ascendsim/kernel_compat.h"

namespace AscendC {

inline bfloat16_t ToBfloat16(const float &f)
{
	return bfloat16_t(f);
}

inline float ToFloat(const bfloat16_t &b)
{
	return (float)b;
}

} // namespace AscendC

#endif
