// SPDX-License-Identifier: MIT
//
// Tiling data of reduce_sum: a [rows, cols] float matrix summed over its
// last axis.  Rows are dealt out in equal chunks of rowsPerCore; the last
// core takes what is left (tailCoreRows).
#ifndef REDUCE_SUM_TILING_H
#define REDUCE_SUM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, outTileRows);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceSum, ReduceSumTilingData)
} // namespace optiling

#endif
