// SPDX-License-Identifier: MIT
//
// Real kernels include kernel_operator_intf.h by name, CANN's header of the
// kernel API's declarations; everything they use from it is in the shim's
// kernel_operator.h.
#ifndef ASCENDSIM_KERNEL_OPERATOR_INTF_H
#define ASCENDSIM_KERNEL_OPERATOR_INTF_H

#include "kernel_operator.h"

#endif
