// SPDX-License-Identifier: MIT
//
// Tiling data of bias_add_grad: the row length and its padded form, rows
// per core (the last core takes the remainder), rows per tile and the input
// queue's buffer count.
#ifndef BIAS_ADD_GRAD_TILING_H
#define BIAS_ADD_GRAD_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasAddGradTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BiasAddGrad, BiasAddGradTilingData)
} // namespace optiling

#endif
