// SPDX-License-Identifier: MIT
//
// Tiling data of the cast_modes test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef CAST_MODES_TILING_H
#define CAST_MODES_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastModesTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastModes, CastModesTilingData)
} // namespace optiling

#endif
