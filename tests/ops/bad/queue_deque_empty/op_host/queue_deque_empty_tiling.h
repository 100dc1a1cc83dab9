// SPDX-License-Identifier: MIT
//
// Tiling data of the queue_deque_empty bad operator: the element count.
#ifndef QUEUE_DEQUE_EMPTY_TILING_H
#define QUEUE_DEQUE_EMPTY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(QueueDequeEmptyTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(QueueDequeEmpty, QueueDequeEmptyTilingData)
} // namespace optiling

#endif
