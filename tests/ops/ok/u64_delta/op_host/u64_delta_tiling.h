// SPDX-License-Identifier: MIT
//
// Tiling data of u64_delta: the element count, each core's share (a
// multiple of 4 uint64, one 32-byte block) and the base subtracted.
#ifndef U64_DELTA_TILING_H
#define U64_DELTA_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(U64DeltaTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint64_t, base);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(U64Delta, U64DeltaTilingData)
} // namespace optiling

#endif
