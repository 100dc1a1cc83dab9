// SPDX-License-Identifier: MIT
//
// Tiling data of the repeat_overflow bad operator: the element count.
#ifndef REPEAT_OVERFLOW_TILING_H
#define REPEAT_OVERFLOW_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RepeatOverflowTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RepeatOverflow, RepeatOverflowTilingData)
} // namespace optiling

#endif
