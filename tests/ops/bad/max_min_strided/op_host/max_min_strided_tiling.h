// SPDX-License-Identifier: MIT
//
// Tiling data of the max_min_strided bad operator: the element count.
#ifndef MAX_MIN_STRIDED_TILING_H
#define MAX_MIN_STRIDED_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MaxMinStridedTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MaxMinStrided, MaxMinStridedTilingData)
} // namespace optiling

#endif
