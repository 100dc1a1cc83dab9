// SPDX-License-Identifier: MIT
//
// The host-side tiling interface as operator code includes it: tiling data
// registration, the platform queries, and the host helpers of the kernel
// library APIs (their temporary-buffer sizes and tiling structs).  Many
// operators include it without using more than the first two.
#ifndef ASCENDSIM_TILING_TILING_API_H
#define ASCENDSIM_TILING_TILING_API_H

#include "ascendsim/host.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "ascendsim/host_libapi_math.h"

// The library APIs' host helpers live in AscendC, as on the kernel side.
namespace AscendC {
}

#endif
