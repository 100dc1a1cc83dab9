// SPDX-License-Identifier: MIT
//
// Tiling data of SiluCustom (y = x * sigmoid(x)).
#ifndef SILU_CUSTOM_TILING_H
#define SILU_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SiluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);    /* cores with one 32-byte block more */
TILING_DATA_FIELD_DEF(uint32_t, formerLength);
TILING_DATA_FIELD_DEF(uint32_t, tailLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SiluCustom, SiluCustomTilingData)
} // namespace optiling

#endif
