// SPDX-License-Identifier: MIT
//
// Tiling data of datacopy_pad_2d: matrix size, rows per core and per tile,
// and the padded row pitch in UB (in halves).
#ifndef DATACOPY_PAD_2D_TILING_H
#define DATACOPY_PAD_2D_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DataCopyPad2dTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
TILING_DATA_FIELD_DEF(uint32_t, pitch);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(DataCopyPad2d, DataCopyPad2dTilingData)
} // namespace optiling

#endif
