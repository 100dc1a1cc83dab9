// SPDX-License-Identifier: MIT
//
// Tiling data of the unpaired_wait bad operator: the element count.
#ifndef UNPAIRED_WAIT_TILING_H
#define UNPAIRED_WAIT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(UnpairedWaitTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(UnpairedWait, UnpairedWaitTilingData)
} // namespace optiling

#endif
