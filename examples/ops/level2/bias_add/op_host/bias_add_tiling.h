// SPDX-License-Identifier: MIT
//
// Tiling data of bias_add: the row length and its padded form, rows per
// core (the last core takes the remainder), rows per tile and the number of
// buffers of each kernel queue.
#ifndef BIAS_ADD_TILING_H
#define BIAS_ADD_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);  /* rows per UB tile */
TILING_DATA_FIELD_DEF(uint32_t, bufferNum); /* buffers per TQue, the host's BUFFER_NUM */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BiasAdd, BiasAddTilingData)
} // namespace optiling

#endif
