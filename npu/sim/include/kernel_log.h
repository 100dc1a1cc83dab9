// SPDX-License-Identifier: MIT
//
// Real kernels include kernel_log.h by name; what they use from it (DivCeil,
// AlignUp, the type and log names) is part of the shim's kernel_operator.h.
#ifndef ASCENDSIM_KERNEL_LOG_H
#define ASCENDSIM_KERNEL_LOG_H

#include "kernel_operator.h"

#endif
