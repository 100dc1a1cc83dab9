// SPDX-License-Identifier: MIT
//
// The include path real kernels use for the Sin library API; the shim
// declares it with the other library math APIs in ascendsim/kernel_libmath.h.
#include "kernel_operator.h"
