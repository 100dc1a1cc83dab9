// SPDX-License-Identifier: MIT
//
// Tiling data of bind_positions: x's element count and the elements per core.
#ifndef BIND_POSITIONS_TILING_H
#define BIND_POSITIONS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BindPositionsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BindPositions, BindPositionsTilingData)
} // namespace optiling

#endif
