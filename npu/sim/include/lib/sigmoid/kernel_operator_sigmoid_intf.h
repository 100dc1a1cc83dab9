// SPDX-License-Identifier: MIT
//
// The include path real kernels use for the Sigmoid library API; the shim
// declares it with the library math APIs in ascendsim/kernel_libmath.h.
#include "kernel_operator.h"
