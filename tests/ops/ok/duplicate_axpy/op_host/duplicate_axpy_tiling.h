// SPDX-License-Identifier: MIT
//
// Tiling data of the duplicate_axpy test operator (BEGIN_TILING_DATA_DEF style):
// elements in all, per core, and per UB tile.
#ifndef DUPLICATE_AXPY_TILING_H
#define DUPLICATE_AXPY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DuplicateAxpyTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(DuplicateAxpy, DuplicateAxpyTilingData)
} // namespace optiling

#endif
