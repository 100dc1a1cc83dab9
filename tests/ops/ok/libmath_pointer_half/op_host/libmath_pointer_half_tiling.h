// SPDX-License-Identifier: MIT
//
// Tiling data of the libmath_pointer_half test operator: elements in all,
// per core and per UB tile.
#ifndef LIBMATH_POINTER_HALF_TILING_H
#define LIBMATH_POINTER_HALF_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LibmathPointerHalfTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LibmathPointerHalf, LibmathPointerHalfTilingData)
} // namespace optiling

#endif
