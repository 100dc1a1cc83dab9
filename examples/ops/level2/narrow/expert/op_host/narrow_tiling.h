// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimized Narrow: the rows of the last axis,
// baseRows to a core and one more to each of the first bigCores, moved
// tileRows at a time (as many as two UB buffers hold).
#ifndef NARROW_TILING_H
#define NARROW_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(NarrowTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, start);
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(uint32_t, lengthAligned);
TILING_DATA_FIELD_DEF(uint32_t, baseRows);
TILING_DATA_FIELD_DEF(uint32_t, bigCores);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Narrow, NarrowTilingData)
} // namespace optiling

#endif
