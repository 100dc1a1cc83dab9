// SPDX-License-Identifier: MIT
//
// Tiling data of scale_inplace: the element count and each core's share
// (a multiple of 8 floats).
#ifndef SCALE_INPLACE_TILING_H
#define SCALE_INPLACE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleInplaceTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaleInplace, ScaleInplaceTilingData)
} // namespace optiling

#endif
