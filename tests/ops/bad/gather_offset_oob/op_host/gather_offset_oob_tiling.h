// SPDX-License-Identifier: MIT
//
// Tiling data of the gather_offset_oob bad operator: the element count.
#ifndef GATHER_OFFSET_OOB_TILING_H
#define GATHER_OFFSET_OOB_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherOffsetOobTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GatherOffsetOob, GatherOffsetOobTilingData)
} // namespace optiling

#endif
