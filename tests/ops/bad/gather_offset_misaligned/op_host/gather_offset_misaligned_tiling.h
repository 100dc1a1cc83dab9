// SPDX-License-Identifier: MIT
//
// Tiling data of the gather_offset_misaligned bad operator: the element count.
#ifndef GATHER_OFFSET_MISALIGNED_TILING_H
#define GATHER_OFFSET_MISALIGNED_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherOffsetMisalignedTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherOffsetMisaligned, GatherOffsetMisalignedTilingData)
} // namespace optiling

#endif
