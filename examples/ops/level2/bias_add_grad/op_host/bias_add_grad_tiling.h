// SPDX-License-Identifier: MIT
//
// Tiling data of bias_add_grad: the row length and its padded form and rows
// per core (the last core takes the remainder).
#ifndef BIAS_ADD_GRAD_TILING_H
#define BIAS_ADD_GRAD_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasAddGradTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailCoreRows);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BiasAddGrad, BiasAddGradTilingData)
} // namespace optiling

#endif
