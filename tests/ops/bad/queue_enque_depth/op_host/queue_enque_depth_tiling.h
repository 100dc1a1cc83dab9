// SPDX-License-Identifier: MIT
//
// Tiling data of the queue_enque_depth bad operator: the element count.
#ifndef QUEUE_ENQUE_DEPTH_TILING_H
#define QUEUE_ENQUE_DEPTH_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(QueueEnqueDepthTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(QueueEnqueDepth, QueueEnqueDepthTilingData)
} // namespace optiling

#endif
