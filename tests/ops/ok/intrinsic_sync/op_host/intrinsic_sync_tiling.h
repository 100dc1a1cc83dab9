// SPDX-License-Identifier: MIT
//
// Tiling data of intrinsic_sync: the matrix shape and the cores to use; the
// kernel splits the rows itself.
#ifndef INTRINSIC_SYNC_TILING_H
#define INTRINSIC_SYNC_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(IntrinsicSyncTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(IntrinsicSync, IntrinsicSyncTilingData)
} // namespace optiling

#endif
