// SPDX-License-Identifier: MIT
//
// Tiling data of the libmath_power_int test operator: elements in all, per
// core and per UB tile, and the sharedTmpBuffer bytes of Power's
// tensor ^ tensor and tensor/scalar forms.
#ifndef LIBMATH_POWER_INT_TILING_H
#define LIBMATH_POWER_INT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LibmathPowerIntTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, tensorTmpBytes);
TILING_DATA_FIELD_DEF(uint32_t, scalarTmpBytes);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LibmathPowerInt, LibmathPowerIntTilingData)
} // namespace optiling

#endif
