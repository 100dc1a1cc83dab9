// SPDX-License-Identifier: MIT
//
// Tiling data of scaled_masked_softmax: x is [batch, heads, sq, sk], the
// mask [batch or 1, 1, sq, sk]; rows of sk elements are spread over the
// cores (the last core takes what is left) and one row is one tile.
#ifndef SCALED_MASKED_SOFTMAX_TILING_H
#define SCALED_MASKED_SOFTMAX_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaledMaskedSoftmaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowNum);       /* batch * heads * sq */
TILING_DATA_FIELD_DEF(uint32_t, colNum);       /* sk */
TILING_DATA_FIELD_DEF(uint32_t, colAligned);   /* sk rounded up to 64 elements */
TILING_DATA_FIELD_DEF(uint32_t, headNum);      /* heads */
TILING_DATA_FIELD_DEF(uint32_t, seqNum);       /* sq */
TILING_DATA_FIELD_DEF(uint32_t, maskBatch);    /* 1 when the mask is shared by the whole batch */
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);  /* rows of every core but the last */
TILING_DATA_FIELD_DEF(uint32_t, lastCoreRows); /* rows of the last core */
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaledMaskedSoftmax, ScaledMaskedSoftmaxTilingData)
} // namespace optiling

#endif
