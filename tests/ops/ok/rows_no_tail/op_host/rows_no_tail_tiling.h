// SPDX-License-Identifier: MIT
//
// Tiling data of rows_no_tail: the rows each core takes, the row length,
// and the tile a row is walked in.
#ifndef ROWS_NO_TAIL_TILING_H
#define ROWS_NO_TAIL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowsNoTailTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileLen);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowsNoTail, RowsNoTailTilingData)
} // namespace optiling

#endif
