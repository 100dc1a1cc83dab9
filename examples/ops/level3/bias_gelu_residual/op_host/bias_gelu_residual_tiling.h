// SPDX-License-Identifier: MIT
//
// Tiling data of bias_gelu_residual: the [rows, cols] input is walked row by
// row in chunks of tileCols; rows are spread over the cores and the last
// core takes what is left.
#ifndef BIAS_GELU_RESIDUAL_TILING_H
#define BIAS_GELU_RESIDUAL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BiasGeluResidualTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowNum);       /* rows of x, residual and y */
TILING_DATA_FIELD_DEF(uint32_t, colNum);       /* last dimension; the length of bias */
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);  /* rows of every core but the last */
TILING_DATA_FIELD_DEF(uint32_t, lastCoreRows); /* rows of the last core */
TILING_DATA_FIELD_DEF(uint32_t, tileCols);     /* elements per chunk of a row */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BiasGeluResidual, BiasGeluResidualTilingData)
} // namespace optiling

#endif
