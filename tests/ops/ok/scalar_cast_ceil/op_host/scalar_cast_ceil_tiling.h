// SPDX-License-Identifier: MIT
//
// Tiling data of the scalar_cast_ceil test operator: the element count and
// a tile length the kernel aligns down to whole data blocks itself.
#ifndef SCALAR_CAST_CEIL_TILING_H
#define SCALAR_CAST_CEIL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScalarCastCeilTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScalarCastCeil, ScalarCastCeilTilingData)
} // namespace optiling

#endif
