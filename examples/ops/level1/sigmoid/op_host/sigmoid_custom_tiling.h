// SPDX-License-Identifier: MIT
//
// Tiling data of SigmoidCustom (y = 1 / (1 + exp(-x))).
#ifndef SIGMOID_CUSTOM_TILING_H
#define SIGMOID_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SigmoidCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockElems);      /* elements per 32-byte block */
TILING_DATA_FIELD_DEF(uint32_t, smallCoreBlocks); /* blocks of a small core */
TILING_DATA_FIELD_DEF(uint32_t, bigCoreNum);      /* cores with one block more */
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SigmoidCustom, SigmoidCustomTilingData)
} // namespace optiling

#endif
