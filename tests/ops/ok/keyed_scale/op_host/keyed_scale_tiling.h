// SPDX-License-Identifier: MIT
//
// Tiling data of KeyedScale (y = 3x): each core takes blockLength
// elements (the last core what is left) in tiles of tileLength.
#ifndef KEYED_SCALE_TILING_H
#define KEYED_SCALE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(KeyedScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(KeyedScale, KeyedScaleTilingData)
} // namespace optiling

#endif
