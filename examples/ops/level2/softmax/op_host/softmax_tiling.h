// SPDX-License-Identifier: MIT
//
// Tiling data of softmax over the last axis of a [rows, cols] float matrix:
// rows per core (the last core takes the remainder) and the padded row.
#ifndef SOFTMAX_TILING_H
#define SOFTMAX_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Softmax, SoftmaxTilingData)
} // namespace optiling

#endif
