// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-optimized AddCustom.  The input is cut into
// 512-byte units (the GM burst alignment); every core gets unitsPerCore of
// them and the first bigCoreNum cores one more, so each core's range starts
// 512-byte aligned and no core carries more than one unit extra.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, unitElems);
TILING_DATA_FIELD_DEF(uint32_t, unitsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
} // namespace optiling

#endif
