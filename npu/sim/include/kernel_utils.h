// SPDX-License-Identifier: MIT
//
// Real kernels include kernel_utils.h by name; what they use from it (DivCeil,
// AlignUp, the type and log names) is part of the shim's kernel_operator.h.
#ifndef ASCENDSIM_KERNEL_UTILS_H
#define ASCENDSIM_KERNEL_UTILS_H

#include "kernel_operator.h"

#endif
