// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimized ReluCustom: 512-byte units spread over
// the cores, the first bigCoreNum cores taking one unit more.
#ifndef RELU_CUSTOM_TILING_H
#define RELU_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitElems);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReluCustom, ReluCustomTilingData)
} // namespace optiling

#endif
