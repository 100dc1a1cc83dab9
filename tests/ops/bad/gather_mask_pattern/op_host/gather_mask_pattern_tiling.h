// SPDX-License-Identifier: MIT
//
// Tiling data of the gather_mask_pattern bad operator: the element count.
#ifndef GATHER_MASK_PATTERN_TILING_H
#define GATHER_MASK_PATTERN_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherMaskPatternTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherMaskPattern, GatherMaskPatternTilingData)
} // namespace optiling

#endif
