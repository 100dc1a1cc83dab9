// SPDX-License-Identifier: MIT
//
// Tiling data of the hand-tuned softmax: rows balanced over the cores (the
// first bigCoreNum cores take one row more) and tiles of whole rows sized
// from the UB.
#ifndef SOFTMAX_TILING_H
#define SOFTMAX_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, smallCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
TILING_DATA_FIELD_DEF(uint32_t, workStride);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(Softmax, SoftmaxTilingData)
} // namespace optiling

#endif
