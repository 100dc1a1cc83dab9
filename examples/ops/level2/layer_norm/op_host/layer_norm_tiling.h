// SPDX-License-Identifier: MIT
//
// Tiling data of layer_norm over the last axis of a [rows, cols] float
// matrix: rows per core (the last core takes the remainder), the padded
// row, 1/cols and epsilon.
#ifndef LAYER_NORM_TILING_H
#define LAYER_NORM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerNormTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, invCols);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LayerNorm, LayerNormTilingData)
} // namespace optiling

#endif
