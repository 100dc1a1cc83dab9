// SPDX-License-Identifier: MIT
//
// Tiling data of the acc_val_unset bad operator: the element count.
#ifndef ACC_VAL_UNSET_TILING_H
#define ACC_VAL_UNSET_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AccValUnsetTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AccValUnset, AccValUnsetTilingData)
} // namespace optiling

#endif
