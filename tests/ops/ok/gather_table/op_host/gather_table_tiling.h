// SPDX-License-Identifier: MIT
//
// Tiling data of gather_table: the table length, the index count, each
// core's share of indices and the tile (all multiples of 64).
#ifndef GATHER_TABLE_TILING_H
#define GATHER_TABLE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherTableTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tableLength);
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherTable, GatherTableTilingData)
} // namespace optiling

#endif
