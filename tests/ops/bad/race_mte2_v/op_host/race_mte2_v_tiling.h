// SPDX-License-Identifier: MIT
//
// Tiling data of the race_mte2_v bad operator: the element count.
#ifndef RACE_MTE2_V_TILING_H
#define RACE_MTE2_V_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RaceMte2VTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RaceMte2V, RaceMte2VTilingData)
} // namespace optiling

#endif
