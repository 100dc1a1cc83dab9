// SPDX-License-Identifier: MIT
//
// Tiling data of sum_squares: elements in all, per core (a whole number of
// 32-byte blocks; the last core takes the remainder) and per UB tile
// (whole 64-float repeats, from the host's TILE_NUM).
#ifndef SUM_SQUARES_TILING_H
#define SUM_SQUARES_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SumSquaresTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SumSquares, SumSquaresTilingData)
} // namespace optiling

#endif
