// SPDX-License-Identifier: MIT
//
// Tiling data of the deadlock_skip bad operator: the element count.
#ifndef DEADLOCK_SKIP_TILING_H
#define DEADLOCK_SKIP_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DeadlockSkipTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(DeadlockSkip, DeadlockSkipTilingData)
} // namespace optiling

#endif
