// SPDX-License-Identifier: MIT
//
// Tiling data of the oob_raw_pointer bad operator: the element count.
#ifndef OOB_RAW_POINTER_TILING_H
#define OOB_RAW_POINTER_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(OobRawPointerTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OobRawPointer, OobRawPointerTilingData)
} // namespace optiling

#endif
