// SPDX-License-Identifier: MIT
//
// The include path real kernels use for the Log, Log2 and Log10 library
// APIs; the shim declares them with the other library math APIs in
// ascendsim/kernel_libmath.h.
#include "kernel_operator.h"
