// SPDX-License-Identifier: MIT
//
// Tiling data of AddCustom (z = x + y).  The input is cut into 32-byte
// blocks; every core gets smallCoreBlocks of them and the first bigCoreNum
// cores one more.  Each core walks its range in tiles of tileLength elements.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockElems);
TILING_DATA_FIELD_DEF(uint32_t, smallCoreBlocks);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, AddCustomTilingData)
} // namespace optiling

#endif
