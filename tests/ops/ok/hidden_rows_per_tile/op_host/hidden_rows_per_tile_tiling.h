// SPDX-License-Identifier: MIT
//
// Tiling data of HiddenRowsPerTile (y = x + b by rows): the matrix, each
// core's rows and the rows the kernel moves at a time.
#ifndef HIDDEN_ROWS_PER_TILE_TILING_H
#define HIDDEN_ROWS_PER_TILE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HiddenRowsPerTileTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(HiddenRowsPerTile, HiddenRowsPerTileTilingData)
} // namespace optiling

#endif
