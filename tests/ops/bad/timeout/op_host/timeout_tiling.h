// SPDX-License-Identifier: MIT
//
// Tiling data of the timeout bad operator: the element count.
#ifndef TIMEOUT_TILING_H
#define TIMEOUT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TimeoutTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Timeout, TimeoutTilingData)
} // namespace optiling

#endif
