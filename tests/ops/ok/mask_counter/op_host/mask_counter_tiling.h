// SPDX-License-Identifier: MIT
//
// Tiling data of the mask_counter test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef MASK_COUNTER_TILING_H
#define MASK_COUNTER_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MaskCounterTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MaskCounter, MaskCounterTilingData)
} // namespace optiling

#endif
