// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-tuned sum_squares: the tensor's 512-byte chunks (128 floats)
// balanced over the cores (the first bigCoreNum cores take one chunk more)
// and the UB tile length.
#ifndef SUM_SQUARES_TILING_H
#define SUM_SQUARES_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SumSquaresTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, smallCoreChunks);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SumSquares, SumSquaresTilingData)
} // namespace optiling

#endif
