// SPDX-License-Identifier: MIT
//
// Tiling data of the cast_int4_runs bad operator: the element count.
#ifndef CAST_INT4_RUNS_TILING_H
#define CAST_INT4_RUNS_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastInt4RunsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, total);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastInt4Runs, CastInt4RunsTilingData)
} // namespace optiling

#endif
