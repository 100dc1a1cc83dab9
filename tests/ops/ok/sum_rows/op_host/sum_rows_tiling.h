// SPDX-License-Identifier: MIT
//
// Tiling data of sum_rows: rows and columns of x.
#ifndef SUM_ROWS_TILING_H
#define SUM_ROWS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SumRowsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SumRows, SumRowsTilingData)
} // namespace optiling

#endif
