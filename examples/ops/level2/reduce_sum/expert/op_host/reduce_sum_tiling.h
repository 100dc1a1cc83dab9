// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-tuned reduce_sum: rows balanced over the cores
// (the first bigCoreNum cores take one row more) and tiles of tileRows rows
// sized from the UB.
#ifndef REDUCE_SUM_TILING_H
#define REDUCE_SUM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, smallCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
TILING_DATA_FIELD_DEF(uint32_t, workStride);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSum, ReduceSumTilingData)
} // namespace optiling

#endif
