// SPDX-License-Identifier: MIT
//
// Tiling data of the ub_overflow bad operator: the element count.
#ifndef UB_OVERFLOW_TILING_H
#define UB_OVERFLOW_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(UbOverflowTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(UbOverflow, UbOverflowTilingData)
} // namespace optiling

#endif
