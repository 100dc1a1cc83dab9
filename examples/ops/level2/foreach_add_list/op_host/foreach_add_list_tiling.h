// SPDX-License-Identifier: MIT
//
// Tiling data of foreach_add_list: the number of tensors in the lists, the
// length of each (one core per tensor), the UB tile length, the number of
// buffers of each kernel queue and alpha.
#ifndef FOREACH_ADD_LIST_TILING_H
#define FOREACH_ADD_LIST_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ForeachAddListTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tensorNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength); /* elements per UB tile, the same on every core */
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);  /* buffers per TQue, the host's BUFFER_NUM */
TILING_DATA_FIELD_DEF_ARR(uint32_t, 16, lengths);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ForeachAddList, ForeachAddListTilingData)
} // namespace optiling

#endif
