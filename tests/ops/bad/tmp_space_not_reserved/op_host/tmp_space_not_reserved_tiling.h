// SPDX-License-Identifier: MIT
//
// Tiling data of the tmp_space_not_reserved bad operator: the element count
// and the elements per UB tile.
#ifndef TMP_SPACE_NOT_RESERVED_TILING_H
#define TMP_SPACE_NOT_RESERVED_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TmpSpaceNotReservedTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TmpSpaceNotReserved, TmpSpaceNotReservedTilingData)
} // namespace optiling

#endif
