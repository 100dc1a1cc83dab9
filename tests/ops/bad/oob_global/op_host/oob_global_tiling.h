// SPDX-License-Identifier: MIT
//
// Tiling data of the oob_global bad operator: the element count.
#ifndef OOB_GLOBAL_TILING_H
#define OOB_GLOBAL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(OobGlobalTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(OobGlobal, OobGlobalTilingData)
} // namespace optiling

#endif
