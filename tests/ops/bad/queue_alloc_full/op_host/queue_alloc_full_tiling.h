// SPDX-License-Identifier: MIT
//
// Tiling data of the queue_alloc_full bad operator: the element count.
#ifndef QUEUE_ALLOC_FULL_TILING_H
#define QUEUE_ALLOC_FULL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(QueueAllocFullTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(QueueAllocFull, QueueAllocFullTilingData)
} // namespace optiling

#endif
