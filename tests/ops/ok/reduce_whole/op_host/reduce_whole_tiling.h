// SPDX-License-Identifier: MIT
//
// Tiling data of reduce_whole: rows of 128 halves, rows per core and per
// tile (at most 64 so that a tile stays under the 255-repeat limit).
#ifndef REDUCE_WHOLE_TILING_H
#define REDUCE_WHOLE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceWholeTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReduceWhole, ReduceWholeTilingData)
} // namespace optiling

#endif
