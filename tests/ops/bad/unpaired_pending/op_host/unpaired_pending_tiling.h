// SPDX-License-Identifier: MIT
//
// Tiling data of the unpaired_pending bad operator: the element count.
#ifndef UNPAIRED_PENDING_TILING_H
#define UNPAIRED_PENDING_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(UnpairedPendingTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(UnpairedPending, UnpairedPendingTilingData)
} // namespace optiling

#endif
