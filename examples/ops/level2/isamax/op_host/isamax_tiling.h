// SPDX-License-Identifier: MIT
//
// Tiling data of isamax: elements in all, per core (whole 32-byte blocks;
// the last core takes the remainder) and per UB tile.
#ifndef ISAMAX_TILING_H
#define ISAMAX_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(IsamaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Isamax, IsamaxTilingData)
} // namespace optiling

#endif
