// SPDX-License-Identifier: MIT
//
// Tiling data of HiddenSetterTile (y = 2x + 1): each core's share of the
// elements and the tile it walks them in.
#ifndef HIDDEN_SETTER_TILE_TILING_H
#define HIDDEN_SETTER_TILE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HiddenSetterTileTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, shareLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(HiddenSetterTile, HiddenSetterTileTilingData)
} // namespace optiling

#endif
