// SPDX-License-Identifier: MIT
//
// Tiling data of AbsCustom (y = |x|).
#ifndef ABS_CUSTOM_TILING_H
#define ABS_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AbsCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);     /* elements of every core but the last */
TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength); /* the last core's share plus the remainder */
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AbsCustom, AbsCustomTilingData)
} // namespace optiling

#endif
