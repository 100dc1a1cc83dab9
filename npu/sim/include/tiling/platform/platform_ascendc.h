// SPDX-License-Identifier: MIT
//
// platform_ascendc::PlatformAscendC: core counts, memory sizes and SoC
// version from the simulator's platform profile; see ascendsim/host.h.
#ifndef ASCENDSIM_TILING_PLATFORM_PLATFORM_ASCENDC_H
#define ASCENDSIM_TILING_PLATFORM_PLATFORM_ASCENDC_H

#include "ascendsim/host.h"

#endif
