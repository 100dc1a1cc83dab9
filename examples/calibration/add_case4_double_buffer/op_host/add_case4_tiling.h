// SPDX-License-Identifier: MIT
//
// Tiling data of add_case4 (case 4: case 3 double-buffered (28 KB tiles: six buffers fit in UB)): rows of the [R, C] inputs are split
// over the cores, the first remRows cores taking one row more, so every
// core's GM range starts on a row (16 KB for C = 8192, so 512-byte aligned).
#ifndef ADD_CASE4_TILING_H
#define ADD_CASE4_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, remRows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileLen);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCase4, TilingData)
} // namespace optiling

#endif
