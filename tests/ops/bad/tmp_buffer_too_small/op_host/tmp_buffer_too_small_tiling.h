// SPDX-License-Identifier: MIT
//
// Tiling data of the tmp_buffer_too_small bad operator: the element count
// and the sharedTmpBuffer bytes.
#ifndef TMP_BUFFER_TOO_SMALL_TILING_H
#define TMP_BUFFER_TOO_SMALL_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TmpBufferTooSmallTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, tmpBytes);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TmpBufferTooSmall, TmpBufferTooSmallTilingData)
} // namespace optiling

#endif
