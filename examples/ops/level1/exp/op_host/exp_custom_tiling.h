// SPDX-License-Identifier: MIT
//
// Tiling data of ExpCustom (y = exp(x)): an equal share per core, with the
// remainder given to the last core, walked in tiles of tileLength elements.
#ifndef EXP_CUSTOM_TILING_H
#define EXP_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ExpCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, lastBlockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ExpCustom, ExpCustomTilingData)
} // namespace optiling

#endif
