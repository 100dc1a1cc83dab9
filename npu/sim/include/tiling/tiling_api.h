// SPDX-License-Identifier: MIT
//
// The host-side umbrella header real tiling code includes for the library
// APIs' tiling helpers.  Each family's helpers live in their own shim
// header; this one only includes them.
#ifndef ASCENDSIM_TILING_TILING_API_H
#define ASCENDSIM_TILING_TILING_API_H

#include "ascendsim/host_libapi_math.h"

#endif
