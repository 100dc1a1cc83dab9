// SPDX-License-Identifier: MIT
//
// Tiling data of real_idioms: the element count of x.
#ifndef REAL_IDIOMS_TILING_H
#define REAL_IDIOMS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RealIdiomsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RealIdioms, RealIdiomsTilingData)
} // namespace optiling

#endif
