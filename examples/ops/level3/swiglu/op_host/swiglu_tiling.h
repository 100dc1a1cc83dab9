// SPDX-License-Identifier: MIT
//
// Tiling data of swiglu: the [rows, 2*cols] input is split into its halves
// a and b along the last axis; rows are spread over the cores (the last core
// takes what is left) and each row is walked in chunks of tileCols elements.
#ifndef SWIGLU_TILING_H
#define SWIGLU_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SwiGluTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowNum);       /* rows of x and y */
TILING_DATA_FIELD_DEF(uint32_t, colNum);       /* columns of y: half the last dimension of x */
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);  /* rows of every core but the last */
TILING_DATA_FIELD_DEF(uint32_t, lastCoreRows); /* rows of the last core */
TILING_DATA_FIELD_DEF(uint32_t, tileCols);     /* elements per chunk of a row */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SwiGlu, SwiGluTilingData)
} // namespace optiling

#endif
