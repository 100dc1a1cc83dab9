// SPDX-License-Identifier: MIT
//
// Tiling data of select_bytes: rows of 256 halves, rows per core.
#ifndef SELECT_BYTES_TILING_H
#define SELECT_BYTES_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SelectBytesTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SelectBytes, SelectBytesTilingData)
} // namespace optiling

#endif
