// SPDX-License-Identifier: MIT
//
// Tiling data of GeluCustom (tanh-form GELU).
#ifndef GELU_CUSTOM_TILING_H
#define GELU_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GeluCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength); /* elements per core; the last active core takes the rest */
TILING_DATA_FIELD_DEF(uint32_t, tileLength); /* elements per UB tile */
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);  /* buffers per TQue, the host's BUFFER_NUM */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GeluCustom, GeluCustomTilingData)
} // namespace optiling

#endif
