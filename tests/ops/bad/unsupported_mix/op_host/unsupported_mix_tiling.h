// SPDX-License-Identifier: MIT
//
// Tiling data of the unsupported_mix bad operator: the element count.
#ifndef UNSUPPORTED_MIX_TILING_H
#define UNSUPPORTED_MIX_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(UnsupportedMixTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(UnsupportedMix, UnsupportedMixTilingData)
} // namespace optiling

#endif
