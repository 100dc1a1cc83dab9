// SPDX-License-Identifier: MIT
//
// Tiling data of the libmath_float test operator: elements in all, per core
// and per UB tile, and the bytes of the sharedTmpBuffer the kernel hands to
// the library math APIs that take one.
#ifndef LIBMATH_FLOAT_TILING_H
#define LIBMATH_FLOAT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LibmathFloatTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LibmathFloat, LibmathFloatTilingData)
} // namespace optiling

#endif
