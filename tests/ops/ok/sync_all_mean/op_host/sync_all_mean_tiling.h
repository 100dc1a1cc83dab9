// SPDX-License-Identifier: MIT
//
// Tiling data of sync_all_mean: elements in all and per core.
#ifndef SYNC_ALL_MEAN_TILING_H
#define SYNC_ALL_MEAN_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SyncAllMeanTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SyncAllMean, SyncAllMeanTilingData)
} // namespace optiling

#endif
