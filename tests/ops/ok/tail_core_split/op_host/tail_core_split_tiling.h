// SPDX-License-Identifier: MIT
//
// Tiling data of TailCoreSplit (y = 2x): the first formerNum cores take
// formerLength elements each, the next tailNum cores tailLength each.
#ifndef TAIL_CORE_SPLIT_TILING_H
#define TAIL_CORE_SPLIT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TailCoreSplitTilingData)
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerLength);
TILING_DATA_FIELD_DEF(uint32_t, tailNum);
TILING_DATA_FIELD_DEF(uint32_t, tailLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TailCoreSplit, TailCoreSplitTilingData)
} // namespace optiling

#endif
