// SPDX-License-Identifier: MIT
//
// Tiling data of the race_scalar_write bad operator: the element count.
#ifndef RACE_SCALAR_WRITE_TILING_H
#define RACE_SCALAR_WRITE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RaceScalarWriteTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RaceScalarWrite, RaceScalarWriteTilingData)
} // namespace optiling

#endif
