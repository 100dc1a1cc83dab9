// SPDX-License-Identifier: MIT
//
// Tiling data of add_case2 (case 2: every vector core, 8 KB copies, single-buffered): rows of the [R, C] inputs are split
// over the cores, the first remRows cores taking one row more, so every
// core's GM range starts on a row (16 KB for C = 8192, so 512-byte aligned).
#ifndef ADD_CASE2_TILING_H
#define ADD_CASE2_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, remRows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, tileLen);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCase2, TilingData)
} // namespace optiling

#endif
