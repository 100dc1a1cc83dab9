// SPDX-License-Identifier: MIT
//
// Tiling data of the deadlock_waves bad operator: the element count.
#ifndef DEADLOCK_WAVES_TILING_H
#define DEADLOCK_WAVES_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DeadlockWavesTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(DeadlockWaves, DeadlockWavesTilingData)
} // namespace optiling

#endif
