// SPDX-License-Identifier: MIT
//
// Tiling data of the event_ids_exhausted bad operator: the element count.
#ifndef EVENT_IDS_EXHAUSTED_TILING_H
#define EVENT_IDS_EXHAUSTED_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(EventIdsExhaustedTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(EventIdsExhausted, EventIdsExhaustedTilingData)
} // namespace optiling

#endif
