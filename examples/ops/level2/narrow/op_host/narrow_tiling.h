// SPDX-License-Identifier: MIT
//
// Tiling data of Narrow (y = x[..., start:start + length]): the rows of
// the last axis, rowsPerCore to a core (the last core what is left),
// moved tileRows at a time.
#ifndef NARROW_TILING_H
#define NARROW_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(NarrowTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowNum);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, start);
TILING_DATA_FIELD_DEF(uint32_t, length);
TILING_DATA_FIELD_DEF(uint32_t, lengthAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Narrow, NarrowTilingData)
} // namespace optiling

#endif
