// SPDX-License-Identifier: MIT
//
// Tiling data of AxpyCustom (z = alpha * x + y).
#ifndef AXPY_CUSTOM_TILING_H
#define AXPY_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AxpyCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);    /* cores that take formerLength elements */
TILING_DATA_FIELD_DEF(uint32_t, formerLength);
TILING_DATA_FIELD_DEF(uint32_t, tailLength);   /* elements of the other cores */
TILING_DATA_FIELD_DEF(uint32_t, tileLength);   /* elements per UB tile */
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);    /* buffers per TQue, the host's BUFFER_NUM */
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AxpyCustom, AxpyCustomTilingData)
} // namespace optiling

#endif
