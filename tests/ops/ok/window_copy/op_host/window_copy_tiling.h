// SPDX-License-Identifier: MIT
//
// Tiling data of window_copy: where the window starts in x (the value of
// the begin input), its length, each core's share and the tile (all
// multiples of 8 floats, one 32-byte block).
#ifndef WINDOW_COPY_TILING_H
#define WINDOW_COPY_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(WindowCopyTilingData)
TILING_DATA_FIELD_DEF(uint32_t, begin);
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(WindowCopy, WindowCopyTilingData)
} // namespace optiling

#endif
