// SPDX-License-Identifier: MIT
//
// Tiling data of binary_repeat: elements in all, per core and per tile, all
// multiples of 128 floats (two 256-byte repeats).
#ifndef BINARY_REPEAT_TILING_H
#define BINARY_REPEAT_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(BinaryRepeatTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(BinaryRepeat, BinaryRepeatTilingData)
} // namespace optiling

#endif
