// SPDX-License-Identifier: MIT
//
// Tiling data of HiddenCoreCount: each core's share of the elements and the tile it walks them in.
#ifndef HIDDEN_CORE_COUNT_TILING_H
#define HIDDEN_CORE_COUNT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HiddenCoreCountTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, shareLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(HiddenCoreCount, HiddenCoreCountTilingData)
} // namespace optiling

#endif
