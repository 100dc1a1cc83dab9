// SPDX-License-Identifier: MIT
//
// Tiling data of ReciprocalCustom (y = 1 / x): every core takes blockLength
// elements (the last one what is left), walked in tiles of tileLength
// through queues of bufferNum buffers each.
#ifndef RECIPROCAL_CUSTOM_TILING_H
#define RECIPROCAL_CUSTOM_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReciprocalCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum); /* buffers per TQue, the host's BUFFER_NUM */
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ReciprocalCustom, ReciprocalCustomTilingData)
} // namespace optiling

#endif
