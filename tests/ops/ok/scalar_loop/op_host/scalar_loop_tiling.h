// SPDX-License-Identifier: MIT
//
// Tiling data of the scalar_loop test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef SCALAR_LOOP_TILING_H
#define SCALAR_LOOP_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScalarLoopTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScalarLoop, ScalarLoopTilingData)
} // namespace optiling

#endif
