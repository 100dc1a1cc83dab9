// SPDX-License-Identifier: MIT
//
// Real kernels include kernel_type.h by name; what they use from it (DivCeil,
// AlignUp, the type and log names) is part of the shim's kernel_operator.h.
#ifndef ASCENDSIM_KERNEL_TYPE_H
#define ASCENDSIM_KERNEL_TYPE_H

#include "kernel_operator.h"

#endif
