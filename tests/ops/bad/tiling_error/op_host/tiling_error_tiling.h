// SPDX-License-Identifier: MIT
//
// Tiling data of the tiling_error bad operator: the element count.
#ifndef TILING_ERROR_TILING_H
#define TILING_ERROR_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingErrorTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingError, TilingErrorTilingData)
} // namespace optiling

#endif
