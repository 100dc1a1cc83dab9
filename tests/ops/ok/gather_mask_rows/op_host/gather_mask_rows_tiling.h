// SPDX-License-Identifier: MIT
//
// Tiling data of gather_mask_rows: rows of 128 halves, rows per core (a
// multiple of the 16-row group the kernel compacts at once).
#ifndef GATHER_MASK_ROWS_TILING_H
#define GATHER_MASK_ROWS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherMaskRowsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherMaskRows, GatherMaskRowsTilingData)
} // namespace optiling

#endif
