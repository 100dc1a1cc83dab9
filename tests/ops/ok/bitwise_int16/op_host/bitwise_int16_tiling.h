// SPDX-License-Identifier: MIT
//
// Tiling data of the bitwise_int16 test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef BITWISE_INT16_TILING_H
#define BITWISE_INT16_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BitwiseInt16TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BitwiseInt16, BitwiseInt16TilingData)
} // namespace optiling

#endif
