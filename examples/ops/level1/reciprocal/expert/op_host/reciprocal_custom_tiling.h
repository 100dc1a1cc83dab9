// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimized ReciprocalCustom.  The input is cut
// into 512-byte units; every core gets unitsPerCore of them and the first
// bigCoreNum cores one more, walked in tiles of tileLength elements.
#ifndef RECIPROCAL_CUSTOM_TILING_H
#define RECIPROCAL_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReciprocalCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitElems);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReciprocalCustom, ReciprocalCustomTilingData)
} // namespace optiling

#endif
