// SPDX-License-Identifier: MIT
//
// Tiling data of the trans5hd_misaligned bad operator: the element count.
#ifndef TRANS5HD_MISALIGNED_TILING_H
#define TRANS5HD_MISALIGNED_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(Trans5hdMisalignedTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Trans5hdMisaligned, Trans5hdMisalignedTilingData)
} // namespace optiling

#endif
