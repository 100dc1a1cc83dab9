// SPDX-License-Identifier: MIT
//
// Tiling data of the tque_config_mismatch bad operator: the element count.
#ifndef TQUE_CONFIG_MISMATCH_TILING_H
#define TQUE_CONFIG_MISMATCH_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TqueConfigMismatchTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TqueConfigMismatch, TqueConfigMismatchTilingData)
} // namespace optiling

#endif
