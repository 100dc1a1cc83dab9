// SPDX-License-Identifier: MIT
//
// Tiling data of one_core_rows: rows and columns of x, and the columns a
// tile of a row holds.
#ifndef ONE_CORE_ROWS_TILING_H
#define ONE_CORE_ROWS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(OneCoreRowsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileCols);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OneCoreRows, OneCoreRowsTilingData)
} // namespace optiling

#endif
