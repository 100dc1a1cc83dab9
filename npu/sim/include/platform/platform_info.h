// SPDX-License-Identifier: MIT
//
// fe::PlatFormInfos, the platform profile a tiling function reads; see ascendsim/host.h.
#ifndef ASCENDSIM_PLATFORM_PLATFORM_INFO_H
#define ASCENDSIM_PLATFORM_PLATFORM_INFO_H

#include "ascendsim/host.h"

#endif
