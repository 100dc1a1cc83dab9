// SPDX-License-Identifier: MIT
//
// Tiling data of the cast_int8 test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef CAST_INT8_TILING_H
#define CAST_INT8_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastInt8TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastInt8, CastInt8TilingData)
} // namespace optiling

#endif
