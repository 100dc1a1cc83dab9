// SPDX-License-Identifier: MIT
//
// Tiling data of the tiling_crash bad operator: the element count and the tile.
#ifndef TILING_CRASH_TILING_H
#define TILING_CRASH_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingCrashTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingCrash, TilingCrashTilingData)
} // namespace optiling

#endif
