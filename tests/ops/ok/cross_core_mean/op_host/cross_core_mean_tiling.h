// SPDX-License-Identifier: MIT
//
// Tiling data of cross_core_mean: elements in all and per core.
#ifndef CROSS_CORE_MEAN_TILING_H
#define CROSS_CORE_MEAN_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CrossCoreMeanTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CrossCoreMean, CrossCoreMeanTilingData)
} // namespace optiling

#endif
