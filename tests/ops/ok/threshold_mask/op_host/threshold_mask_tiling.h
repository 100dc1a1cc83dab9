// SPDX-License-Identifier: MIT
//
// Tiling data of ThresholdMask (y = x > 1 as bool): every core takes
// blockLength elements from blockLength * index, the last one what is left,
// in tiles of tileLength.
#ifndef THRESHOLD_MASK_TILING_H
#define THRESHOLD_MASK_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ThresholdMaskTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ThresholdMask, ThresholdMaskTilingData)
} // namespace optiling

#endif
