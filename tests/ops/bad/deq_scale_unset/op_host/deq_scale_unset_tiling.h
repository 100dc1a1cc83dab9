// SPDX-License-Identifier: MIT
//
// Tiling data of the deq_scale_unset bad operator: the element count.
#ifndef DEQ_SCALE_UNSET_TILING_H
#define DEQ_SCALE_UNSET_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(DeqScaleUnsetTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(DeqScaleUnset, DeqScaleUnsetTilingData)
} // namespace optiling

#endif
