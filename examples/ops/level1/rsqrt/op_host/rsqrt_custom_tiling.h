// SPDX-License-Identifier: MIT
//
// Tiling data of RsqrtCustom (y = 1 / sqrt(x)).
#ifndef RSQRT_CUSTOM_TILING_H
#define RSQRT_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RsqrtCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RsqrtCustom, RsqrtCustomTilingData)
} // namespace optiling

#endif
