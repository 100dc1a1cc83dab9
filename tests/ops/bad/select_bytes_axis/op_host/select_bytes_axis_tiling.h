// SPDX-License-Identifier: MIT
//
// Tiling data of the select_bytes_axis bad operator: the element count.
#ifndef SELECT_BYTES_AXIS_TILING_H
#define SELECT_BYTES_AXIS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SelectBytesAxisTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SelectBytesAxis, SelectBytesAxisTilingData)
} // namespace optiling

#endif
