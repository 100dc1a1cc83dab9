// SPDX-License-Identifier: MIT
//
// Tiling data of tiling_named: a helper class registered first (for a
// pseudo operator, as real operators register the structs they nest) and
// the operator's own class, which nests it.  GET_TILING_DATA must pick the
// class registered for TilingNamed, not the first one.
#ifndef TILING_NAMED_TILING_H
#define TILING_NAMED_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingNamedSplit)
TILING_DATA_FIELD_DEF(uint32_t, perCore);
TILING_DATA_FIELD_DEF(uint32_t, tile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingNamedSplitOp, TilingNamedSplit)

BEGIN_TILING_DATA_DEF(TilingNamedTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF_STRUCT(TilingNamedSplit, split);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingNamed, TilingNamedTilingData)
} // namespace optiling

#endif
